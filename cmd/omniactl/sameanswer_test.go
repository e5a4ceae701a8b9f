package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
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
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/test/controlplane"
)

// rejectCase is a manifest every path must refuse: a row of the schema
// tables (api/v1alpha1/testdata/schema/*.yaml, expect: reject) or of
// testdata/webhook-rejects.yaml.
type rejectCase struct {
	Name    string         `json:"name"`
	Rule    string         `json:"rule"`
	Expect  string         `json:"expect,omitempty"`
	Field   string         `json:"field"`
	Message string         `json:"message,omitempty"`
	Object  map[string]any `json:"object"`
	// Defaults belong to accept rows of the schema tables; unused here.
	Defaults map[string]any `json:"defaults,omitempty"`

	source string // table file, for messages
	// webhook: the case breaks a Go rule, so the webhook (not the schema)
	// refuses it.
	webhook bool
}

func loadRejectCases(t *testing.T) []rejectCase {
	t.Helper()
	var out []rejectCase
	schemaTables, err := filepath.Glob("../../api/v1alpha1/testdata/schema/*.yaml")
	if err != nil || len(schemaTables) == 0 {
		t.Fatalf("no schema tables under api/v1alpha1/testdata/schema: %v", err)
	}
	for _, f := range append(schemaTables, "testdata/webhook-rejects.yaml") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cases []rejectCase
		if err := yaml.UnmarshalStrict(data, &cases); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		webhook := strings.HasSuffix(f, "webhook-rejects.yaml")
		for _, c := range cases {
			if webhook && c.Expect == "" {
				c.Expect = "reject"
			}
			if c.Expect != "reject" && !(webhook && c.Expect == "warn") {
				continue
			}
			c.source, c.webhook = filepath.Base(f), webhook
			out = append(out, c)
		}
	}
	return out
}

