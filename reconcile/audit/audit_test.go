package audit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/policies/reports"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/test/controlplane"
)

const teamRuleID = "policy/audit-test/needs-team"

// teamRule is a hand-made policy rule (as policies/ compiles one): a
// Provider in namespace ns must carry a team label.
func teamRule(ns string) rules.Rule {
	return rules.Rule{
		ID: teamRuleID, Kinds: []string{"Provider"}, Stage: rules.StageAdmission, Severity: rules.SeverityDeny,
		Doc: "every Provider names its team",
		Check: func(in rules.Input) field.ErrorList {
			m, err := meta.Accessor(in.Object)
			if err != nil || m.GetLabels()["team"] == "" {
				return field.ErrorList{field.Required(field.NewPath("metadata", "labels", "team"), "every Provider names its team")}
			}
			return nil
		},
		Match: func(in rules.Input) bool {
			m, err := meta.Accessor(in.Object)
			return err == nil && m.GetNamespace() == ns
		},
	}
}

func catalogWith(t *testing.T, extra ...rules.Rule) *rules.Catalog {
	t.Helper()
	cat, err := rules.Default.With(extra)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// newAuditor returns an Auditor reading the test manager's cache, with
// fresh metrics; opts fields left zero take the test defaults.
func newAuditor(t *testing.T, opts Options) (*Auditor, *Metrics) {
	t.Helper()
	if opts.Metrics == nil {
		opts.Metrics = NewMetrics(prometheus.NewRegistry())
	}
	opts.Reader = testMgr.GetClient()
	opts.Secrets = testMgr.GetAPIReader()
	opts.Reports = reportsClient
	if opts.Mapper == nil {
		opts.Mapper = testMgr.GetRESTMapper()
	}
	opts.Log = ctrl.Log.WithName(t.Name())
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return a, opts.Metrics
}

func createProvider(t *testing.T, ns, name, baseURL string, labels map[string]string) *v1alpha1.Provider {
	t.Helper()
	p := &v1alpha1.Provider{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec:       v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock, BaseURL: baseURL},
	}
	if err := direct.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

func getReport(ns string) (*openreportsv1alpha1.Report, error) {
	r := &openreportsv1alpha1.Report{}
	err := reportsClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: reports.Name}, r)
	return r, err
}

// result finds the result of policy on the named object; nil if none.
func result(results []openreportsv1alpha1.ReportResult, policy, name string) *openreportsv1alpha1.ReportResult {
	for i, r := range results {
		if r.Policy == policy && len(r.Subjects) == 1 && r.Subjects[0].Name == name {
			return &results[i]
		}
	}
	return nil
}

// runUntil audits until check accepts the outcome (the cache catches up
// with the test's writes).
func runUntil(t *testing.T, a *Auditor, what string, check func(Result, error) error) Result {
	t.Helper()
	var res Result
	poll(t, 30*time.Second, what, func() error {
		var err error
		res, err = a.Run(context.Background())
		return check(res, err)
	})
	return res
}

// writes sums the report writes of every op.
func writes(m *Metrics) float64 {
	var n float64
	for _, op := range []string{"create", "update", "delete"} {
		n += testutil.ToFloat64(m.Writes.WithLabelValues(op))
	}
	return n
}

