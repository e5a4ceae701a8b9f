package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/policies/reports"
	"github.com/altairalabs/omnia/test/controlplane"
)

// The cluster of TestAudit: objects created straight into the API server
// (no webhook is registered, so objects the webhook would refuse get in, as
// in a cluster where it was off or added later), two ValidationPolicies that
// compile and one that does not.
const (
	auditSecretValue = "sk-ant-audit-do-not-print-me"
	auditNamespaces  = `apiVersion: v1
kind: Namespace
metadata: {name: audit-prod, labels: {env: prod}}
---
apiVersion: v1
kind: Namespace
metadata: {name: audit-dev}
`
	auditSecret = `apiVersion: v1
kind: Secret
metadata: {name: anthropic-credentials, namespace: audit-dev}
stringData:
  ANTHROPIC_API_KEY: ` + auditSecretValue + `
`
	// auditLatest breaks the cluster's Rego policy.
	auditLatest = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: Provider
metadata: {name: claude, namespace: audit-dev}
spec:
  type: claude
  model: claude-sonnet-latest
  credential: {secretRef: {name: anthropic-credentials}}
`
	auditPinned = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: Provider
metadata: {name: claude, namespace: audit-dev}
spec:
  type: claude
  model: claude-sonnet-4-20250514
  credential: {secretRef: {name: anthropic-credentials}}
`
	// auditOpenAIProd breaks the cluster's CEL policy: its namespace is
	// labelled env=prod in the cluster.
	auditOpenAIProd = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: Provider
metadata: {name: gpt, namespace: audit-prod}
spec:
  type: openai
  model: gpt-4o
`
	auditClaudeProd = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: Provider
metadata: {name: gpt, namespace: audit-prod}
spec:
  type: claude
  model: claude-sonnet-4-20250514
`
	// auditBrokenPolicy does not compile: the audit reports it and goes on.
	auditBrokenPolicy = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: ValidationPolicy
metadata: {name: broken}
spec:
  matchKinds: [Provider]
  rules:
  - id: typo
    cel: "object.spec.modle == 'x'"
`
)

// auditAgent breaks a built-in webhook rule (a reserved env key) when
// reserved is set.
func auditAgent(reserved bool) string {
	env := "LOG_LEVEL"
	if reserved {
		env = "OMNIA_PACK_MODE"
	}
	return `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: AgentRuntime
metadata: {name: support, namespace: audit-dev}
spec:
  promptPackRef: {name: support}
  providers: [{name: default, providerRef: {name: claude}}]
  facades: [{type: websocket}]
  runtime:
    extraEnv: [{name: ` + env + `, value: compile}]
`
}

// applyYAML creates or replaces every document of manifests.
func applyYAML(t *testing.T, ctx context.Context, c client.Client, manifests string) {
	t.Helper()
	for _, doc := range strings.Split(manifests, "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		cur := &unstructured.Unstructured{}
		cur.SetGroupVersionKind(u.GroupVersionKind())
		err := c.Get(ctx, client.ObjectKeyFromObject(u), cur)
		switch {
		case err == nil:
			u.SetResourceVersion(cur.GetResourceVersion())
			err = c.Update(ctx, u)
		case client.IgnoreNotFound(err) == nil:
			err = c.Create(ctx, u)
		}
		if err != nil {
			t.Fatalf("applying %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

// auditRun runs omniactl audit in-process and fails the test on a secret
// value in any output.
func auditRun(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(ctx, append([]string{"audit"}, args...), nil, &stdout, &stderr)
	for name, out := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
		if strings.Contains(out, auditSecretValue) {
			t.Fatalf("omniactl audit %v printed the Secret's value on %s", args, name)
		}
	}
	return code, stdout.String(), stderr.String()
}

// auditKeys renders findings as "<ns>/<name> <rule> <field> <severity>".
func auditKeys(fs []jsonFinding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.Namespace+"/"+f.Name+" "+f.RuleID+" "+f.Field+" "+string(f.Severity))
	}
	slices.Sort(out)
	return out
}

// TestAudit is omniactl audit against the real local cluster: objects that
// got in without the webhook are reported with the rule IDs and fields
// check gives, the cluster's policies are applied (their namespaceSelector
// against the cluster's Namespace labels), a policy that does not compile
// is reported and not fatal, --report writes OpenReports only when they
// change, and no Secret value is ever printed.
func TestAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver and etcd")
	}
	env, err := controlplane.Start(controlplane.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := env.Stop(); err != nil {
			t.Logf("stopping the control plane: %v", err)
		}
	}()
	if err := controlplane.InstallOpenReportsCRDs(env.Config); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	kubeconfig, err := controlplane.AdminKubeconfig(env, "omniactl-audit")
	if err != nil {
		t.Fatal(err)
	}
	kubeconfigPath := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfigPath, kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	kc, err := clientcmd.Load(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	wantFile := "cluster:" + kc.CurrentContext

	scheme := runtime.NewScheme()
	if err := openreportsv1alpha1.Install(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(env.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	applyYAML(t, ctx, c, auditNamespaces)
	applyYAML(t, ctx, c, auditSecret)
	applyYAML(t, ctx, c, celPolicy)
	applyYAML(t, ctx, c, regoPolicy)
	applyYAML(t, ctx, c, auditBrokenPolicy)
	applyYAML(t, ctx, c, auditLatest)
	applyYAML(t, ctx, c, auditOpenAIProd)
	applyYAML(t, ctx, c, auditAgent(true))

	base := []string{"--kubeconfig", kubeconfigPath}
	wantDenied := []string{
		"audit-dev/claude policy/models/model-pinned spec.model deny",
		"audit-dev/support agentruntime/reserved-env-key spec.runtime.extraEnv[0].name deny",
		"audit-prod/gpt policy/prod-providers/no-openai spec.type deny",
	}

	t.Run("json lists the findings and exits 1", func(t *testing.T) {
		code, out, errOut := auditRun(t, ctx, append(base, "-A", "-o", "json")...)
		if code != exitDenied {
			t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitDenied, errOut)
		}
		fs := findingsJSON(t, out)
		var denied []string
		for _, k := range auditKeys(fs) {
			if strings.HasSuffix(k, " deny") {
				denied = append(denied, k)
			}
		}
		if !slices.Equal(denied, wantDenied) {
			t.Errorf("deny findings:\n  got  %v\n  want %v\nall: %v", denied, wantDenied, auditKeys(fs))
		}
		for _, f := range fs {
			if f.File != wantFile {
				t.Errorf("finding names file %q, want %q", f.File, wantFile)
			}
			// The Secret is read: its key is found, so the credential
			// rules have nothing to say.
			if strings.HasPrefix(f.RuleID, "provider/secret") {
				t.Errorf("credential finding with the Secret in the cluster: %+v", f)
			}
		}
		if !strings.Contains(errOut, "ValidationPolicy broken does not compile") || !strings.Contains(errOut, "[policy/broken/typo] spec.rules[0].cel") {
			t.Errorf("stderr does not report the broken policy:\n%s", errOut)
		}
	})

	t.Run("every output format, no secret value", func(t *testing.T) {
		for _, format := range []string{formatTable, formatSARIF, formatJUnit} {
			code, out, errOut := auditRun(t, ctx, append(base, "-A", "-o", format)...)
			if code != exitDenied || !strings.Contains(out, "policy/models/model-pinned") {
				t.Errorf("-o %s: exit %d; stdout:\n%s\nstderr:\n%s", format, code, out, errOut)
			}
		}
	})

	t.Run("one namespace", func(t *testing.T) {
		code, out, errOut := auditRun(t, ctx, append(base, "-n", "audit-prod", "-o", "json")...)
		if code != exitDenied {
			t.Fatalf("exit %d; stderr:\n%s", code, errOut)
		}
		for _, f := range findingsJSON(t, out) {
			if f.Namespace != "audit-prod" {
				t.Errorf("-n audit-prod reported %s/%s", f.Namespace, f.Name)
			}
		}
	})

	t.Run("a --policy file replaces the cluster's policy of its name", func(t *testing.T) {
		// The broken cluster policy, fixed in a file.
		fixed := writeFile(t, dir, "fixed.yaml", strings.Replace(auditBrokenPolicy, "modle == 'x'", "model != 'gpt-3.5-turbo'", 1))
		code, _, errOut := auditRun(t, ctx, append(base, "-A", "-o", "json", "--policy", fixed)...)
		if code != exitDenied || strings.Contains(errOut, "does not compile") || !strings.Contains(errOut, "from --policy replaces the cluster's") {
			t.Errorf("exit %d; stderr:\n%s", code, errOut)
		}
	})

	t.Run("severity override of a cluster policy rule", func(t *testing.T) {
		code, out, errOut := auditRun(t, ctx, append(base, "-n", "audit-prod", "-o", "json", "--rule-severity", "policy/prod-providers/no-openai=warn")...)
		if code != exitOK {
			t.Fatalf("exit %d, want 0; stderr:\n%s", code, errOut)
		}
		if got := auditKeys(findingsJSON(t, out)); !slices.Contains(got, "audit-prod/gpt policy/prod-providers/no-openai spec.type warn") {
			t.Errorf("findings %v", got)
		}
	})

	report := &openreportsv1alpha1.Report{}
	t.Run("--report writes the findings as OpenReports", func(t *testing.T) {
		code, _, errOut := auditRun(t, ctx, append(base, "-A", "-o", "json", "--report")...)
		if code != exitDenied {
			t.Fatalf("exit %d; stderr:\n%s", code, errOut)
		}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "audit-dev", Name: reports.Name}, report); err != nil {
			t.Fatalf("the audit-dev report: %v", err)
		}
		var fail *openreportsv1alpha1.ReportResult
		for i, r := range report.Results {
			if r.Policy == "policy/models/model-pinned" && len(r.Subjects) == 1 && r.Subjects[0].Name == "claude" {
				fail = &report.Results[i]
			}
			if strings.Contains(r.Description, auditSecretValue) {
				t.Errorf("a report result holds the Secret's value")
			}
		}
		if fail == nil || fail.Result != reports.ResultFail || fail.Properties[reports.PropertyField] != "spec.model" || fail.Source != reports.Source {
			t.Fatalf("no fail result for policy/models/model-pinned at spec.model in %+v", report.Results)
		}
		cluster := &openreportsv1alpha1.ClusterReport{}
		if err := c.Get(ctx, client.ObjectKey{Name: reports.Name}, cluster); err != nil {
			t.Fatalf("the cluster report: %v", err)
		}
		if !slices.ContainsFunc(cluster.Results, func(r openreportsv1alpha1.ReportResult) bool {
			return r.Policy == "policy/broken/typo" && r.Result == reports.ResultError
		}) {
			t.Errorf("the cluster report has no error result for the broken policy: %+v", cluster.Results)
		}
	})

	t.Run("--report again on an unchanged cluster writes nothing", func(t *testing.T) {
		code, _, errOut := auditRun(t, ctx, append(base, "-A", "-o", "json", "--report")...)
		if code != exitDenied || !strings.Contains(errOut, "reports: 0 created, 0 updated, 0 deleted") {
			t.Fatalf("exit %d; stderr:\n%s", code, errOut)
		}
		again := &openreportsv1alpha1.Report{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "audit-dev", Name: reports.Name}, again); err != nil {
			t.Fatal(err)
		}
		if again.ResourceVersion != report.ResourceVersion {
			t.Errorf("the unchanged report was rewritten: resourceVersion %s → %s", report.ResourceVersion, again.ResourceVersion)
		}
	})

	t.Run("fixed: exit 0 and the report passes", func(t *testing.T) {
		applyYAML(t, ctx, c, auditPinned)
		applyYAML(t, ctx, c, auditClaudeProd)
		applyYAML(t, ctx, c, auditAgent(false))
		code, out, errOut := auditRun(t, ctx, append(base, "-A", "-o", "json", "--report")...)
		if code != exitOK {
			t.Fatalf("exit %d, want 0; stderr:\n%s\nfindings: %v", code, errOut, auditKeys(findingsJSON(t, out)))
		}
		fixed := &openreportsv1alpha1.Report{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "audit-dev", Name: reports.Name}, fixed); err != nil {
			t.Fatal(err)
		}
		for _, r := range fixed.Results {
			if r.Result == reports.ResultFail {
				t.Errorf("fail result after the fix: %+v", r)
			}
		}
		if !slices.ContainsFunc(fixed.Results, func(r openreportsv1alpha1.ReportResult) bool {
			return r.Policy == "policy/models/model-pinned" && r.Result == reports.ResultPass
		}) {
			t.Errorf("no pass result for policy/models/model-pinned: %+v", fixed.Results)
		}
	})

	t.Run("a namespace without audited objects loses its report", func(t *testing.T) {
		gpt := &unstructured.Unstructured{}
		gpt.SetAPIVersion("omnia.altairalabs.ai/v1alpha1")
		gpt.SetKind("Provider")
		gpt.SetNamespace("audit-prod")
		gpt.SetName("gpt")
		if err := c.Delete(ctx, gpt); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := auditRun(t, ctx, append(base, "-A", "-o", "json", "--report")...)
		if code != exitOK || !strings.Contains(errOut, "1 deleted") {
			t.Fatalf("exit %d; stderr:\n%s", code, errOut)
		}
		err := c.Get(ctx, client.ObjectKey{Namespace: "audit-prod", Name: reports.Name}, &openreportsv1alpha1.Report{})
		if client.IgnoreNotFound(err) != nil || err == nil {
			t.Errorf("the audit-prod report is still there (%v)", err)
		}
	})

	t.Run("cluster errors exit 2", func(t *testing.T) {
		code, _, errOut := auditRun(t, ctx, "--kubeconfig", filepath.Join(dir, "missing"), "-A")
		if code != exitInput || !strings.Contains(errOut, "kubeconfig") {
			t.Errorf("missing kubeconfig: exit %d; stderr:\n%s", code, errOut)
		}
		code, _, errOut = auditRun(t, ctx, append(base, "-n", "no-such-namespace")...)
		if code != exitInput || !strings.Contains(errOut, `namespace "no-such-namespace" does not exist`) {
			t.Errorf("missing namespace: exit %d; stderr:\n%s", code, errOut)
		}
		code, _, errOut = auditRun(t, ctx, append(base, "-A", "--max-objects", "2")...)
		if code != exitInput || !strings.Contains(errOut, "more than 2") {
			t.Errorf("over the cap: exit %d; stderr:\n%s", code, errOut)
		}
	})
}