// webhookDenyRule reports whether a rule is one the webhook alone enforces
// and refuses with: a Go rule of the admission stage, deny by default, of a
// kind issue #3 names.
func webhookDenyRule(r *rules.Rule) bool {
	if r.Source != rules.SourceGo || r.Stage != rules.StageAdmission || r.Severity != rules.SeverityDeny {
		return false
	}
	for _, k := range []string{"AgentRuntime", "Provider", "ToolRegistry", "ArenaJob"} {
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
	for _, c := range loadRejectCases(t) {
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
			t.Errorf("%s: %q is not a deny rule of AgentRuntime, Provider, ToolRegistry or ArenaJob", c.Name, c.Rule)
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

// TestSameAnswer is issue #3's "same answer everywhere": every rejected case
// of the schema tables and of the webhook-only rules goes to the real API
// server — the CRDs installed, the webhooks registered over TLS and served by
// the operator binary, as `make run` does — and through omniactl check. Both
// must name the same rule IDs at the same fields, and omniactl must exit 1.
// For the webhook cases the admission warnings must match omniactl's
// admission-stage warnings too.
//
// A manifest with a schema problem and a Go-rule problem is refused by the
// API server at the schema, before any webhook is called; omniactl evaluates
// every rule at once and reports both. For those (rows of the schema tables
// whose object also breaks a Go rule, e.g. every custom facade without a
// licence) the API server's answer must equal omniactl's schema findings and
// the extra Go findings are logged.
func TestSameAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver, etcd and the operator")
	}
	cases := loadRejectCases(t)

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

	for i, tc := range cases {
		t.Run(fmt.Sprintf("%s/%d/%s", tc.source, i, tc.Name), func(t *testing.T) {
			obj := runtime.DeepCopyJSON(tc.Object)
			u := &unstructured.Unstructured{Object: obj}
			if u.GetNamespace() == "" && !crdKinds()[u.GetKind()].cluster {
				u.SetNamespace("default")
			}
			if ns := u.GetNamespace(); ns != "" && !namespaces[ns] {
				err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
				if err != nil && !apierrors.IsAlreadyExists(err) {
					t.Fatal(err)
				}
				namespaces[ns] = true
			}
			want := tc.Rule + " " + tc.Field

			// The API server, as kubectl apply sends it (strict field
			// validation), dry-run.
			warnings.take()
			serverErr := c.Create(ctx, u.DeepCopy(), client.DryRunAll, client.FieldValidation("Strict"))
			serverWarnings := ruleWarnings(warnings.take())
			if tc.Expect == "warn" {
				if serverErr != nil {
					t.Fatalf("the API server refused the manifest; want it admitted with a warning %s: %v", want, serverErr)
				}
				if !slices.Contains(serverWarnings, want) {
					t.Errorf("the API server's warnings do not name %s: %v", want, serverWarnings)
				}
			} else if serverErr == nil {
				t.Fatalf("the API server accepted the manifest; want %s", want)
			}

			// omniactl check on the same manifest, in-process.
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
			wantCode := exitDenied
			if tc.Expect == "warn" {
				wantCode = exitOK
			}
			if code != wantCode {
				t.Errorf("omniactl check exited %d, want %d; stderr:\n%s", code, wantCode, stderr.String())
			}
			var found []jsonFinding
			if err := json.Unmarshal(stdout.Bytes(), &found); err != nil {
				t.Fatalf("omniactl check -o json: %v\n%s", err, stdout.String())
			}
			// omniactl's deny findings, split by source: the schema's
			// (OpenAPI and CEL, the API server's own validators) and the Go
			// rules' (the webhook's).
			var offlineSchema, offlineGo, offlineWarnings []string
			for _, f := range found {
				switch {
				case f.Severity == rules.SeverityDeny && f.Source == rules.SourceSchema:
					offlineSchema = append(offlineSchema, f.RuleID+" "+f.Field)
				case f.Severity == rules.SeverityDeny:
					offlineGo = append(offlineGo, f.RuleID+" "+f.Field)
				case f.Stage == rules.StageAdmission && f.Source == rules.SourceGo:
					offlineWarnings = append(offlineWarnings, f.RuleID+" "+f.Field)
				}
			}
			offline := append(slices.Clone(offlineSchema), offlineGo...)
			sort.Strings(offline)
			sort.Strings(offlineSchema)
			sort.Strings(offlineGo)
			sort.Strings(offlineWarnings)

			if tc.Expect == "warn" {
				if len(offline) > 0 {
					t.Errorf("omniactl denies %v; the API server admitted the manifest", offline)
				}
				if !slices.Equal(serverWarnings, offlineWarnings) {
					t.Errorf("different warnings:\n  API server: %v\n  omniactl:   %v", serverWarnings, offlineWarnings)
				}
				return
			}
			server, webhookCalled := serverFindings(t, u.GetKind(), serverErr)
			if webhookCalled || len(offlineSchema) == 0 {
				// The schema passed and the webhook refused: every deny
				// finding must be the same on both sides.
				if !slices.Equal(server, offline) {
					t.Errorf("different answers:\n  API server: %v\n  omniactl:   %v\n  server error: %v", server, offline, serverErr)
				}
			} else {
				// The schema refused, so the API server never called the
				// webhook: its answer is omniactl's schema findings exactly.
				// omniactl also reports the Go rules the webhook would
				// refuse once the schema problem is fixed (it evaluates
				// every rule at once).
				if !slices.Equal(server, offlineSchema) {
					t.Errorf("different answers:\n  API server: %v\n  omniactl (schema): %v\n  server error: %v", server, offlineSchema, serverErr)
				}
				if len(offlineGo) > 0 {
					t.Logf("the API server stopped at the schema; omniactl also reports the webhook's %v", offlineGo)
				}
			}
			if !slices.Contains(server, want) {
				t.Errorf("the API server's refusal does not name %s: %v", want, server)
			}
			if tc.webhook != webhookCalled {
				t.Errorf("refused by the webhook: %v, want %v (a webhook case must pass the schema; a schema case must not reach the webhook)", webhookCalled, tc.webhook)
			}
			if webhookCalled && !slices.Equal(serverWarnings, offlineWarnings) {
				t.Errorf("different warnings:\n  API server: %v\n  omniactl:   %v", serverWarnings, offlineWarnings)
			}
		})
	}
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
