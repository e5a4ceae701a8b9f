package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
	"github.com/altairalabs/omnia/test/controlplane"
)

// sameAnswerCase is a manifest every path must give the same answer on: a
// row of the schema tables (api/v1alpha1/testdata/schema/*.yaml, accept and
// reject), of testdata/webhook-rejects.yaml (the webhook-only rules) or of
// testdata/strict-rows.yaml (unknown fields, object metadata, updates).
type sameAnswerCase struct {
	Name    string         `json:"name"`
	Rule    string         `json:"rule"`
	Expect  string         `json:"expect,omitempty"`
	Field   string         `json:"field"`
	Message string         `json:"message,omitempty"`
	Object  map[string]any `json:"object"`
	// Old, on an update row, is created first; Object then replaces it.
	Old map[string]any `json:"old,omitempty"`
	// Defaults belong to accept rows of the schema tables; unused here.
	Defaults map[string]any `json:"defaults,omitempty"`

	source string // table file, for messages
	// webhook: the case breaks a Go rule, so the webhook (not the schema)
	// refuses it.
	webhook bool
	// schemaTable: a row of api/v1alpha1/testdata/schema, whose expect is
	// the schema's verdict alone (the webhook may still refuse an accepted
	// row, e.g. a custom facade without a licence).
	schemaTable bool
}

func loadSameAnswerCases(t *testing.T) []sameAnswerCase {
	t.Helper()
	var out []sameAnswerCase
	schemaTables, err := filepath.Glob("../../api/v1alpha1/testdata/schema/*.yaml")
	if err != nil || len(schemaTables) == 0 {
		t.Fatalf("no schema tables under api/v1alpha1/testdata/schema: %v", err)
	}
	for _, f := range append(schemaTables, "testdata/webhook-rejects.yaml", "testdata/strict-rows.yaml") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cases []sameAnswerCase
		if err := yaml.UnmarshalStrict(data, &cases); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		webhook := strings.HasSuffix(f, "webhook-rejects.yaml")
		for _, c := range cases {
			if webhook && c.Expect == "" {
				c.Expect = "reject"
			}
			switch {
			case c.Expect == "accept" || c.Expect == "reject":
			case webhook && c.Expect == "warn":
			default:
				t.Fatalf("%s: %s: expect %q", f, c.Name, c.Expect)
			}
			c.source, c.webhook = filepath.Base(f), webhook
			c.schemaTable = strings.Contains(f, "testdata/schema/")
			out = append(out, c)
		}
	}
	return out
}

// webhookDenyRule reports whether a rule is one the webhook alone enforces
// and refuses with: a Go rule of the admission stage, deny by default, of a
// kind the webhook validates. A retired-field rule is not: the API server refuses
// (strict) or drops the field before a webhook sees it
// (testdata/strict-rows.yaml has its row).
func webhookDenyRule(r *rules.Rule) bool {
	if r.Source != rules.SourceGo || r.Stage != rules.StageAdmission || r.Severity != rules.SeverityDeny || len(r.PrunedFields) > 0 {
		return false
	}
	for _, k := range []string{"AgentRuntime", "Provider", "ToolRegistry", "ArenaJob", "ArenaProject"} {
		if slices.Contains(r.Kinds, k) {
			return true
		}
	}
	return false
}

// TestWebhookRejectTableCoversDenyRules fails when a webhook-only deny rule
// has no case in testdata/webhook-rejects.yaml, or a case names a rule that
// is not one.
func TestWebhookRejectTableCoversDenyRules(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range loadSameAnswerCases(t) {
		if !c.webhook {
			continue
		}
		r, ok := rules.Default.Lookup(c.Rule)
		switch {
		case !ok || r.Source != rules.SourceGo || r.Stage != rules.StageAdmission:
			t.Errorf("%s: %q is not a Go rule of the admission stage", c.Name, c.Rule)
		case c.Expect == "warn" && r.Severity != rules.SeverityWarn:
			t.Errorf("%s: %q does not warn", c.Name, c.Rule)
		case c.Expect == "reject" && !webhookDenyRule(r):
			t.Errorf("%s: %q is not a deny rule of AgentRuntime, Provider, ToolRegistry, ArenaJob or ArenaProject", c.Name, c.Rule)
		}
		if c.Expect == "reject" {
			covered[c.Rule] = true
		}
	}
	for _, r := range rules.Default.Rules() {
		if webhookDenyRule(r) && !covered[r.ID] {
			t.Errorf("rule %s has no rejected case in testdata/webhook-rejects.yaml", r.ID)
		}
	}
}

// warningCollector records the API server's warnings of one request.
type warningCollector struct {
	mu       sync.Mutex
	warnings []string
}