// TestAuditReport: a Provider breaking a policy rule and a built-in warn
// rule gets fail and warn results with the rule IDs and fields, one that
// complies a pass; an audit with nothing changed writes nothing; fixing
// the object updates the report; removing the objects deletes it.
func TestAuditReport(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	cat := catalogWith(t, teamRule(ns))
	bad := createProvider(t, ns, "bad", "http://127.0.0.1:1/v1", nil)
	good := createProvider(t, ns, "good", "", map[string]string{"team": "a"})
	a, m := newAuditor(t, Options{Catalog: func() *rules.Catalog { return cat }})

	var rep *openreportsv1alpha1.Report
	runUntil(t, a, "a report of both Providers", func(_ Result, err error) error {
		if err != nil {
			return err
		}
		var gerr error
		if rep, gerr = getReport(ns); gerr != nil {
			return gerr
		}
		if result(rep.Results, teamRuleID, "good") == nil || result(rep.Results, teamRuleID, "bad") == nil {
			return fmt.Errorf("results %+v", rep.Results)
		}
		return nil
	})
	tests := []struct {
		policy, name, field string
		result              openreportsv1alpha1.Result
		severity            openreportsv1alpha1.ResultSeverity
	}{
		{teamRuleID, "bad", "metadata.labels.team", reports.ResultFail, reports.SeverityHigh},
		{"provider/base-url-plain-http", "bad", "spec.baseURL", reports.ResultWarn, reports.SeverityMedium},
		{teamRuleID, "good", "", reports.ResultPass, reports.SeverityInfo},
	}
	for _, tt := range tests {
		r := result(rep.Results, tt.policy, tt.name)
		if r == nil {
			t.Errorf("no %s result on %s: %+v", tt.policy, tt.name, rep.Results)
			continue
		}
		if r.Result != tt.result || r.Severity != tt.severity || r.Rule != tt.policy || r.Source != reports.Source ||
			r.Properties[reports.PropertyField] != tt.field || r.Properties[reports.PropertyRuleID] != tt.policy {
			t.Errorf("%s on %s: %+v", tt.policy, tt.name, r)
		}
		if tt.field != "" && !strings.HasPrefix(r.Description, tt.field+": ") {
			t.Errorf("%s on %s: message %q does not start with the field", tt.policy, tt.name, r.Description)
		}
		s := r.Subjects[0]
		if s.Kind != "Provider" || s.Namespace != ns || s.APIVersion != v1alpha1.GroupVersion.String() {
			t.Errorf("subject %+v", s)
		}
	}
	if r := result(rep.Results, teamRuleID, "bad"); r != nil && r.Subjects[0].UID != bad.UID {
		t.Errorf("subject UID %q, want %q", r.Subjects[0].UID, bad.UID)
	}
	if rep.Labels[reports.ManagedByLabel] != reports.ManagedBy || rep.Source != reports.Source || rep.Summary.Fail < 1 || rep.Summary.Warn < 1 || rep.Summary.Pass < 1 {
		t.Errorf("report metadata or summary: labels %v source %q summary %+v", rep.Labels, rep.Source, rep.Summary)
	}

	// Nothing changed: no write.
	before := writes(m)
	res, err := a.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Writes != 0 || writes(m) != before {
		t.Errorf("an audit with nothing changed wrote %d reports", res.Writes)
	}
	if again, err := getReport(ns); err != nil || again.ResourceVersion != rep.ResourceVersion {
		t.Errorf("report rewritten: resourceVersion %s -> %s (err %v)", rep.ResourceVersion, again.ResourceVersion, err)
	}

	// Fixed: the report says so.
	fixed := bad.DeepCopy()
	if err := direct.Get(ctx, client.ObjectKeyFromObject(bad), fixed); err != nil {
		t.Fatal(err)
	}
	fixed.Labels = map[string]string{"team": "b"}
	fixed.Spec.BaseURL = "https://127.0.0.1:1/v1"
	if err := direct.Update(ctx, fixed); err != nil {
		t.Fatal(err)
	}
	runUntil(t, a, "the report of the fixed Provider", func(_ Result, err error) error {
		if err != nil {
			return err
		}
		r, gerr := getReport(ns)
		if gerr != nil {
			return gerr
		}
		if p := result(r.Results, teamRuleID, "bad"); p == nil || p.Result != reports.ResultPass {
			return fmt.Errorf("no pass for the fixed Provider yet: %+v", r.Results)
		}
		if w := result(r.Results, "provider/base-url-plain-http", "bad"); w != nil {
			return fmt.Errorf("warn still reported: %+v", w)
		}
		if r.ResourceVersion == rep.ResourceVersion {
			return errors.New("report not rewritten")
		}
		return nil
	})
	if got := testutil.ToFloat64(m.Writes.WithLabelValues("update")); got < 1 {
		t.Errorf("omnia_audit_report_writes_total{op=update} = %v", got)
	}

	// Gone: the namespace's report is deleted.
	for _, p := range []*v1alpha1.Provider{bad, good} {
		if err := direct.Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	runUntil(t, a, "the report deleted with the last Provider", func(_ Result, err error) error {
		if err != nil {
			return err
		}
		if _, gerr := getReport(ns); !apierrors.IsNotFound(gerr) {
			return fmt.Errorf("report still there (%v)", gerr)
		}
		return nil
	})
	if got := testutil.ToFloat64(m.Writes.WithLabelValues("delete")); got < 1 {
		t.Errorf("omnia_audit_report_writes_total{op=delete} = %v", got)
	}
	if got := testutil.ToFloat64(m.Runs.WithLabelValues("ok")); got < 4 {
		t.Errorf("omnia_audit_runs_total{outcome=ok} = %v, want at least 4", got)
	}
}

// notifier stands in for policies.Store's Changes: fire closes the channel
// handed out and makes a new one.
type notifier struct {
	mu sync.Mutex
	ch chan struct{}
}

func (n *notifier) Changes() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch == nil {
		n.ch = make(chan struct{})
	}
	return n.ch
}

