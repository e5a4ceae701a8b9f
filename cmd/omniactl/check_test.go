package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/altairalabs/omnia/cmd/omniactl/internal/manifestgen"
)

// omniactl runs the command in-process and returns its exit code, stdout and
// stderr.
func omniactl(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func findingsJSON(t *testing.T, out string) []jsonFinding {
	t.Helper()
	var fs []jsonFinding
	if err := json.Unmarshal([]byte(out), &fs); err != nil {
		t.Fatalf("-o json: %v\n%s", err, out)
	}
	return fs
}

// keyed renders findings as "<document> <rule ID> <field>".
func keyed(fs []jsonFinding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, strings.Join([]string{f.Name, f.RuleID, f.Field}, " "))
	}
	slices.Sort(out)
	return out
}

const (
	agentOK = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: AgentRuntime
metadata: {name: support, namespace: agents}
spec:
  promptPackRef: {name: support}
  providers: [{name: default, providerRef: {name: claude}}]
  facades: [{type: websocket}]
`
	agentReservedEnv = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: AgentRuntime
metadata: {name: reserved, namespace: agents}
spec:
  promptPackRef: {name: support}
  providers: [{name: default, providerRef: {name: claude}}]
  facades: [{type: websocket}]
  runtime:
    extraEnv: [{name: OMNIA_PACK_MODE, value: compile}]
`
	providerClaude = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: Provider
metadata: {name: claude, namespace: agents}
spec:
  type: claude
  model: claude-sonnet-4-20250514
  credential: {secretRef: {name: anthropic-credentials}}
`
	secretCreds = `apiVersion: v1
kind: Secret
metadata: {name: anthropic-credentials, namespace: agents}
stringData:
  ANTHROPIC_API_KEY: sk-ant-do-not-print-me
`
	packSupport = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: PromptPack
metadata: {name: support-1, namespace: agents, labels: {omnia.altairalabs.ai/promptpack: support}}
spec:
  packName: support
  version: 1.0.0
  source: {configMapRef: {name: support-1}}
`
	packSupportConfigMap = `apiVersion: v1
kind: ConfigMap
metadata: {name: support-1, namespace: agents}
data:
  pack.json: '{"id": "support", "version": "1.0.0", "prompts": {}}'
`
	deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec: {replicas: 1}
`
)

func docs(ds ...string) string { return strings.Join(ds, "---\n") }

func TestCheckCleanManifestsWithFacts(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "all.yaml", docs(agentOK, providerClaude, secretCreds, packSupport, packSupportConfigMap, deployment))
	code, out, errOut := omniactl(t, "", "check", "-f", file, "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d, want 0; stderr: %s", code, errOut)
	}
	if fs := findingsJSON(t, out); len(fs) != 0 {
		t.Fatalf("findings on a consistent set of manifests: %v", keyed(fs))
	}
}

func TestCheckReconcileRulesUseTheOtherDocuments(t *testing.T) {
	dir := t.TempDir()
	// The agent alone: its Provider and pack are missing (reconcile-stage
	// warnings); the Provider's Secret holds no usable key.
	file := writeFile(t, dir, "a.yaml", docs(agentOK, providerClaude, strings.Replace(secretCreds, "ANTHROPIC_API_KEY", "OTHER", 1)))
	code, out, _ := omniactl(t, "", "check", "-f", file, "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d, want 0 (warnings only)", code)
	}
	got := keyed(findingsJSON(t, out))
	want := []string{
		"claude provider/secret-key-found spec.credential.secretRef.key",
		"support agentruntime/promptpack-resolves spec.promptPackRef.name",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("findings %v, want %v", got, want)
	}
	if strings.Contains(out, "do-not-print-me") {
		t.Fatal("a Secret value was printed")
	}
}

func TestCheckDenyExitsOne(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "a.yaml", docs(agentReservedEnv, providerClaude, secretCreds, packSupport, packSupportConfigMap))
	code, out, errOut := omniactl(t, "", "check", "-f", file)
	if code != exitDenied {
		t.Fatalf("exit %d, want 1; stderr: %s", code, errOut)
	}
	for _, s := range []string{"FILE", "DOC", "KIND", "NAME", "RULE", "SEVERITY", "FIELD", "MESSAGE",
		"agentruntime/reserved-env-key", "spec.runtime.extraEnv[0].name", "agents/reserved", "deny"} {
		if !strings.Contains(out, s) {
			t.Errorf("table output lacks %q:\n%s", s, out)
		}
	}
	if !strings.Contains(errOut, "1 denied") {
		t.Errorf("summary: %s", errOut)
	}
}

func TestCheckRuleSeverityOverride(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "a.yaml", docs(agentReservedEnv, providerClaude, secretCreds, packSupport, packSupportConfigMap))
	code, out, _ := omniactl(t, "", "check", "-f", file, "-o", "json", "--rule-severity", "agentruntime/reserved-env-key=warn")
	if code != exitOK {
		t.Fatalf("exit %d with the rule lowered to warn, want 0", code)
	}
	if fs := findingsJSON(t, out); len(fs) != 1 || fs[0].Severity != "warn" {
		t.Fatalf("findings %+v", fs)
	}
	// Raising an admission warning to deny makes it refuse.
	file = writeFile(t, dir, "b.yaml", docs(strings.Replace(agentOK, "facades: [{type: websocket}]", "facades: [{type: websocket, drainTimeout: 601s}]", 1),
		providerClaude, secretCreds, packSupport, packSupportConfigMap))
	if code, _, _ := omniactl(t, "", "check", "-f", file); code != exitOK {
		t.Fatalf("exit %d with drain-timeout-range a warning, want 0", code)
	}
	if code, _, _ := omniactl(t, "", "check", "-f", file, "--rule-severity", "agentruntime/drain-timeout-range=deny"); code != exitDenied {
		t.Fatalf("exit %d with drain-timeout-range raised to deny, want 1", code)
	}
	for _, bad := range []string{"agentruntime/nope=deny", "agentruntime/reserved-env-key=error", "agentruntime/reserved-env-key"} {
		if code, _, errOut := omniactl(t, "", "check", "-f", file, "--rule-severity", bad); code != exitInput || errOut == "" {
			t.Errorf("--rule-severity %s: exit %d, want 2 with a message", bad, code)
		}
	}
	// An ID the flag cannot affect is refused, naming it: a reconcile-stage
	// rule never denies, a schema rule is the API server's.
	for _, bad := range []string{"agentruntime/provider-exists=deny", "toolregistry/platform-handler-fields=warn"} {
		id, _, _ := strings.Cut(bad, "=")
		if code, _, errOut := omniactl(t, "", "check", "-f", file, "--rule-severity", bad); code != exitInput || !strings.Contains(errOut, id) {
			t.Errorf("--rule-severity %s: exit %d (%s), want 2 naming %s", bad, code, errOut, id)
		}
	}
}

func TestCheckInputs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "tree/a.yaml", agentReservedEnv)
	writeFile(t, dir, "tree/sub/b.yml", providerClaude)
	writeFile(t, dir, "tree/sub/c.json", `{"apiVersion":"omnia.altairalabs.ai/v1alpha1","kind":"Provider","metadata":{"name":"p","namespace":"agents"},"spec":{"type":"mock"}}`)
	writeFile(t, dir, "tree/README.md", "not a manifest: ::: [")

	code, out, errOut := omniactl(t, "", "check", "-o", "json", filepath.Join(dir, "tree"))
	if code != exitDenied {
		t.Fatalf("directory: exit %d, want 1; stderr: %s", code, errOut)
	}
	files := map[string]bool{}
	for _, f := range findingsJSON(t, out) {
		files[filepath.Base(f.File)] = true
	}
	if !files["a.yaml"] {
		t.Errorf("directory: no finding from a.yaml: %v", files)
	}

	// stdin, with flags after the path.
	code, out, _ = omniactl(t, docs(agentReservedEnv, providerClaude), "check", "-f", "-", "-o", "json")
	if code != exitDenied {
		t.Fatalf("stdin: exit %d, want 1", code)
	}
	fs := findingsJSON(t, out)
	if len(fs) == 0 || fs[0].File != stdinName || fs[0].Document != 1 || fs[0].Line != 1 {
		t.Fatalf("stdin findings: %+v", fs)
	}
}

func TestCheckDocumentNumbersAndLines(t *testing.T) {
	dir := t.TempDir()
	content := "# header comment\n---\n" + providerClaude + "---\n# only a comment\n---\n\n" + agentReservedEnv
	file := writeFile(t, dir, "a.yaml", content)
	_, out, _ := omniactl(t, "", "check", "-f", file, "-o", "json")
	for _, f := range findingsJSON(t, out) {
		if f.RuleID == "agentruntime/reserved-env-key" {
			if f.Document != 2 {
				t.Errorf("document %d, want 2 (empty documents are not counted)", f.Document)
			}
			if want := 1 + strings.Count(content[:strings.Index(content, "apiVersion: omnia.altairalabs.ai/v1alpha1\nkind: AgentRuntime")], "\n"); f.Line != want {
				t.Errorf("line %d, want %d", f.Line, want)
			}
			return
		}
	}
	t.Fatalf("no reserved-env-key finding: %s", out)
}

func TestCheckUnusableInput(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		content string
		want    []string
	}{
		"bad-yaml": {docs(providerClaude, "spec: [unclosed\n"), []string{"bad-yaml.yaml", "document 2", "yaml"}},
		"no-kind": {docs(providerClaude, providerClaude, "apiVersion: v1\nmetadata: {name: x}\n"),
			[]string{"no-kind.yaml", "document 3", "no kind"}},
		"no-apiversion":    {"kind: Provider\nmetadata: {name: x}\n", []string{"no-apiversion.yaml", "document 1", "no apiVersion"}},
		"unknown-kind":     {"apiVersion: omnia.altairalabs.ai/v1alpha1\nkind: Gadget\n", []string{"document 1", `no kind "Gadget"`}},
		"unserved-version": {"apiVersion: omnia.altairalabs.ai/v1beta1\nkind: Provider\n", []string{"document 1", "not served"}},
		"scalar":           {"just a string\n", []string{"document 1", "mapping"}},
	} {
		t.Run(name, func(t *testing.T) {
			file := writeFile(t, dir, name+".yaml", tc.content)
			code, _, errOut := omniactl(t, "", "check", "-f", file)
			if code != exitInput {
				t.Fatalf("exit %d, want 2; stderr: %s", code, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("message lacks %q: %s", w, errOut)
				}
			}
		})
	}
	code, _, errOut := omniactl(t, "", "check", "-f", filepath.Join(dir, "missing.yaml"))
	if code != exitInput || !strings.Contains(errOut, "missing.yaml") {
		t.Errorf("missing file: exit %d, stderr %s", code, errOut)
	}
	if code, _, _ := omniactl(t, "", "check"); code != exitInput {
		t.Errorf("no input: exit %d, want 2", code)
	}
	if code, _, _ := omniactl(t, "", "check", "-f", "x", "-o", "xml"); code != exitInput {
		t.Errorf("unknown format: exit %d, want 2", code)
	}
}

func TestCheckSkipsOtherKinds(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "a.yaml", docs(deployment, "apiVersion: v1\nkind: Service\nmetadata: {name: c}\nspec: {}\n"))
	code, out, errOut := omniactl(t, "", "check", "-f", file)
	if code != exitOK || out != "" {
		t.Fatalf("exit %d, output %q", code, out)
	}
	if !strings.Contains(errOut, "2 skipped") {
		t.Errorf("summary: %s", errOut)
	}
}

func TestCheckNamespaceFlag(t *testing.T) {
	dir := t.TempDir()
	agent := strings.Replace(agentOK, "namespace: agents", "namespace: \"\"", 1)
	agent = strings.Replace(agent, "providerRef: {name: claude}", "providerRef: {name: claude, namespace: agents}", 1)
	file := writeFile(t, dir, "a.yaml", agent)
	// Without a namespace the cross-namespace rule has nothing to compare.
	if code, out, _ := omniactl(t, "", "check", "-f", file, "-o", "json"); code != exitOK {
		t.Fatalf("unnamespaced: exit %d: %s", code, out)
	}
	code, out, _ := omniactl(t, "", "check", "-f", file, "-o", "json", "-n", "other")
	if code != exitDenied {
		t.Fatalf("-n other: exit %d, want 1: %s", code, out)
	}
	fs := findingsJSON(t, out)
	if !slices.Contains(keyed(fs), "support agentruntime/provider-cross-namespace spec.providers[0].providerRef.namespace") || fs[0].Namespace != "other" {
		t.Fatalf("-n other: %v", keyed(fs))
	}
}

func TestCheckSARIF(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "a.yaml", docs(providerClaude, agentReservedEnv, "apiVersion: omnia.altairalabs.ai/v1alpha1\nkind: Provider\nmetadata: {name: bad, namespace: agents}\nspec: {type: nope, model: m}\n"))
	code, out, _ := omniactl(t, "", "check", "-f", file, "-o", "sarif")
	if code != exitDenied {
		t.Fatalf("exit %d", code)
	}
	var log sarifLog
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("version %q, %d runs", log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	if len(run.Tool.Driver.Rules) < 50 {
		t.Errorf("driver has %d rules; want the catalog", len(run.Tool.Driver.Rules))
	}
	byID := map[string]int{}
	for i, r := range run.Tool.Driver.Rules {
		byID[r.ID] = i
	}
	var sawReserved, sawDerived bool
	for _, r := range run.Results {
		if i, ok := byID[r.RuleID]; !ok || i != r.RuleIndex {
			t.Errorf("result %s: ruleIndex %d does not point at its rule", r.RuleID, r.RuleIndex)
		}
		loc := r.Locations[0].PhysicalLocation
		if !strings.HasSuffix(loc.ArtifactLocation.URI, "a.yaml") || loc.Region == nil || loc.Region.StartLine < 1 {
			t.Errorf("result %s: location %+v", r.RuleID, loc)
		}
		switch {
		case r.RuleID == "agentruntime/reserved-env-key":
			sawReserved = r.Level == "error" && r.Props["document"] == float64(2)
		case strings.HasPrefix(r.RuleID, "provider/schema:"):
			sawDerived = r.Level == "error"
		}
	}
	if !sawReserved || !sawDerived {
		t.Errorf("results lack the reserved-env-key error at document 2 or a derived schema ID: %s", out)
	}
}

func TestCheckJUnit(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "a.yaml", docs(providerClaude, agentReservedEnv, agentOK, deployment))
	code, out, _ := omniactl(t, "", "check", "-f", file, "-o", "junit")
	if code != exitDenied {
		t.Fatalf("exit %d", code)
	}
	var suites junitSuites
	if err := xml.Unmarshal([]byte(out), &suites); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if suites.Tests != 3 || suites.Failures != 1 || len(suites.Suites) != 1 {
		t.Fatalf("tests %d failures %d suites %d, want 3, 1, 1:\n%s", suites.Tests, suites.Failures, len(suites.Suites), out)
	}
	cases := suites.Suites[0].Cases
	if len(cases[1].Failures) != 1 || cases[1].Failures[0].Type != "agentruntime/reserved-env-key" || !strings.Contains(cases[1].Name, "document 2") {
		t.Fatalf("testcase 2: %+v", cases[1])
	}
	if len(cases[2].Failures) != 0 || cases[2].SystemOut == nil {
		t.Fatalf("testcase 3 should pass with warnings: %+v", cases[2])
	}
}

func TestCheckParallelMatchesSerial(t *testing.T) {
	path := writeBenchFile(t, t.TempDir(), 400)
	serial, err := check(context.Background(), []string{path}, nil, checkConfig{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	par, err := check(context.Background(), []string{path}, nil, checkConfig{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(serial.jsonFindings())
	b, _ := json.Marshal(par.jsonFindings())
	if !bytes.Equal(a, b) {
		t.Fatal("parallel evaluation differs from serial")
	}
	// Each planted violation breaks one deny rule and nothing else: the
	// generator's own account is the expected count.
	deny, _ := serial.counts()
	want := len(manifestgen.Violations(400))
	if want == 0 || deny != want || len(serial.Results) != 400 {
		t.Fatalf("%d results, %d denials; want 400 and %d", len(serial.Results), deny, want)
	}
}

// TestCheckStrictAsTheAPIServer: omniactl check refuses what kubectl apply's
// strict field validation and the API server's metadata validation refuse —
// a typo such as spec.modle or metadata.lables, a name that is not a DNS
// subdomain — naming the field, where it used to prune the typo silently
// and pass.
func TestCheckStrictAsTheAPIServer(t *testing.T) {
	modle := strings.Replace(providerClaude, "  model: claude-sonnet-4-20250514\n", "  modle: claude-sonnet-4-20250514\n  model: claude-sonnet-4-20250514\n", 1)
	lables := strings.Replace(providerClaude, "metadata: {name: claude, namespace: agents}", "metadata: {name: claude, namespace: agents, lables: {tier: gold}}", 1)
	badName := strings.Replace(providerClaude, "metadata: {name: claude,", "metadata: {name: Claude_Prod,", 1)
	cases := []struct {
		name, manifest string
		code           int
		want           []string // "<name> <rule ID> <field>" of the deny findings
		text           []string // in the table output
	}{
		{name: "clean Provider", manifest: providerClaude, code: exitOK},
		{name: "typo spec.modle", manifest: modle, code: exitDenied,
			want: []string{"claude provider/schema:unknown-field spec.modle"},
			text: []string{"provider/schema:unknown-field", "spec.modle", `unknown field "spec.modle"`}},
		{name: "typo metadata.lables", manifest: lables, code: exitDenied,
			want: []string{"claude provider/schema:unknown-field metadata.lables"},
			text: []string{`unknown field "metadata.lables"`}},
		{name: "name not a DNS subdomain", manifest: badName, code: exitDenied,
			want: []string{"Claude_Prod provider/schema:metadata.name:invalid metadata.name"},
			text: []string{"provider/schema:metadata.name:invalid", "RFC 1123 subdomain"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := writeFile(t, dir, "p.yaml", docs(tc.manifest, secretCreds))
			code, out, errOut := omniactl(t, "", "check", "-f", file, "-o", "json")
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s\n%s", code, tc.code, errOut, out)
			}
			var deny []jsonFinding
			for _, f := range findingsJSON(t, out) {
				if f.Severity == "deny" {
					deny = append(deny, f)
				}
			}
			if got := keyed(deny); !slices.Equal(got, tc.want) {
				t.Errorf("deny findings %v, want %v", got, tc.want)
			}
			_, table, _ := omniactl(t, "", "check", "-f", file)
			for _, s := range tc.text {
				if !strings.Contains(table, s) {
					t.Errorf("table output lacks %q:\n%s", s, table)
				}
			}
		})
	}
}

// A PromptPack's ConfigMap is a fact: its pack.json (data or binaryData) is
// checked against the pack, and a pack without its ConfigMap is reported.
func TestCheckPromptPackConfigMapFacts(t *testing.T) {
	mismatch := strings.Replace(packSupportConfigMap, `"version": "1.0.0"`, `"version": "2.0.0"`, 1)
	binary := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: support-1, namespace: agents}\nbinaryData:\n  pack.json: " +
		base64.StdEncoding.EncodeToString([]byte(`{"id": "billing", "version": "1.0.0"}`)) + "\n"
	cases := []struct {
		name string
		docs string
		want []string
	}{
		{"matching ConfigMap", docs(packSupport, packSupportConfigMap), nil},
		{"no ConfigMap", packSupport, []string{"support-1 promptpack/configmap-found spec.source.configMapRef.name"}},
		{"version mismatch", docs(packSupport, mismatch), []string{"support-1 promptpack/pack-identity-matches spec.version"}},
		{"binaryData with another id", docs(packSupport, binary), []string{"support-1 promptpack/pack-identity-matches spec.packName"}},
		{"bad JSON", docs(packSupport, strings.Replace(packSupportConfigMap, `"prompts": {}}`, `"prompts": {}`, 1)),
			[]string{"support-1 promptpack/pack-json-valid spec.source.configMapRef.name"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := writeFile(t, t.TempDir(), "a.yaml", c.docs)
			code, out, errOut := omniactl(t, "", "check", "-f", file, "-o", "json")
			if code != exitOK {
				t.Fatalf("exit %d, want 0 (warnings only); stderr: %s", code, errOut)
			}
			if got := keyed(findingsJSON(t, out)); !slices.Equal(got, c.want) {
				t.Fatalf("findings %v, want %v", got, c.want)
			}
		})
	}
}