func (w *warningCollector) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.warnings = append(w.warnings, text)
}

func (w *warningCollector) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.warnings
	w.warnings = nil
	return out
}

// Where the API server stops. It refuses a request at the first stage that
// finds a problem: strict decoding (unknown fields, under strict field
// validation), then the schema (object metadata, OpenAPI, CEL), then the
// validating webhooks. omniactl evaluates every stage at once.
const (
	stageAdmitted = "admitted"
	stageStrict   = "strict decoding"
	stageSchema   = "schema"
	stageWebhook  = "webhook"
)

// offlineAnswer is omniactl's (or rules.Full's, on an update) answer split by
// the stage of the API server that would give it: sorted "<rule ID> <field>"
// entries.
type offlineAnswer struct {
	strict, schema, webhook []string
	// warnings are the admission-stage Go warnings (the webhook's).
	warnings []string
	// reconcile are reconcile-stage denials: cluster facts no admission
	// path has; logged, never compared.
	reconcile []string
}

// first is the answer of the first stage that refuses, as the API server
// gives it.
func (a offlineAnswer) first() (string, []string) {
	switch {
	case len(a.strict) > 0:
		return stageStrict, a.strict
	case len(a.schema) > 0:
		return stageSchema, a.schema
	case len(a.webhook) > 0:
		return stageWebhook, a.webhook
	}
	return stageAdmitted, nil
}

// splitOffline sorts findings into the stages of the API server.
func splitOffline(kind string, fs []rules.Finding) offlineAnswer {
	var a offlineAnswer
	for _, f := range fs {
		entry := f.RuleID + " " + f.Field
		switch {
		case rules.Default.StrictDecoding(kind, f):
			a.strict = append(a.strict, entry)
		case f.Stage == rules.StageReconcile:
			if f.Severity == rules.SeverityDeny {
				a.reconcile = append(a.reconcile, entry)
			}
		case f.Severity == rules.SeverityDeny && f.Source == rules.SourceSchema:
			a.schema = append(a.schema, entry)
		case f.Severity == rules.SeverityDeny:
			a.webhook = append(a.webhook, entry)
		case f.Source == rules.SourceGo:
			a.warnings = append(a.warnings, entry)
		}
	}
	for _, l := range [][]string{a.strict, a.schema, a.webhook, a.warnings, a.reconcile} {
		sort.Strings(l)
	}
	return a
}