func (n *notifier) fire() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch != nil {
		close(n.ch)
	}
	n.ch = make(chan struct{})
}

// TestAuditOnPolicyChange: the running audit audits at start, then once
// for a burst of policy changes (debounced), with the new catalog, and on
// a trigger.
func TestAuditOnPolicyChange(t *testing.T) {
	ns := namespace(t)
	createProvider(t, ns, "unlabelled", "", nil)
	var current atomic.Pointer[rules.Catalog]
	current.Store(rules.Default)
	n := &notifier{}
	trigger := make(chan struct{})
	a, m := newAuditor(t, Options{
		Catalog:  current.Load,
		Changes:  n.Changes,
		Trigger:  trigger,
		Debounce: 300 * time.Millisecond,
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start: %v", err)
		}
	})
	runs := func() float64 {
		return testutil.ToFloat64(m.Runs.WithLabelValues("ok")) + testutil.ToFloat64(m.Runs.WithLabelValues("error"))
	}
	poll(t, 30*time.Second, "the audit at start", func() error {
		if got := runs(); got != 1 {
			return fmt.Errorf("%v audits", got)
		}
		return nil
	})

	// A burst of policy edits: the last catalog holds the team rule.
	current.Store(catalogWith(t, teamRule(ns)))
	n.fire()
	n.fire()
	n.fire()
	poll(t, 30*time.Second, "one audit after the burst of policy changes", func() error {
		if got := runs(); got != 2 {
			return fmt.Errorf("%v audits", got)
		}
		return nil
	})
	rep, err := getReport(ns)
	if err != nil {
		t.Fatalf("no report after the policy change: %v", err)
	}
	if r := result(rep.Results, teamRuleID, "unlabelled"); r == nil || r.Result != reports.ResultFail {
		t.Errorf("the new policy rule's finding is not in the report: %+v", rep.Results)
	}
	trigger <- struct{}{}
	poll(t, 30*time.Second, "the triggered audit", func() error {
		if got := runs(); got != 3 {
			return fmt.Errorf("%v audits", got)
		}
		return nil
	})
	// Three changes made one audit: start + burst + trigger.
	if got := runs(); got != 3 {
		t.Errorf("%v audits, want 3", got)
	}
}

// TestAuditWithoutOpenReports: without the OpenReports CRDs the audit runs,
// counts its results and writes nothing; once they are installed it
// writes.
func TestAuditWithoutOpenReports(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	createProvider(t, ns, "plain-http", "http://127.0.0.1:1/v1", nil)
	if err := controlplane.UninstallOpenReportsCRDs(ctx, testEnv.Config); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := controlplane.InstallOpenReportsCRDs(testEnv.Config); err != nil {
			t.Error(err)
		}
	})
	// A mapper that has never seen the group, as in an operator started
	// without the CRDs.
	hc, err := rest.HTTPClientFor(testEnv.Config)
	if err != nil {
		t.Fatal(err)
	}
	mapper, err := apiutil.NewDynamicRESTMapper(testEnv.Config, hc)
	if err != nil {
		t.Fatal(err)
	}
	a, m := newAuditor(t, Options{Mapper: mapper})
	runUntil(t, a, "an audit without OpenReports that sees the Provider", func(res Result, err error) error {
		if err != nil {
			return err
		}
		if res.ReportsServed {
			return errors.New("reports served")
		}
		if res.Summary.Warn < 1 {
			return fmt.Errorf("summary %+v", res.Summary)
		}
		return nil
	})
	if got := writes(m); got != 0 {
		t.Errorf("%v report writes without the CRDs", got)
	}
	if got := testutil.ToFloat64(m.Results.WithLabelValues("warn")); got < 1 {
		t.Errorf("omnia_audit_results{outcome=warn} = %v", got)
	}

	if err := controlplane.InstallOpenReportsCRDs(testEnv.Config); err != nil {
		t.Fatal(err)
	}
	runUntil(t, a, "the report once the CRDs are installed", func(res Result, err error) error {
		if err != nil {
			return err
		}
		if !res.ReportsServed {
			return errors.New("reports not served yet")
		}
		r, gerr := getReport(ns)
		if gerr != nil {
			return gerr
		}
		if result(r.Results, "provider/base-url-plain-http", "plain-http") == nil {
			return fmt.Errorf("results %+v", r.Results)
		}
		return nil
	})
}

