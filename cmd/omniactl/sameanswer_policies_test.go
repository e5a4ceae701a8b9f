package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/policies/reports"
	"github.com/altairalabs/omnia/test/controlplane"
)

// The policies the same-answer test applies, from one file: the file
// omniactl check --policy reads is the file applied to the cluster.
const sameAnswerPolicies = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: ValidationPolicy
metadata:
  name: sa-max-tokens
spec:
  matchKinds: [Provider]
  namespaceSelector:
    matchLabels: {omnia.example.com/policy-test: same-answer}
  validationActions: [Deny]
  rules:
  - id: max-tokens
    cel: "!has(object.spec.defaults) || !has(object.spec.defaults.maxTokens) || object.spec.defaults.maxTokens <= 4096"
    fieldPath: spec.defaults.maxTokens
    message: defaults.maxTokens is above the platform's 4096
---
apiVersion: omnia.altairalabs.ai/v1alpha1
kind: ValidationPolicy
metadata:
  name: sa-tls-verify
spec:
  matchKinds: [ToolRegistry]
  namespaceSelector:
    matchLabels: {omnia.example.com/policy-test: same-answer}
  validationActions: [Deny]
  rules:
  - id: no-insecure-skip-verify
    rego: |
      package omnia.tlsverify

      violation contains {"msg": msg, "field": field} if {
        some i, h in input.object.spec.handlers
        h.grpcConfig.tlsInsecureSkipVerify == true
        field := sprintf("spec.handlers[%d].grpcConfig.tlsInsecureSkipVerify", [i])
        msg := sprintf("handler %s skips TLS verification", [h.name])
      }
`

// The objects each policy refuses, in a namespace the policies select. The
// Namespace document is given to omniactl check too, as the namespaceObject
// of the objects in it.
const sameAnswerObjects = `apiVersion: v1
kind: Namespace
metadata:
  name: sa-policies
  labels: {omnia.example.com/policy-test: same-answer}
---
apiVersion: omnia.altairalabs.ai/v1alpha1
kind: Provider
metadata: {name: big, namespace: sa-policies}
spec:
  type: claude
  model: claude-sonnet-4-20250514
  platform: {type: bedrock, region: us-east-1}
  auth: {type: workloadIdentity}
  defaults: {maxTokens: 8192}
---
apiVersion: omnia.altairalabs.ai/v1alpha1
kind: ToolRegistry
metadata: {name: tools, namespace: sa-policies}
spec:
  handlers:
  - name: users
    type: grpc
    grpcConfig:
      endpoint: users.internal.svc.cluster.local:50051
      tlsCAPath: /etc/tls/ca.pem
    tool: {name: get_user, description: Retrieve a user, inputSchema: {type: object}}
  - name: legacy
    type: grpc
    grpcConfig:
      endpoint: legacy.internal.svc.cluster.local:50051
      tlsInsecureSkipVerify: true
    tool: {name: legacy_lookup, description: Look up a record, inputSchema: {type: object}}
