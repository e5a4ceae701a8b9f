package reports

import (
	"maps"
	"slices"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Equal reports whether two Reports say the same thing: source, scope,
// configuration, summary, results (timestamps ignored), the managed-by
// label and the dropped-results annotation. Metadata noise — resource
// version, managed fields, other labels and annotations — and the results'
// timestamps are ignored, so an audit that finds nothing new rewrites
// nothing.
func Equal(a, b *openreportsv1alpha1.Report) bool {
	if a == nil || b == nil {
		return a == b
	}
	return sameMeta(a.ObjectMeta, b.ObjectMeta) &&
		sameContent(a.Source, b.Source, a.Configuration, b.Configuration, a.Summary, b.Summary, a.Results, b.Results) &&
		equality.Semantic.DeepEqual(a.Scope, b.Scope) &&
		equality.Semantic.DeepEqual(a.ScopeSelector, b.ScopeSelector)
}

// ClusterEqual is Equal for ClusterReports.
func ClusterEqual(a, b *openreportsv1alpha1.ClusterReport) bool {
	if a == nil || b == nil {
		return a == b
	}
	return sameMeta(a.ObjectMeta, b.ObjectMeta) &&
		sameContent(a.Source, b.Source, a.Configuration, b.Configuration, a.Summary, b.Summary, a.Results, b.Results) &&
		equality.Semantic.DeepEqual(a.Scope, b.Scope) &&
		equality.Semantic.DeepEqual(a.ScopeSelector, b.ScopeSelector)
}

func sameMeta(a, b metav1.ObjectMeta) bool {
	return a.Labels[ManagedByLabel] == b.Labels[ManagedByLabel] &&
		a.Annotations[DroppedAnnotation] == b.Annotations[DroppedAnnotation]
}

func sameContent(sa, sb string, ca, cb *openreportsv1alpha1.ReportConfiguration, ma, mb openreportsv1alpha1.ReportSummary,
	ra, rb []openreportsv1alpha1.ReportResult) bool {
	return sa == sb && ma == mb && equality.Semantic.DeepEqual(ca, cb) &&
		slices.EqualFunc(ra, rb, sameResult)
}

// sameResult compares two results but their timestamps. Empty and nil
// collections are the same (the API server drops empty ones).
func sameResult(a, b openreportsv1alpha1.ReportResult) bool {
	a.Timestamp, b.Timestamp = metav1.Timestamp{}, metav1.Timestamp{}
	if len(a.Properties) == 0 && len(b.Properties) == 0 {
		a.Properties, b.Properties = nil, nil
	}
	if !maps.Equal(a.Properties, b.Properties) {
		return false
	}
	a.Properties, b.Properties = nil, nil
	return equality.Semantic.DeepEqual(a, b)
}
