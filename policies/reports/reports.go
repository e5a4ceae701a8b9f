// Package reports turns the catalog's verdicts on live objects into
// OpenReports (openreports.io/v1alpha1): one Report per namespace and one
// ClusterReport, all named "omnia-audit". The operator's background audit
// and `omniactl audit --report` both build them here, so the two write the
// same reports for the same cluster. It is pure: no client, no clock (the
// caller passes the time), no network.
//
// What a result says:
//
//   - a finding of severity deny is a fail result of severity high; a
//     finding of severity warn is a warn result of severity medium. The
//     severity is the finding's, after --rule-severity overrides and the
//     policy's validationActions (a policy without Deny reports its deny
//     rules' findings as warn, as admission would);
//   - a rule that applied to an object (Object.Rules) and found nothing is
//     a pass result: the caller lists the rules worth a pass, the audit the
//     policy rules (a pass per built-in rule on every object would drown
//     the report);
//   - an object that could not be evaluated (Object.Error) is one error
//     result, policy ErrorPolicy;
//   - on the ClusterReport, each ValidationPolicy (Policy) is a pass result
//     per rule in force, an error result per compile error, or one skip
//     result while the operator has not compiled its current generation.
//
// Every result has source "omnia", policy and rule the catalog's rule ID
// (policy/<policy>/<rule> for a policy rule), the object as its resource,
// message "<field>: <message>" and the properties field and ruleID.
package reports

import (
	"cmp"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

const (
	// Name is every report's name: one per namespace, one cluster-wide.
	Name = "omnia-audit"
	// Source is the source of every report and result.
	Source = "omnia"
	// ManagedByLabel and ManagedBy mark the reports the audit owns: it
	// updates and deletes only reports carrying it.
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedBy      = "omnia"
	// DroppedAnnotation counts the results left out of a report over its
	// cap (the summary still counts them).
	DroppedAnnotation = "omnia.altairalabs.ai/results-dropped"
	// ErrorPolicy is the policy of an error result for an object the audit
	// could not evaluate.
	ErrorPolicy = "omnia/evaluation"
	// DefaultMaxResults caps the results of one report. A report is one
	// etcd object (1.5 MiB by default); a result is a few hundred bytes,
	// with its message capped at MaxMessageBytes, so a thousand stay well
	// below the limit.
	DefaultMaxResults = 1000
	// MaxMessageBytes caps one result's message.
	MaxMessageBytes = 512
)

// Result values and severities as OpenReports spells them.
const (
	ResultPass  openreportsv1alpha1.Result = "pass"
	ResultFail  openreportsv1alpha1.Result = "fail"
	ResultWarn  openreportsv1alpha1.Result = "warn"
	ResultError openreportsv1alpha1.Result = "error"
	ResultSkip  openreportsv1alpha1.Result = "skip"

	SeverityHigh   openreportsv1alpha1.ResultSeverity = "high"
	SeverityMedium openreportsv1alpha1.ResultSeverity = "medium"
	SeverityInfo   openreportsv1alpha1.ResultSeverity = "info"
)

// Property keys of a result.
const (
	PropertyField  = "field"
	PropertyRuleID = "ruleID"
)

// Object is one evaluated object.
type Object struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	UID        types.UID
	// Findings are the catalog's findings on the object.
	Findings []rules.Finding
	// Rules are the IDs of the rules that applied to the object and earn a
	// pass result when they found nothing.
	Rules []string
	// Error, when set, says why the object could not be evaluated; its
	// findings are then ignored.
	Error string
}

// Policy is one ValidationPolicy's compile state, reported on the
// ClusterReport.
type Policy struct {
	Name string
	UID  types.UID
	// Rules are the IDs of its rules in force.
	Rules []string
	// Errors are its compile errors.
	Errors []v1alpha1.ValidationPolicyRuleError
	// Pending: the operator has not compiled the current generation yet.
	Pending bool
}

// Input is one audit's verdicts.
type Input struct {
	Objects  []Object
	Policies []Policy
	// Now stamps every result.
	Now time.Time
	// MaxResults caps each report's results; 0 means DefaultMaxResults.
	MaxResults int
}

// Set is the reports one audit writes.
type Set struct {
	// Namespaced holds one Report per namespace with at least one result,
	// sorted by namespace.
	Namespaced []*openreportsv1alpha1.Report
	// Cluster holds the cluster-scoped results (policies, cluster-scoped
	// objects). It is always built, possibly empty, so an audit clears the
	// results of a policy that was deleted.
	Cluster *openreportsv1alpha1.ClusterReport
}

