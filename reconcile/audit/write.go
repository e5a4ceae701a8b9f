package audit

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/policies/reports"
)

// listPage bounds one page of the managed Reports' list.
const listPage = 500

// reportsServed reports whether the API server serves the OpenReports
// kinds. Their absence is logged once (and again after they come and go):
// the operator runs without them.
func (a *Auditor) reportsServed() (bool, error) {
	served := true
	for _, kind := range []string{"Report", "ClusterReport"} {
		_, err := a.opts.Mapper.RESTMapping(schema.GroupKind{Group: openreportsv1alpha1.GroupName, Kind: kind})
		if meta.IsNoMatchError(err) {
			served = false
			continue
		}
		if err != nil {
			return false, fmt.Errorf("audit: discovering %s.%s: %w", kind, openreportsv1alpha1.GroupName, err)
		}
	}
	if a.reportsServedLast == nil || *a.reportsServedLast != served {
		if !served {
			a.opts.Log.Info("the OpenReports CRDs (openreports.io Report, ClusterReport) are not installed: the audit runs and its metrics count the results, but it writes no report")
		} else if a.reportsServedLast != nil {
			a.opts.Log.Info("the OpenReports CRDs are installed: the audit writes its reports")
		}
		a.reportsServedLast = &served
	}
	return served, nil
}

// write creates or updates the reports of set whose content changed and
// deletes the audit's reports of namespaces set has none for. It returns
// how many reports it wrote.
func (a *Auditor) write(ctx context.Context, set reports.Set) (int, error) {
	existing, err := a.managedReports(ctx)
	if err != nil {
		return 0, err
	}
	writes := 0
	var errs []error
	for _, want := range set.Namespaced {
		have := existing[want.Namespace]
		delete(existing, want.Namespace)
		op, err := a.putReport(ctx, have, want)
		if op != "" {
			writes++
			a.opts.Metrics.wrote(op)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	// What is left belongs to namespaces without Omnia objects (or with
	// nothing to report) now.
	for _, ns := range slices.Sorted(maps.Keys(existing)) {
		stale := existing[ns]
		uid := stale.UID
		err := a.opts.Reports.Delete(ctx, stale, client.Preconditions{UID: &uid})
		switch {
		case err == nil:
			writes++
			a.opts.Metrics.wrote("delete")
		case !apierrors.IsNotFound(err):
			errs = append(errs, fmt.Errorf("audit: deleting Report %s/%s: %w", ns, stale.Name, err))
		}
	}
	if set.Cluster != nil {
		op, err := a.putClusterReport(ctx, set.Cluster)
		if op != "" {
			writes++
			a.opts.Metrics.wrote(op)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return writes, errors.Join(errs...)
}

// managedReports lists the audit's own Reports (its name and managed-by
// label) by namespace, in bounded pages.
func (a *Auditor) managedReports(ctx context.Context) (map[string]*openreportsv1alpha1.Report, error) {
	out := map[string]*openreportsv1alpha1.Report{}
	cont := ""
	for {
		list := &openreportsv1alpha1.ReportList{}
		if err := a.opts.Reports.List(ctx, list, client.MatchingLabels{reports.ManagedByLabel: reports.ManagedBy},
			client.Limit(listPage), client.Continue(cont)); err != nil {
			return nil, fmt.Errorf("audit: listing the audit's Reports: %w", err)
		}
		for i := range list.Items {
			if r := &list.Items[i]; r.Name == reports.Name {
				out[r.Namespace] = r
			}
		}
		if len(out) > a.opts.MaxObjects {
			return nil, fmt.Errorf("audit: more than %d Reports labelled %s=%s", a.opts.MaxObjects, reports.ManagedByLabel, reports.ManagedBy)
		}
		if cont = list.Continue; cont == "" {
			return out, nil
		}
	}
}

// putReport creates want, or updates have to want's content when it
// differs; it returns the write made ("create", "update" or "").
func (a *Auditor) putReport(ctx context.Context, have, want *openreportsv1alpha1.Report) (string, error) {
	if have == nil {
		err := a.opts.Reports.Create(ctx, want.DeepCopy())
		switch {
		case err == nil:
			return "create", nil
		case apierrors.IsAlreadyExists(err):
			// A Report of that name the audit does not manage (no label):
			// it is someone else's, left alone.
			a.opts.Log.Info("a Report named like the audit's is not managed by it: left alone", "namespace", want.Namespace, "name", want.Name)
			return "", nil
		default:
			return "", fmt.Errorf("audit: creating Report %s/%s: %w", want.Namespace, want.Name, err)
		}
	}
	if reports.Equal(have, want) {
		return "", nil
	}
	next := have.DeepCopy()
	next.Labels = mergeStrings(next.Labels, want.Labels)
	next.Annotations = withDropped(next.Annotations, want.Annotations)
	next.Source, next.Scope, next.ScopeSelector = want.Source, want.Scope, want.ScopeSelector
	next.Configuration, next.Summary, next.Results = want.Configuration, want.Summary, want.Results
	if err := a.opts.Reports.Update(ctx, next); err != nil {
		return "", fmt.Errorf("audit: updating Report %s/%s: %w", want.Namespace, want.Name, err)
	}
	return "update", nil
}

// putClusterReport is putReport for the ClusterReport, read first: there
// is one.
func (a *Auditor) putClusterReport(ctx context.Context, want *openreportsv1alpha1.ClusterReport) (string, error) {
	have := &openreportsv1alpha1.ClusterReport{}
	err := a.opts.Reports.Get(ctx, client.ObjectKey{Name: want.Name}, have)
	switch {
	case apierrors.IsNotFound(err):
		if err := a.opts.Reports.Create(ctx, want.DeepCopy()); err != nil && !apierrors.IsAlreadyExists(err) {
			return "", fmt.Errorf("audit: creating ClusterReport %s: %w", want.Name, err)
		}
		return "create", nil
	case err != nil:
		return "", fmt.Errorf("audit: reading ClusterReport %s: %w", want.Name, err)
	case have.Labels[reports.ManagedByLabel] != reports.ManagedBy:
		a.opts.Log.Info("a ClusterReport named like the audit's is not managed by it: left alone", "name", want.Name)
		return "", nil
	case reports.ClusterEqual(have, want):
		return "", nil
	}
	next := have.DeepCopy()
	next.Labels = mergeStrings(next.Labels, want.Labels)
	next.Annotations = withDropped(next.Annotations, want.Annotations)
	next.Source, next.Scope, next.ScopeSelector = want.Source, want.Scope, want.ScopeSelector
	next.Configuration, next.Summary, next.Results = want.Configuration, want.Summary, want.Results
	if err := a.opts.Reports.Update(ctx, next); err != nil {
		return "", fmt.Errorf("audit: updating ClusterReport %s: %w", want.Name, err)
	}
	return "update", nil
}

// mergeStrings returns have with want's entries set.
func mergeStrings(have, want map[string]string) map[string]string {
	out := maps.Clone(have)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, want)
	return out
}

// withDropped returns have with the dropped-results annotation as in want
// (removed when want has none); other annotations are kept.
func withDropped(have, want map[string]string) map[string]string {
	out := maps.Clone(have)
	if v, ok := want[reports.DroppedAnnotation]; ok {
		if out == nil {
			out = map[string]string{}
		}
		out[reports.DroppedAnnotation] = v
	} else {
		delete(out, reports.DroppedAnnotation)
	}
	return out
}
