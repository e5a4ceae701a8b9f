package admission_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/test/controlplane"
)

// podOverrides is pod creation in the author's hands. The
// API server, calling the operator's webhook, refuses an AgentRuntime whose
// pod breaks the Pod Security Standard in force — the operator's floor
// (--pod-security-level, here the default baseline) or its namespace's
// pod-security.kubernetes.io/enforce label, whichever is stricter — and one
// naming a RuntimeClass the operator does not list (--agent-runtime-classes).

const (
	rulePodSecurity  = "agentruntime/pod-security"
	ruleRuntimeClass = "agentruntime/runtime-class-allowed"

	hostPathRootExtra = `  podOverrides:
    extraVolumes:
    - {name: root, hostPath: {path: /}}
    extraVolumeMounts:
    - {name: root, mountPath: /host}
`
	nfsExtra = `  podOverrides:
    extraVolumes:
    - {name: share, nfs: {server: nfs.example.com, path: /exports}}
`
)

func TestPodSecurityWithAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver, etcd and the operator")
	}
	dir := t.TempDir()
	env, op, err := controlplane.WithOperator(controlplane.Options{}, dir, "--agent-runtime-classes=gvisor")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		op.Stop()
		if t.Failed() {
			if log, err := os.ReadFile(op.LogPath); err == nil {
				t.Logf("operator log:\n%s", log)
			}
		}
		if err := env.Stop(); err != nil {
			t.Logf("stopping the control plane: %v", err)
		}
	})
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	kube, err := client.New(env.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for ns, level := range map[string]string{"open": "", "strict": "restricted"} {
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
		if level != "" {
			n.Labels = map[string]string{"pod-security.kubernetes.io/enforce": level}
		}
		if err := kube.Create(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	object := func(ns, name, extra string) *unstructured.Unstructured {
		t.Helper()
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(agent(t, "", extra)); err != nil {
			t.Fatal(err)
		}
		u.SetNamespace(ns)
		u.SetName(name)
		return u
	}
	create := func(u *unstructured.Unstructured, dryRun bool) error {
		opts := metav1.CreateOptions{}
		if dryRun {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		_, err := dyn.Resource(agentRuntimes).Namespace(u.GetNamespace()).Create(ctx, u, opts)
		return err
	}

	t.Run("hostPath / refused, dry-run too, and not stored", func(t *testing.T) {
		for _, dry := range []bool{true, false} {
			assertRefused(t, create(object("open", "hostroot", hostPathRootExtra), dry), rulePodSecurity, "spec.podOverrides.extraVolumes[0]")
		}
		if _, err := dyn.Resource(agentRuntimes).Namespace("open").Get(ctx, "hostroot", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("the refused agent was stored (get: %v)", err)
		}
	})

	t.Run("an unconfined AppArmor annotation refused", func(t *testing.T) {
		extra := "  podOverrides:\n    annotations: {container.apparmor.security.beta.kubernetes.io/runtime: unconfined}\n"
		assertRefused(t, create(object("open", "apparmor", extra), true), rulePodSecurity,
			"spec.podOverrides.annotations[container.apparmor.security.beta.kubernetes.io/runtime]")
	})

	t.Run("nfs admitted at the baseline floor, refused where the namespace enforces restricted", func(t *testing.T) {
		if err := create(object("open", "share", nfsExtra), false); err != nil {
			t.Fatalf("nfs refused at baseline: %v", err)
		}
		// The operator reads the Namespace's labels from its cache, which
		// sees the new namespace shortly after it is created.
		eventually(t, 20*time.Second, func() error {
			if create(object("strict", "share", nfsExtra), true) == nil {
				return errors.New("admitted: the webhook has not seen the namespace's label yet")
			}
			return nil
		})
		assertRefused(t, create(object("strict", "share", nfsExtra), false), rulePodSecurity, "spec.podOverrides.extraVolumes[0]")
		if err := create(object("strict", "plain", ""), false); err != nil {
			t.Errorf("a plain agent refused at restricted: %v", err)
		}
	})

	t.Run("a RuntimeClass out of --agent-runtime-classes refused, a listed one admitted", func(t *testing.T) {
		assertRefused(t, create(object("open", "runc", "  podOverrides: {runtimeClassName: runc}\n"), false), ruleRuntimeClass,
			"spec.podOverrides.runtimeClassName")
		if err := create(object("open", "gvisor", "  podOverrides: {runtimeClassName: gvisor}\n"), false); err != nil {
			t.Errorf("a listed RuntimeClass refused: %v", err)
		}
	})
}
