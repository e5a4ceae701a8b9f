package v1alpha1_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
	"github.com/altairalabs/omnia/test/controlplane"
)

// schemaCase is one row of a testdata/schema/<kind>.yaml table; the format is
// documented in docs/api-conventions.md.
type schemaCase struct {
	Name     string         `json:"name"`
	Rule     string         `json:"rule"`
	Expect   string         `json:"expect"`
	Field    string         `json:"field,omitempty"`
	Message  string         `json:"message,omitempty"`
	Object   map[string]any `json:"object"`
	Defaults map[string]any `json:"defaults,omitempty"`
}

var (
	k8sClient client.Client
	kinds     []string // kinds under test; empty means all
	nsMu      sync.Mutex
	nsMade    = map[string]bool{}
)

func TestMain(m *testing.M) {
	kinds = controlplane.KindsFromEnv("OMNIA_SCHEMA_KINDS")
	env, err := controlplane.Start(controlplane.Options{Kinds: kinds})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	k8sClient, err = client.New(env.Config, client.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		_ = env.Stop()
		os.Exit(1)
	}
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping control plane:", err)
	}
	os.Exit(code)
}

// wanted reports whether a kind is under test in this run.
func wanted(kind string) bool { return len(kinds) == 0 || slices.Contains(kinds, kind) }

// loadCases reads every schema table.
func loadCases(t *testing.T) map[string][]schemaCase {
	t.Helper()
	files, err := filepath.Glob("testdata/schema/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no schema tables under testdata/schema: %v", err)
	}
	out := map[string][]schemaCase{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cases []schemaCase
		if err := yaml.UnmarshalStrict(data, &cases); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[f] = cases
	}
	return out
}

// ensureNamespace creates a namespace named in a test object once.
func ensureNamespace(t *testing.T, name string) {
	t.Helper()
	if name == "" || name == "default" {
		return
	}
	nsMu.Lock()
	defer nsMu.Unlock()
	if nsMade[name] {
		return
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := k8sClient.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	nsMade[name] = true
}

// dryRunCreate sends obj to the API server as a strict, dry-run create and
// returns the object the server would store.
func dryRunCreate(t *testing.T, raw map[string]any) (*unstructured.Unstructured, error) {
	t.Helper()
	obj := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(raw)}
	if obj.GetNamespace() == "" && obj.GetKind() != "Workspace" {
		obj.SetNamespace("default")
	}
	ensureNamespace(t, obj.GetNamespace())
	err := k8sClient.Create(context.Background(), obj, client.DryRunAll, client.FieldValidation("Strict"))
	return obj, err
}

// TestSchemaCases runs every accept/reject row of the schema tables against
// the real API server.
func TestSchemaCases(t *testing.T) {
	for file, cases := range loadCases(t) {
		for i, c := range cases {
			kind, _ := c.Object["kind"].(string)
			if !wanted(kind) {
				continue
			}
			t.Run(fmt.Sprintf("%s/%d/%s", filepath.Base(file), i, c.Name), func(t *testing.T) {
				if c.Rule == "" {
					t.Fatalf("case has no rule ID")
				}
				stored, err := dryRunCreate(t, c.Object)
				assertOfflineAgrees(t, c, err)
				switch c.Expect {
				case "accept":
					if err != nil {
						t.Fatalf("rule %s: expected the API server to accept, got: %v", c.Rule, err)
					}
					assertDefaults(t, stored, c.Defaults)
				case "reject":
					if err == nil {
						t.Fatalf("rule %s: expected the API server to reject at %s, but it accepted", c.Rule, c.Field)
					}
					assertCause(t, err, c.Field, c.Message)
				default:
					t.Fatalf("expect must be accept or reject, got %q", c.Expect)
				}
			})
		}
	}
}

// assertCause checks that the refusal names field with a message containing msg.
func assertCause(t *testing.T, err error, field, msg string) {
	t.Helper()
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("not an API status error: %v", err)
	}
	details := status.Status().Details
	if details == nil {
		t.Fatalf("refusal has no field causes: %v", err)
	}
	var seen []string
	for _, cause := range details.Causes {
		seen = append(seen, fmt.Sprintf("%s: %s", cause.Field, cause.Message))
		if cause.Field == field && strings.Contains(cause.Message, msg) {
			return
		}
	}
	t.Fatalf("no cause at field %q containing %q; causes:\n  %s", field, msg, strings.Join(seen, "\n  "))
}