`

// policyAnswers maps "<kind>/<name>" to its policy findings as sorted
// "<rule ID> <field>" strings.
type policyAnswers map[string][]string

func (a policyAnswers) add(kind, name, rule, field string) {
	if !strings.HasPrefix(rule, "policy/") {
		return
	}
	key := kind + "/" + name
	a[key] = append(a[key], rule+" "+field)
	slices.Sort(a[key])
}

// TestSameAnswerPolicies holds the policy surfaces to one answer: the same
// object gets the same policy rule IDs and fields from the webhook (the API
// server's refusal), omniactl check --policy on the same files, omniactl
// audit of the live cluster, and the operator's background audit report.
func TestSameAnswerPolicies(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver, etcd and the operator")
	}
	dir := t.TempDir()
	env, op, err := controlplane.WithOperator(controlplane.Options{}, dir, "--audit-interval", "1s")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		op.Stop()
		controlplane.RemoveWebhooks(env)
		if err := env.Stop(); err != nil {
			t.Logf("stopping the control plane: %v", err)
		}
	}()
	if err := controlplane.InstallOpenReportsCRDs(env.Config); err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, v1alpha1.AddToScheme, openreportsv1alpha1.Install} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(env.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	policyFile := filepath.Join(dir, "policies.yaml")
	objectsFile := filepath.Join(dir, "objects.yaml")
	for path, content := range map[string]string{policyFile: sameAnswerPolicies, objectsFile: sameAnswerObjects} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	policyObjs := yamlObjects(t, sameAnswerPolicies)
	objects := yamlObjects(t, sameAnswerObjects)
	for _, p := range policyObjs {
		if err := c.Create(ctx, p); err != nil {
			t.Fatalf("creating ValidationPolicy %s: %v", p.GetName(), err)
		}
	}
	for _, p := range policyObjs {
		waitPolicyInForce(t, ctx, c, p.GetName())
	}
	if err := c.Create(ctx, objects[0]); err != nil { // the Namespace
		t.Fatal(err)
	}

	// 1. The webhook: each object is refused (dry run) with its causes.
	// Ready says the policy compiled; the webhook's store loads it on its
	// own watch, so the first refusal is waited for (bounded), not assumed.
	webhook := policyAnswers{}
	for _, obj := range objects[1:] {
		var status apierrors.APIStatus
		var err error
		_ = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			err = c.Create(ctx, obj.DeepCopy(), client.DryRunAll)
			var ok bool
			status, ok = err.(apierrors.APIStatus)
			return ok && status.Status().Details != nil, nil
		})
		if status == nil || status.Status().Details == nil {
			t.Fatalf("%s %s: want a refusal with causes, got %v", obj.GetKind(), obj.GetName(), err)
		}
		for _, cause := range status.Status().Details.Causes {
			rule, _, _ := strings.Cut(strings.TrimPrefix(cause.Message, "["), "]")
			webhook.add(obj.GetKind(), obj.GetName(), rule, cause.Field)
		}
	}
	if len(webhook) != 2 {
		t.Fatalf("the webhook refused %v, want both objects refused by a policy rule", webhook)
	}

	// 2. omniactl check --policy on the same files.
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"check", "--policy", policyFile, "-f", objectsFile, "-o", "json"}, nil, &stdout, &stderr)
	if code != exitDenied {
		t.Fatalf("omniactl check --policy exited %d, want %d; stderr:\n%s", code, exitDenied, stderr.String())
	}
	offline := policyAnswers{}
	for _, f := range findingsJSON(t, stdout.String()) {
		offline.add(f.Kind, f.Name, f.RuleID, f.Field)
	}

	// Let the objects in: the same policies, audit only.
	for _, p := range policyObjs {
		var stored v1alpha1.ValidationPolicy
		if err := c.Get(ctx, client.ObjectKey{Name: p.GetName()}, &stored); err != nil {
			t.Fatal(err)
		}
		stored.Spec.ValidationActions = []v1alpha1.ValidationAction{v1alpha1.ValidationActionAudit}
		if err := c.Update(ctx, &stored); err != nil {
			t.Fatal(err)
		}
		waitPolicyInForce(t, ctx, c, p.GetName())
	}
	for _, obj := range objects[1:] {
		if err := c.Create(ctx, obj.DeepCopy()); err != nil {
			t.Fatalf("creating %s %s under an audit-only policy: %v", obj.GetKind(), obj.GetName(), err)
		}
	}

	// 3. omniactl audit of the live cluster.
	kubeconfig, err := controlplane.AdminKubeconfig(env, "omniactl-same-answer")
	if err != nil {
		t.Fatal(err)
	}
	kubeconfigPath := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfigPath, kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	code = run(ctx, []string{"audit", "--kubeconfig", kubeconfigPath, "-n", "sa-policies", "-o", "json"}, nil, &stdout, &stderr)
	if code != exitOK && code != exitDenied {
		t.Fatalf("omniactl audit exited %d; stderr:\n%s", code, stderr.String())
	}
	live := policyAnswers{}
	for _, f := range findingsJSON(t, stdout.String()) {
		live.add(f.Kind, f.Name, f.RuleID, f.Field)
	}

	// 4. The operator's background audit report of the namespace.
	var background policyAnswers
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var rep openreportsv1alpha1.Report
		if err := c.Get(ctx, client.ObjectKey{Namespace: "sa-policies", Name: "omnia-audit"}, &rep); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		background = policyAnswers{}
		for _, r := range rep.Results {
			if r.Result != "fail" && r.Result != "warn" {
				continue
			}
			for _, s := range r.Subjects {
				background.add(s.Kind, s.Name, r.Policy, r.Properties[reports.PropertyField])
			}
		}
		return len(background) == len(webhook), nil
	})
	if err != nil {
		t.Fatalf("the background audit's report never held both objects' policy findings (last seen %v): %v", background, err)
	}

	for name, got := range map[string]policyAnswers{"omniactl check --policy": offline, "omniactl audit": live, "background report": background} {
		for key, want := range webhook {
			if !slices.Equal(got[key], want) {
				t.Errorf("%s on %s: %v; the webhook said %v", name, key, got[key], want)
			}
		}
		if len(got) != len(webhook) {
			t.Errorf("%s judged %v; the webhook %v", name, got, webhook)
		}
	}
	// The Rego rule names the one handler at fault.
	if want := []string{"policy/sa-tls-verify/no-insecure-skip-verify spec.handlers[1].grpcConfig.tlsInsecureSkipVerify"}; !slices.Equal(webhook["ToolRegistry/tools"], want) {
		t.Errorf("the webhook's answer on the ToolRegistry: %v, want %v", webhook["ToolRegistry/tools"], want)
	}
}

// yamlObjects decodes a multi-document YAML string into objects.
func yamlObjects(t *testing.T, s string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(s, "\n---\n") {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		out = append(out, &unstructured.Unstructured{Object: obj})
	}
	return out
}

// waitPolicyInForce waits until the operator has compiled the policy's
// current generation (status.observedGeneration, Ready=True): the store is
// updated before the status, so the next admission sees the policy.
func waitPolicyInForce(t *testing.T, ctx context.Context, c client.Client, name string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		var p v1alpha1.ValidationPolicy
		if err := c.Get(ctx, client.ObjectKey{Name: name}, &p); err != nil {
			return false, err
		}
		ready := meta.FindStatusCondition(p.Status.Conditions, "Ready")
		return p.Status.ObservedGeneration == p.Generation && ready != nil && ready.Status == metav1.ConditionTrue, nil
	})
	if err != nil {
		t.Fatalf("ValidationPolicy %s never in force: %v", name, err)
	}
}