// Build turns in into reports.
func Build(in Input) Set {
	limit := in.MaxResults
	if limit <= 0 {
		limit = DefaultMaxResults
	}
	ts := metav1.Timestamp{Seconds: in.Now.Unix(), Nanos: int32(in.Now.Nanosecond())}
	byNS := map[string][]openreportsv1alpha1.ReportResult{}
	var cluster []openreportsv1alpha1.ReportResult
	for _, o := range in.Objects {
		rs := objectResults(o, ts)
		if o.Namespace == "" {
			cluster = append(cluster, rs...)
			continue
		}
		byNS[o.Namespace] = append(byNS[o.Namespace], rs...)
	}
	for _, p := range in.Policies {
		cluster = append(cluster, policyResults(p, ts)...)
	}

	var set Set
	namespaces := make([]string, 0, len(byNS))
	for ns := range byNS {
		if len(byNS[ns]) > 0 {
			namespaces = append(namespaces, ns)
		}
	}
	slices.Sort(namespaces)
	for _, ns := range namespaces {
		results, summary, dropped := bound(byNS[ns], limit)
		set.Namespaced = append(set.Namespaced, &openreportsv1alpha1.Report{
			TypeMeta:      metav1.TypeMeta{APIVersion: openreportsv1alpha1.GroupVersion.String(), Kind: "Report"},
			ObjectMeta:    meta(ns, dropped),
			Source:        Source,
			Configuration: &openreportsv1alpha1.ReportConfiguration{Limits: openreportsv1alpha1.Limits{MaxResults: limit}},
			Summary:       summary,
			Results:       results,
		})
	}
	results, summary, dropped := bound(cluster, limit)
	set.Cluster = &openreportsv1alpha1.ClusterReport{
		TypeMeta:      metav1.TypeMeta{APIVersion: openreportsv1alpha1.GroupVersion.String(), Kind: "ClusterReport"},
		ObjectMeta:    meta("", dropped),
		Source:        Source,
		Configuration: &openreportsv1alpha1.ReportConfiguration{Limits: openreportsv1alpha1.Limits{MaxResults: limit}},
		Summary:       summary,
		Results:       results,
	}
	return set
}

func meta(namespace string, dropped int) metav1.ObjectMeta {
	m := metav1.ObjectMeta{Name: Name, Namespace: namespace, Labels: map[string]string{ManagedByLabel: ManagedBy}}
	if dropped > 0 {
		m.Annotations = map[string]string{DroppedAnnotation: strconv.Itoa(dropped)}
	}
	return m
}

// objectResults are o's results: its findings, a pass per applied rule
// without a finding, or one error.
func objectResults(o Object, ts metav1.Timestamp) []openreportsv1alpha1.ReportResult {
	subject := []corev1.ObjectReference{{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, UID: o.UID}}
	if o.Error != "" {
		return []openreportsv1alpha1.ReportResult{{
			Source: Source, Policy: ErrorPolicy, Rule: ErrorPolicy, Timestamp: ts,
			Result: ResultError, Severity: SeverityHigh, Subjects: subject,
			Description: capMessage("could not be evaluated: " + o.Error),
		}}
	}
	found := map[string]bool{}
	out := make([]openreportsv1alpha1.ReportResult, 0, len(o.Findings)+len(o.Rules))
	for _, f := range o.Findings {
		found[f.RuleID] = true
		res, sev := ResultFail, SeverityHigh
		if f.Severity != rules.SeverityDeny {
			res, sev = ResultWarn, SeverityMedium
		}
		out = append(out, openreportsv1alpha1.ReportResult{
			Source: Source, Policy: f.RuleID, Rule: f.RuleID, Category: string(f.Source), Timestamp: ts,
			Result: res, Severity: sev, Subjects: subject,
			Description: capMessage(f.Field + ": " + f.Message),
			Properties:  map[string]string{PropertyField: f.Field, PropertyRuleID: f.RuleID},
		})
	}
	seen := map[string]bool{}
	for _, id := range o.Rules {
		if found[id] || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, openreportsv1alpha1.ReportResult{
			Source: Source, Policy: id, Rule: id, Timestamp: ts,
			Result: ResultPass, Severity: SeverityInfo, Subjects: subject,
			Description: "no finding",
			Properties:  map[string]string{PropertyRuleID: id},
		})
	}
	return out
}