// TestSameAnswer is "the same answer everywhere", as strict as
// kubectl apply: every row of the schema tables (accepted and
// rejected), of the webhook-only rules and of testdata/strict-rows.yaml
// (unknown fields, object metadata, updates) goes to the real API server —
// the CRDs installed, strict field validation, the webhooks registered over
// TLS and served by the operator binary, as `make run` does — and through
// omniactl check (rules.FullUpdate with the stored object, on an update, as
// the deploy API judges one). Both must
// give the same answer: both admit (with the same webhook warnings), or both
// refuse with the same rule IDs at the same fields — the API server's at the
// stage where it stops, omniactl's of that stage (it also reports later
// stages, logged here).
func TestSameAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver, etcd and the operator")
	}
	cases := loadSameAnswerCases(t)
	sv, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}

	env, op, err := controlplane.WithOperator(controlplane.Options{}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		op.Stop()
		if err := env.Stop(); err != nil {
			t.Logf("stopping the control plane: %v", err)
		}
	}()
	warnings := &warningCollector{}
	cfg := *env.Config
	cfg.WarningHandlerWithContext = warnings
	c, err := client.New(&cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	namespaces := map[string]bool{"default": true}
	ctx := context.Background()
	dir := t.TempDir()
	withNamespace := func(t *testing.T, obj map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(obj)}
		if namespaced, known := schema.Namespaced(u.GetKind()); u.GetNamespace() == "" && (namespaced || !known) {
			u.SetNamespace("default")
		}
		if ns := u.GetNamespace(); ns != "" && !namespaces[ns] {
			err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
			namespaces[ns] = true
		}
		return u
	}

	for i, tc := range cases {
		t.Run(fmt.Sprintf("%s/%d/%s", tc.source, i, tc.Name), func(t *testing.T) {
			u := withNamespace(t, tc.Object)
			kind := u.GetKind()
			want := tc.Rule + " " + tc.Field

			var (
				serverErr      error
				serverWarnings []string
				offline        offlineAnswer
				exitCode       = -1
			)
			if tc.Old == nil {
				// The API server, as kubectl apply sends it (strict field
				// validation), dry-run.
				warnings.take()
				serverErr = c.Create(ctx, u.DeepCopy(), client.DryRunAll, client.FieldValidation("Strict"))
				serverWarnings = ruleWarnings(warnings.take())
				// omniactl check on the same manifest, in-process.
				exitCode, offline = omniactlCheck(t, ctx, dir, i, u.Object)
			} else {
				var stored map[string]any
				stored, serverWarnings, serverErr = serverUpdate(t, ctx, c, warnings, withNamespace(t, tc.Old), u)
				fs, err := rules.FullUpdate(ctx, sv, rules.Default, u.Object, stored, rules.NewManifestFacts(), rules.Options{})
				if err != nil {
					t.Fatalf("rules.FullUpdate: %v", err)
				}
				offline = splitOffline(kind, fs)
			}

			serverStage, server := serverAnswer(t, kind, serverErr)
			offlineStage, answer := offline.first()
			if serverStage != offlineStage || !slices.Equal(server, answer) {
				t.Errorf("different answers:\n  API server (%s): %v\n  omniactl (%s): %v\n  server error: %v", serverStage, server, offlineStage, answer, serverErr)
			}
			if len(offline.reconcile) > 0 {
				t.Logf("omniactl also reports reconcile-stage denials (cluster facts): %v", offline.reconcile)
			}
			switch offlineStage {
			case stageStrict:
				if later := append(slices.Clone(offline.schema), offline.webhook...); len(later) > 0 {
					t.Logf("the API server stopped at strict decoding; omniactl also reports %v", later)
				}
			case stageSchema:
				if len(offline.webhook) > 0 {
					t.Logf("the API server stopped at the schema; omniactl also reports the webhook's %v", offline.webhook)
				}
			}
			// When the webhook was called (it refused, or everything
			// admitted the object), its warnings are omniactl's.
			if (serverStage == stageWebhook || serverStage == stageAdmitted) && !slices.Equal(serverWarnings, offline.warnings) {
				t.Errorf("different warnings:\n  API server: %v\n  omniactl:   %v", serverWarnings, offline.warnings)
			}
			if exitCode >= 0 {
				wantCode := exitDenied
				if serverStage == stageAdmitted && len(offline.reconcile) == 0 {
					wantCode = exitOK
				}
				if exitCode != wantCode {
					t.Errorf("omniactl check exited %d, want %d", exitCode, wantCode)
				}
			}

			// The row's own expectation.
			switch {
			case tc.Expect == "warn":
				if serverStage != stageAdmitted {
					t.Fatalf("the API server refused the manifest; want it admitted with a warning %s: %v", want, serverErr)
				}
				if !slices.Contains(serverWarnings, want) {
					t.Errorf("the API server's warnings do not name %s: %v", want, serverWarnings)
				}
			case tc.Expect == "accept" && tc.schemaTable:
				// The schema admits it; the webhook may still refuse.
				if serverStage != stageAdmitted && serverStage != stageWebhook {
					t.Errorf("the API server refused an accepted schema row at %s: %v", serverStage, serverErr)
				}
			case tc.Expect == "accept":
				if serverStage != stageAdmitted {
					t.Errorf("the API server refused the manifest at %s: %v", serverStage, serverErr)
				}
			default:
				if !slices.Contains(server, want) {
					t.Errorf("the API server's refusal does not name %s: %v", want, server)
				}
				if (tc.webhook || tc.schemaTable) && tc.webhook != (serverStage == stageWebhook) {
					t.Errorf("refused at %s; a webhook case must pass the schema, a schema case must not reach the webhook", serverStage)
				}
			}
		})
	}
}

// omniactlCheck runs omniactl check -o json on obj, in-process, and returns
// its exit code and findings.
func omniactlCheck(t *testing.T, ctx context.Context, dir string, i int, obj map[string]any) (int, offlineAnswer) {
	t.Helper()
	data, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, fmt.Sprintf("case-%d.yaml", i))
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"check", "-f", file, "-o", "json"}, nil, &stdout, &stderr)
	if code != exitOK && code != exitDenied {
		t.Fatalf("omniactl check exited %d; stderr:\n%s", code, stderr.String())
	}
	var found []jsonFinding
	if err := json.Unmarshal(stdout.Bytes(), &found); err != nil {
		t.Fatalf("omniactl check -o json: %v\n%s", err, stdout.String())
	}
	fs := make([]rules.Finding, 0, len(found))
	for _, f := range found {
		fs = append(fs, rules.Finding{RuleID: f.RuleID, Field: f.Field, Severity: f.Severity, Stage: f.Stage, Source: f.Source})
	}
	kind, _ := obj["kind"].(string)
	return code, splitOffline(kind, fs)
}