// TestAuditTooManyObjects: over the cap, the audit stops and writes
// nothing.
func TestAuditTooManyObjects(t *testing.T) {
	ns := namespace(t)
	createProvider(t, ns, "one", "http://127.0.0.1:1/v1", nil)
	createProvider(t, ns, "two", "http://127.0.0.1:1/v1", nil)
	a, m := newAuditor(t, Options{MaxObjects: 1})
	runUntil(t, a, "the audit refused over the cap", func(res Result, err error) error {
		if !errors.Is(err, ErrTooManyObjects) {
			return fmt.Errorf("err %v", err)
		}
		if res.Writes != 0 {
			return fmt.Errorf("%d writes", res.Writes)
		}
		return nil
	})
	if got := testutil.ToFloat64(m.Runs.WithLabelValues("too_many_objects")); got < 1 {
		t.Errorf("omnia_audit_runs_total{outcome=too_many_objects} = %v", got)
	}
	if got := writes(m); got != 0 {
		t.Errorf("%v writes", got)
	}
	if _, err := getReport(ns); !apierrors.IsNotFound(err) {
		t.Errorf("a report was written over the cap (%v)", err)
	}
}

// TestAuditPolicyStates: the ClusterReport says, per ValidationPolicy,
// pass for each rule in force, error for each compile error, skip while
// the operator has not compiled it.
func TestAuditPolicyStates(t *testing.T) {
	ctx := context.Background()
	mk := func(name string, status *v1alpha1.ValidationPolicyStatus) *v1alpha1.ValidationPolicy {
		vp := &v1alpha1.ValidationPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: v1alpha1.ValidationPolicySpec{
				MatchKinds: []v1alpha1.PolicyMatchKind{"Provider"},
				Rules:      []v1alpha1.ValidationPolicyRule{{ID: "r", CEL: "true"}},
			},
		}
		if err := direct.Create(ctx, vp); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = direct.Delete(context.Background(), vp) })
		if status != nil {
			status.ObservedGeneration = vp.Generation
			vp.Status = *status
			if err := direct.Status().Update(ctx, vp); err != nil {
				t.Fatal(err)
			}
		}
		return vp
	}
	mk("audit-vp-ok", &v1alpha1.ValidationPolicyStatus{})
	mk("audit-vp-bad", &v1alpha1.ValidationPolicyStatus{RuleErrors: []v1alpha1.ValidationPolicyRuleError{
		{Rule: "policy/audit-vp-bad/r", Field: "spec.rules[0].cel", Message: "undeclared reference to 'objekt'"}}})
	mk("audit-vp-new", nil)
	okRule := teamRule("none")
	okRule.ID = "policy/audit-vp-ok/r"
	cat := catalogWith(t, okRule)
	a, _ := newAuditor(t, Options{Catalog: func() *rules.Catalog { return cat }})

	want := []struct {
		policy, name string
		result       openreportsv1alpha1.Result
	}{
		{"policy/audit-vp-ok/r", "audit-vp-ok", reports.ResultPass},
		{"policy/audit-vp-bad/r", "audit-vp-bad", reports.ResultError},
		{"policy/audit-vp-new", "audit-vp-new", reports.ResultSkip},
	}
	runUntil(t, a, "the ClusterReport of the three policies", func(_ Result, err error) error {
		if err != nil {
			return err
		}
		cr := &openreportsv1alpha1.ClusterReport{}
		if err := reportsClient.Get(ctx, client.ObjectKey{Name: reports.Name}, cr); err != nil {
			return err
		}
		for _, w := range want {
			r := result(cr.Results, w.policy, w.name)
			if r == nil || r.Result != w.result || r.Subjects[0].Kind != "ValidationPolicy" {
				return fmt.Errorf("%s: got %+v in %+v", w.policy, r, cr.Results)
			}
		}
		if r := result(cr.Results, "policy/audit-vp-bad/r", "audit-vp-bad"); r.Description != "spec.rules[0].cel: undeclared reference to 'objekt'" {
			return fmt.Errorf("compile error message %q", r.Description)
		}
		return nil
	})
}