// assertDefaults checks each dotted path (with [i] indexes) on the stored object.
func assertDefaults(t *testing.T, obj *unstructured.Unstructured, want map[string]any) {
	t.Helper()
	for path, expected := range want {
		got, ok := lookup(obj.Object, path)
		if !ok {
			t.Errorf("default %s: absent on the stored object", path)
			continue
		}
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(expected)
		if string(gotJSON) != string(wantJSON) {
			t.Errorf("default %s = %s, want %s", path, gotJSON, wantJSON)
		}
	}
}

// lookup walks a path such as spec.facades[0].port through decoded JSON.
func lookup(obj any, path string) (any, bool) {
	cur := obj
	for _, part := range strings.Split(path, ".") {
		name, idx := part, -1
		if open := strings.IndexByte(part, '['); open >= 0 && strings.HasSuffix(part, "]") {
			n, err := strconv.Atoi(part[open+1 : len(part)-1])
			if err != nil {
				return nil, false
			}
			name, idx = part[:open], n
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[name]; !ok {
			return nil, false
		}
		if idx >= 0 {
			list, ok := cur.([]any)
			if !ok || idx >= len(list) {
				return nil, false
			}
			cur = list[idx]
		}
	}
	return cur, true
}

// TestExamples checks that every complete manifest copied from the spec pages
// is accepted by the API server.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("../../config/samples/*/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no examples under config/samples")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if err := yaml.Unmarshal(data, &obj); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		kind, _ := obj["kind"].(string)
		if !wanted(kind) {
			continue
		}
		t.Run(f, func(t *testing.T) {
			if _, err := dryRunCreate(t, obj); err != nil {
				t.Fatalf("spec example refused: %v", err)
			}
		})
	}
}

// TestEveryTableRuleHasBothOutcomes fails when a rule in a table lacks an
// accepted or a rejected case.
func TestEveryTableRuleHasBothOutcomes(t *testing.T) {
	outcomes := caseOutcomes(t)
	for rule, seen := range outcomes {
		if !seen["accept"] || !seen["reject"] {
			t.Errorf("rule %s needs at least one accept and one reject case (has %v)", rule, seen)
		}
	}
}

// TestEveryCELRuleHasIDAndCases fails when a CEL rule in a generated CRD has
// no bracketed rule ID in its message, or its ID has no accepted and no
// rejected case in the schema tables.
func TestEveryCELRuleHasIDAndCases(t *testing.T) {
	crds, err := controlplane.LoadCRDs(nil)
	if err != nil {
		t.Fatal(err)
	}
	outcomes := caseOutcomes(t)
	for _, crd := range crds {
		if !wanted(crd.Spec.Names.Kind) {
			continue
		}
		for _, v := range crd.Spec.Versions {
			for _, rule := range celRules(v.Schema.OpenAPIV3Schema, "") {
				id, ok := ruleID(rule.message)
				if !ok {
					t.Errorf("%s %s: CEL rule %q has no [id] at the start of its message %q", crd.Spec.Names.Kind, rule.path, rule.rule, rule.message)
					continue
				}
				if !outcomes[id]["accept"] || !outcomes[id]["reject"] {
					t.Errorf("%s %s: rule %s needs an accept and a reject case in testdata/schema (has %v)", crd.Spec.Names.Kind, rule.path, id, outcomes[id])
				}
			}
		}
	}
}

type celRule struct{ path, rule, message string }

// celRules walks a schema collecting its x-kubernetes-validations.
func celRules(s *apiextensionsv1.JSONSchemaProps, path string) []celRule {
	if s == nil {
		return nil
	}
	var out []celRule
	for _, v := range s.XValidations {
		out = append(out, celRule{path: path, rule: v.Rule, message: v.Message})
	}
	for name, p := range s.Properties {
		out = append(out, celRules(&p, path+"."+name)...)
	}
	if s.Items != nil && s.Items.Schema != nil {
		out = append(out, celRules(s.Items.Schema, path+"[]")...)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		out = append(out, celRules(s.AdditionalProperties.Schema, path+"{}")...)
	}
	return out
}

// ruleID extracts "kind/name" from a message starting with "[kind/name] ".
func ruleID(message string) (string, bool) {
	if !strings.HasPrefix(message, "[") {
		return "", false
	}
	end := strings.Index(message, "] ")
	if end < 0 {
		return "", false
	}
	id := message[1:end]
	return id, strings.Count(id, "/") == 1 && !strings.ContainsAny(id, " \t")
}

