package admission_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/admission"
)

var providers = schema.GroupVersionResource{Group: omniaGroup, Version: "v1alpha1", Resource: "providers"}

const (
	ruleProviderTimeout = "provider/defaults-timeout-duration"
	ruleProviderPricing = "provider/pricing-decimal"
	// ratchetNamespace starts in audit mode and is switched to enforce.
	ratchetNamespace = "ratchet"
	// holdFinalizer keeps a deleted Provider Terminating until the test
	// removes it.
	holdFinalizer = "test.omnia.altairalabs.ai/hold"
)

// testRatchetOnAPIServer is the update ratchet against the real API server,
// the webhooks registered over TLS and served by the operator binary
// (global mode enforce): Providers with a deny finding are created while
// their namespace is in audit mode; once it is switched to enforce, a label
// change and the finalizer removal of a Terminating Provider are admitted, a
// new violation is refused, and fixing the old one is admitted.
func testRatchetOnAPIServer(t *testing.T, restCfg *rest.Config) {
	ctx := context.Background()
	warnings := &warningRecorder{}
	cfg := rest.CopyConfig(restCfg)
	cfg.WarningHandler = warnings
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	kube, err := client.New(restCfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := dyn.Resource(providers).Namespace(ratchetNamespace)

	// provider is a mock Provider whose requestTimeout does not parse: a
	// deny finding (provider/defaults-timeout-duration) the API server's
	// schema lets through and the webhook judges.
	provider := func(name string, finalizers ...string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": omniaGroup + "/v1alpha1",
			"kind":       "Provider",
			"metadata":   map[string]any{"name": name, "namespace": ratchetNamespace},
			"spec": map[string]any{
				"type":     "mock",
				"defaults": map[string]any{"requestTimeout": "thirty seconds"},
			},
		}}
		u.SetFinalizers(finalizers)
		return u
	}
	// update applies mutate to a fresh read, retried on a conflict (the
	// operator's controllers write Providers too).
	update := func(name string, mutate func(*unstructured.Unstructured)) error {
		return retry.RetryOnConflict(retry.DefaultRetry, func() error {
			stored, err := res.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			mutate(stored)
			_, err = res.Update(ctx, stored, metav1.UpdateOptions{})
			return err
		})
	}
	setNamespaceMode := func(mode string) {
		t.Helper()
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			ns := &corev1.Namespace{}
			if err := kube.Get(ctx, client.ObjectKey{Name: ratchetNamespace}, ns); err != nil {
				return err
			}
			if ns.Labels == nil {
				ns.Labels = map[string]string{}
			}
			ns.Labels[admission.NamespaceModeLabel] = mode
			return kube.Update(ctx, ns)
		})
		if err != nil {
			t.Fatalf("labelling namespace %s %s: %v", ratchetNamespace, mode, err)
		}
	}
	// dryRunRefused reports whether the webhook now refuses a new Provider
	// with the finding: the operator's namespace cache has seen the mode.
	dryRunRefused := func() (bool, error) {
		_, err := res.Create(ctx, provider("probe"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil {
			return false, nil
		}
		if apierrors.IsInvalid(err) {
			return true, nil
		}
		return false, err
	}

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ratchetNamespace, Labels: map[string]string{admission.NamespaceModeLabel: "audit"}}}
	if err := kube.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, func() error {
		refused, err := dryRunRefused()
		if err != nil || refused {
			return errors.Join(errors.New("the namespace is not yet in audit mode"), err)
		}
		return nil
	})
	for _, p := range []*unstructured.Unstructured{provider("legacy"), provider("held", holdFinalizer)} {
		if _, err := res.Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s in audit mode: %v", p.GetName(), err)
		}
	}

	setNamespaceMode("enforce")
	eventually(t, 20*time.Second, func() error {
		refused, err := dryRunRefused()
		if err != nil || !refused {
			return errors.Join(errors.New("the namespace is not yet in enforce mode"), err)
		}
		return nil
	})

	t.Run("a label change is admitted", func(t *testing.T) {
		warnings.take()
		if err := update("legacy", func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"team": "support"}) }); err != nil {
			t.Fatalf("label change refused: %v", err)
		}
		assertRatchetedWarning(t, warnings.take(), ruleProviderTimeout, "spec.defaults.requestTimeout")
	})

	t.Run("finalizer removal on a Terminating object is admitted", func(t *testing.T) {
		if err := res.Delete(ctx, "held", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		stored, err := res.Get(ctx, "held", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if stored.GetDeletionTimestamp() == nil {
			t.Fatal("the deleted Provider has no deletionTimestamp")
		}
		err = update("held", func(u *unstructured.Unstructured) {
			u.SetFinalizers(slices.DeleteFunc(u.GetFinalizers(), func(f string) bool { return f == holdFinalizer }))
		})
		if err != nil {
			t.Fatalf("finalizer removal refused; the Provider stays Terminating: %v", err)
		}
		eventually(t, 20*time.Second, func() error {
			_, err := res.Get(ctx, "held", metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return errors.Join(errors.New("the Provider is still stored"), err)
		})
	})

	t.Run("a new violation is refused", func(t *testing.T) {
		warnings.take()
		err := update("legacy", func(u *unstructured.Unstructured) {
			if err := unstructured.SetNestedField(u.Object, "$0.003", "spec", "pricing", "inputCostPer1K"); err != nil {
				t.Fatal(err)
			}
		})
		st := assertRefusedBy(t, err, "vprovider.omnia.altairalabs.ai", ruleProviderPricing, "spec.pricing.inputCostPer1K")
		if st != nil && st.Details != nil && len(st.Details.Causes) != 1 {
			t.Errorf("only the new violation refuses; got causes %+v", st.Details.Causes)
		}
		assertRatchetedWarning(t, warnings.take(), ruleProviderTimeout, "spec.defaults.requestTimeout")
	})

	t.Run("fixing the old violation is admitted", func(t *testing.T) {
		warnings.take()
		err := update("legacy", func(u *unstructured.Unstructured) {
			if err := unstructured.SetNestedField(u.Object, "30s", "spec", "defaults", "requestTimeout"); err != nil {
				t.Fatal(err)
			}
		})
		if err != nil {
			t.Fatalf("the fix was refused: %v", err)
		}
		if w := warnings.take(); len(w) > 0 {
			t.Errorf("unexpected warnings %q", w)
		}
	})
}

// assertRatchetedWarning checks exactly one warning came back: the ratcheted
// finding of rule at field, saying why it was not refused.
func assertRatchetedWarning(t *testing.T, warnings []string, rule, field string) {
	t.Helper()
	// An update retried on a conflict (a controller wrote the object's
	// status in between) is admitted twice: the API server calls the
	// webhook before it detects the conflict, so the same warning comes
	// back once per attempt. Count distinct warnings.
	warnings = slices.Compact(slices.Sorted(slices.Values(warnings)))
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "["+rule+"] "+field+": ") || !strings.HasSuffix(warnings[0], admission.RatchetedSuffix) {
		t.Errorf("warnings %q, want one ratcheted [%s] %s", warnings, rule, field)
	}
}