// policyResults are a ValidationPolicy's results on the ClusterReport.
func policyResults(p Policy, ts metav1.Timestamp) []openreportsv1alpha1.ReportResult {
	subject := []corev1.ObjectReference{{APIVersion: v1alpha1.GroupVersion.String(), Kind: "ValidationPolicy", Name: p.Name, UID: p.UID}}
	policyID := rules.PolicyRulePrefix + p.Name
	if p.Pending {
		return []openreportsv1alpha1.ReportResult{{
			Source: Source, Policy: policyID, Rule: policyID, Timestamp: ts,
			Result: ResultSkip, Severity: SeverityInfo, Subjects: subject,
			Description: "not yet compiled by the operator",
		}}
	}
	var out []openreportsv1alpha1.ReportResult
	for _, e := range p.Errors {
		id := cmp.Or(e.Rule, policyID)
		out = append(out, openreportsv1alpha1.ReportResult{
			Source: Source, Policy: id, Rule: id, Category: string(rules.SourcePolicy), Timestamp: ts,
			Result: ResultError, Severity: SeverityHigh, Subjects: subject,
			Description: capMessage(e.Field + ": " + e.Message),
			Properties:  map[string]string{PropertyField: e.Field, PropertyRuleID: id},
		})
	}
	if len(p.Errors) > 0 {
		// A policy with any error is not in force: none of its rules pass.
		return out
	}
	for _, id := range p.Rules {
		out = append(out, openreportsv1alpha1.ReportResult{
			Source: Source, Policy: id, Rule: id, Category: string(rules.SourcePolicy), Timestamp: ts,
			Result: ResultPass, Severity: SeverityInfo, Subjects: subject,
			Description: "compiled and in force",
			Properties:  map[string]string{PropertyRuleID: id},
		})
	}
	return out
}

// capMessage cuts a message to MaxMessageBytes on a rune boundary.
func capMessage(s string) string {
	if len(s) <= MaxMessageBytes {
		return s
	}
	cut := MaxMessageBytes - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// resultRank orders outcomes worst first, so a capped report keeps the
// results that need action.
var resultRank = map[openreportsv1alpha1.Result]int{ResultFail: 0, ResultError: 1, ResultWarn: 2, ResultSkip: 3, ResultPass: 4}

// compareResults orders results deterministically: outcome (worst first),
// resource, policy, field, message.
func compareResults(a, b openreportsv1alpha1.ReportResult) int {
	if c := cmp.Compare(resultRank[a.Result], resultRank[b.Result]); c != 0 {
		return c
	}
	if c := compareSubjects(a.Subjects, b.Subjects); c != 0 {
		return c
	}
	return cmp.Or(
		cmp.Compare(a.Policy, b.Policy),
		cmp.Compare(a.Properties[PropertyField], b.Properties[PropertyField]),
		cmp.Compare(a.Description, b.Description),
	)
}

func compareSubjects(a, b []corev1.ObjectReference) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := cmp.Or(
			cmp.Compare(a[i].Kind, b[i].Kind),
			cmp.Compare(a[i].Namespace, b[i].Namespace),
			cmp.Compare(a[i].Name, b[i].Name),
			cmp.Compare(a[i].UID, b[i].UID),
		); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// bound sorts results, keeps the first limit and counts every one in the
// summary; it returns how many it dropped.
func bound(results []openreportsv1alpha1.ReportResult, limit int) ([]openreportsv1alpha1.ReportResult, openreportsv1alpha1.ReportSummary, int) {
	slices.SortStableFunc(results, compareResults)
	results = slices.CompactFunc(results, func(a, b openreportsv1alpha1.ReportResult) bool { return compareResults(a, b) == 0 })
	var s openreportsv1alpha1.ReportSummary
	for _, r := range results {
		switch r.Result {
		case ResultPass:
			s.Pass++
		case ResultFail:
			s.Fail++
		case ResultWarn:
			s.Warn++
		case ResultError:
			s.Error++
		case ResultSkip:
			s.Skip++
		}
	}
	dropped := 0
	if len(results) > limit {
		dropped = len(results) - limit
		results = slices.Clip(results[:limit])
	}
	return results, s, dropped
}