// assertOfflineAgrees is the drift test: the catalog's offline schema
// evaluation (the API server's own validators over the embedded CRDs) must
// give exactly the API server's answer — the same field errors, and for a
// rejected case a finding at the case's field carrying the case's rule ID.
func assertOfflineAgrees(t *testing.T, c schemaCase, serverErr error) {
	t.Helper()
	sv, err := schema.Default()
	if err != nil {
		t.Fatalf("building the offline schema validator: %v", err)
	}
	res, err := rules.ValidateSchema(context.Background(), sv, c.Object, nil)
	if err != nil {
		t.Fatalf("offline evaluation: %v", err)
	}
	offline := map[string]bool{}
	for _, f := range res.Findings {
		offline[f.Field+": "+f.Message] = true
	}
	server := map[string]bool{}
	if serverErr != nil {
		var status apierrors.APIStatus
		if errors.As(serverErr, &status) && status.Status().Details != nil {
			for _, cause := range status.Status().Details.Causes {
				server[cause.Field+": "+cause.Message] = true
			}
		}
	}
	for k := range server {
		if !offline[k] {
			t.Errorf("drift: the API server reports %q, offline evaluation does not (offline: %v)", k, keys(offline))
		}
	}
	for k := range offline {
		if !server[k] {
			t.Errorf("drift: offline evaluation reports %q, the API server does not (server: %v)", k, keys(server))
		}
	}
	if c.Expect == "reject" {
		var ids []string
		for _, f := range res.Findings {
			if f.Field == c.Field {
				ids = append(ids, f.RuleID)
			}
		}
		if !slices.Contains(ids, c.Rule) {
			t.Errorf("offline finding at %s carries rule IDs %v, the table says %s", c.Field, ids, c.Rule)
		}
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestEveryPlainConstraintHasCases is the other half of the drift test: every
// plain OpenAPI constraint in the spec of a generated CRD (enum, pattern,
// ranges, lengths, item counts, required fields, list keys) has a derived rule
// ID with at least one accepted and one rejected case in testdata/schema.
// Status constraints are left out (an object is created without status), and
// so are the constraints inside embedded Kubernetes types (EnvVar,
// VolumeMount, Toleration, ResourceRequirements, Affinity, Volume):
// Kubernetes' own schema, not Omnia rules — the constraints on the Omnia
// fields holding them (e.g. extraEnv maxItems) are kept.
func TestEveryPlainConstraintHasCases(t *testing.T) {
	crds, err := controlplane.LoadCRDs(nil)
	if err != nil {
		t.Fatal(err)
	}
	outcomes := caseOutcomes(t)
	covered := func(id string) bool {
		for _, alias := range sharedTypeAliases(id) {
			if outcomes[alias]["accept"] && outcomes[alias]["reject"] {
				return true
			}
		}
		// A map value's key stands in the path where the schema has "{}".
		if !strings.Contains(id, "{}") {
			return outcomes[id]["accept"] && outcomes[id]["reject"]
		}
		prefix, rest, _ := strings.Cut(id, "{}")
		seen := map[string]bool{}
		for rule, o := range outcomes {
			if r, ok := strings.CutPrefix(rule, prefix); ok {
				if _, tail, ok := strings.Cut(r, "."); ok && "."+tail == rest || strings.HasSuffix(r, rest) {
					for k := range o {
						seen[k] = true
					}
				}
			}
		}
		return seen["accept"] && seen["reject"]
	}
	var missing []string
	for _, crd := range crds {
		if !wanted(crd.Spec.Names.Kind) {
			continue
		}
		spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
		for _, id := range plainConstraintIDs(strings.ToLower(crd.Spec.Names.Kind), &spec, "spec") {
			if insideKubernetesType(id) {
				continue
			}
			// Every list bound has its accepted and rejected case in
			// TestEveryListBoundHolds, which walks the same IDs.
			if strings.HasSuffix(id, ":maxItems") {
				continue
			}
			if !covered(id) {
				missing = append(missing, id)
			}
		}
	}
	slices.Sort(missing)
	for _, id := range missing {
		t.Errorf("schema constraint %s has no accepted and rejected case in testdata/schema", id)
	}
}

// plainConstraintIDs lists the derived IDs of every plain constraint under s.
func plainConstraintIDs(kind string, s *apiextensionsv1.JSONSchemaProps, path string) []string {
	if s == nil {
		return nil
	}
	id := func(constraint string) string { return kind + "/schema:" + path + ":" + constraint }
	var out []string
	if len(s.Enum) > 0 {
		out = append(out, id("enum"))
	}
	if s.Pattern != "" {
		out = append(out, id("pattern"))
	}
	if s.Maximum != nil {
		out = append(out, id("maximum"))
	}
	if s.Minimum != nil {
		out = append(out, id("minimum"))
	}
	if s.MaxLength != nil {
		out = append(out, id("maxLength"))
	}
	if s.MinLength != nil {
		out = append(out, id("minLength"))
	}
	if s.MaxItems != nil {
		out = append(out, id("maxItems"))
	}
	if s.MinItems != nil {
		out = append(out, id("minItems"))
	}
	for _, r := range s.Required {
		out = append(out, kind+"/schema:"+path+"."+r+":required")
	}
	if s.XListType != nil && (*s.XListType == "map" || *s.XListType == "set") {
		out = append(out, kind+"/schema:"+path+"[]:unique")
	}
	for name, p := range s.Properties {
		out = append(out, plainConstraintIDs(kind, &p, path+"."+name)...)
	}
	if s.Items != nil && s.Items.Schema != nil {
		out = append(out, plainConstraintIDs(kind, s.Items.Schema, path+"[]")...)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		out = append(out, plainConstraintIDs(kind, s.AdditionalProperties.Schema, path+".{}")...)
	}
	return out
}

// kubernetesTypeFields are the Omnia fields whose items (or value) are
// core/v1 types.
var kubernetesTypeFields = []string{
	".extraEnv[].", ".extraEnvFrom[].", ".extraVolumeMounts[].", ".tolerations[].",
	".imagePullSecrets[].", ".resources.", ".affinity.", ".volumes[].", ".volumeMounts[].",
}

func insideKubernetesType(id string) bool {
	path := id[strings.Index(id, ":")+1 : strings.LastIndex(id, ":")]
	for _, f := range kubernetesTypeFields {
		// The entry's name is an Omnia rule target (reserved keys), keep it.
		if strings.Contains(path+".", f) && !strings.HasSuffix(path, ".extraEnv[].name") {
			return true
		}
	}
	return false
}

// sharedTypeAliases lists IDs of the same constraint on the same Go type at
// another placement, whose cases prove it: ArenaRun's spec.template is the
// ArenaJob spec, and PodOverrides is one type with six placements.
func sharedTypeAliases(id string) []string {
	var out []string
	if rest, ok := strings.CutPrefix(id, "arenarun/schema:spec.template."); ok {
		out = append(out, "arenajob/schema:spec."+rest)
		id = "arenajob/schema:spec." + rest
	}
	if i := strings.Index(id, ".podOverrides."); i >= 0 {
		tail := id[i:]
		for _, placement := range []string{
			"agentruntime/schema:spec", "agentruntime/schema:spec.evals",
			"arenajob/schema:spec.workers",
		} {
			out = append(out, placement+tail)
		}
	}
	return out
}

// TestEveryFieldIsDescribed: `kubectl explain` prints a description for every
// field of every kind, because each Go field carries a doc comment.
func TestEveryFieldIsDescribed(t *testing.T) {
	crds, err := controlplane.LoadCRDs(nil)
	if err != nil {
		t.Fatal(err)
	}
	var walk func(kind, path string, s *apiextensionsv1.JSONSchemaProps)
	walk = func(kind, path string, s *apiextensionsv1.JSONSchemaProps) {
		for name, p := range s.Properties {
			child := path + "." + name
			if p.Description == "" && path != "" {
				t.Errorf("%s%s has no description (add a doc comment on the Go field)", kind, child)
			}
			walk(kind, child, &p)
		}
		if s.Items != nil && s.Items.Schema != nil {
			walk(kind, path+"[]", s.Items.Schema)
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			walk(kind, path+"{}", s.AdditionalProperties.Schema)
		}
	}
	for _, crd := range crds {
		root := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
		for _, top := range []string{"spec", "status"} {
			if p, ok := root.Properties[top]; ok {
				if p.Description == "" {
					t.Errorf("%s.%s has no description", crd.Spec.Names.Kind, top)
				}
				walk(crd.Spec.Names.Kind, "."+top, &p)
			}
		}
	}
}

// caseOutcomes maps each rule ID of the schema tables to the outcomes
// ("accept", "reject") its cases expect.
func caseOutcomes(t *testing.T) map[string]map[string]bool {
	t.Helper()
	outcomes := map[string]map[string]bool{}
	for _, cases := range loadCases(t) {
		for _, c := range cases {
			if outcomes[c.Rule] == nil {
				outcomes[c.Rule] = map[string]bool{}
			}
			outcomes[c.Rule][c.Expect] = true
		}
	}
	return outcomes
}