// serverUpdate creates old for real (it must be admitted), then sends update
// as a strict, dry-run replacement of the stored object, and returns the
// stored object it replaced, the API server's warnings and its answer. A
// controller writing the object in between is a conflict, retried on the
// fresh object.
func serverUpdate(t *testing.T, ctx context.Context, c client.Client, warnings *warningCollector, old, update *unstructured.Unstructured) (map[string]any, []string, error) {
	t.Helper()
	created := old.DeepCopy()
	if err := c.Create(ctx, created, client.FieldValidation("Strict")); err != nil {
		t.Fatalf("creating the old object: %v", err)
	}
	defer func() {
		if err := c.Delete(ctx, created); err != nil && !apierrors.IsNotFound(err) {
			t.Logf("deleting %s: %v", created.GetName(), err)
		}
	}()
	var (
		stored     map[string]any
		serverWarn []string
	)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := &unstructured.Unstructured{}
		cur.SetGroupVersionKind(created.GroupVersionKind())
		if err := c.Get(ctx, client.ObjectKeyFromObject(created), cur); err != nil {
			t.Fatalf("reading the old object: %v", err)
		}
		stored = cur.Object
		next := update.DeepCopy()
		next.SetResourceVersion(cur.GetResourceVersion())
		warnings.take()
		err := c.Update(ctx, next, client.DryRunAll, client.FieldValidation("Strict"))
		serverWarn = ruleWarnings(warnings.take())
		return err
	})
	return stored, serverWarn, err
}

// unknownFieldPath finds each field a strict decoding error names.
var unknownFieldPath = regexp.MustCompile(`unknown field "([^"]*)"`)

// serverAnswer turns the API server's answer into the stage that gave it and
// sorted "<rule ID> <field>" entries. A strict decoding error (400, unknown
// fields) maps each path to the catalog's rule for it (a retired field's
// rule, else <kind>/schema:unknown-field); an invalid object's causes carry
// a CEL rule's or the webhook's "[<id>] ", or get a plain constraint's
// derived ID from their type and message.
func serverAnswer(t *testing.T, kind string, err error) (string, []string) {
	t.Helper()
	if err == nil {
		return stageAdmitted, nil
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("the API server's refusal is not a status: %v", err)
	}
	if msg := status.Status().Message; apierrors.IsBadRequest(err) && strings.Contains(msg, "strict decoding error") {
		var out []string
		for _, m := range unknownFieldPath.FindAllStringSubmatch(msg, -1) {
			f := rules.Default.UnknownField(kind, m[1], rules.Options{})
			out = append(out, f.RuleID+" "+f.Field)
		}
		sort.Strings(out)
		return stageStrict, out
	}
	server, webhook := serverFindings(t, kind, err)
	// On update the API server checks metadata twice (the common fields,
	// then the strategy) and repeats the causes both find.
	server = slices.Compact(server)
	if webhook {
		return stageWebhook, server
	}
	return stageSchema, server
}

// bracketID finds a rule ID in a cause message: at its start (a webhook
// cause) or after the error type and value the API server puts before a CEL
// rule's message ("Invalid value: …: [id] …", "Forbidden: [id] …").
var bracketID = regexp.MustCompile(`(?:^|: )\[([a-z]+/[a-z0-9]+(?:-[a-z0-9]+)*)\] `)

// serverFindings turns the API server's refusal into sorted "<rule ID>
// <field>" entries: a CEL rule's or the webhook's cause message carries
// "[<id>] "; a plain OpenAPI cause gets its derived ID from its type and
// message. It reports whether the webhook refused.
func serverFindings(t *testing.T, kind string, err error) ([]string, bool) {
	t.Helper()
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		t.Fatalf("the API server's refusal has no field causes: %v", err)
	}
	webhook := strings.Contains(status.Status().Message, "admission webhook")
	var out []string
	for _, cause := range status.Status().Details.Causes {
		id := ""
		if m := bracketID.FindStringSubmatch(cause.Message); m != nil {
			id = m[1]
		} else if cause.Field == "<nil>" || cause.Field == "" {
			id = strings.ToLower(kind) + "/schema:object:incomplete"
		} else {
			id = rules.SchemaRuleID(kind, cause.Field, rules.SchemaConstraint(field.ErrorType(cause.Type), cause.Message))
		}
		out = append(out, id+" "+cause.Field)
	}
	sort.Strings(out)
	return out, webhook
}

var warningRule = regexp.MustCompile(`^\[([a-z]+/[a-z0-9]+(?:-[a-z0-9]+)*)\] ([^:]+): `)

// ruleWarnings parses the webhook's warnings ("[<id>] <field>: <message>")
// into sorted "<rule ID> <field>" entries, ignoring the API server's own.
func ruleWarnings(ws []string) []string {
	var out []string
	for _, w := range ws {
		if m := warningRule.FindStringSubmatch(w); m != nil {
			out = append(out, m[1]+" "+m[2])
		}
	}
	sort.Strings(out)
	return out
}
