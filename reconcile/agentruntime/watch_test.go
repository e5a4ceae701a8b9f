package agentruntime

import (
	"context"
	"testing"
	"time"

	"github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// TestProviderCreationReconcilesAgent: with the controller running in a
// manager, an agent naming a missing Provider is Failed (ProviderNotFound);
// creating the Provider re-reconciles it through the Provider watch and its
// field index (ProviderReady no longer ProviderNotFound: ProviderNotReady
// until the Provider controller reports it Ready, phase Pending).
func TestProviderCreationReconcilesAgent(t *testing.T) {
	startManager(t, Options{})

	ar := agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts"}
		a.Spec.Providers = []v1alpha1.AgentRuntimeProvider{{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "llm"}}}
	})
	ar = createAgent(t, ar, "ar-ctrl-watch")
	key := client.ObjectKeyFromObject(ar)
	pack := &v1alpha1.PromptPack{ObjectMeta: metav1.ObjectMeta{Name: "prompts-1", Namespace: key.Namespace, Labels: map[string]string{rules.PromptPackLabel: "prompts"}}}
	pack.Spec.PackName, pack.Spec.Version = "prompts", "1.0.0"
	pack.Spec.Source.ConfigMapRef = &v1alpha1.LocalObjectReference{Name: "prompts"}
	if err := k8s.Create(context.Background(), pack); err != nil {
		t.Fatal(err)
	}
	g := gomega.NewWithT(t)
	providerReason := func() string {
		got := &v1alpha1.AgentRuntime{}
		if err := k8s.Get(context.Background(), key, got); err != nil {
			return err.Error()
		}
		c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.AgentRuntimeConditionProviderReady)
		if c == nil {
			return "absent"
		}
		return string(got.Status.Phase) + " " + c.Reason
	}
	g.Eventually(providerReason, 30*time.Second, 100*time.Millisecond).Should(gomega.Equal("Failed " + v1alpha1.AgentRuntimeReasonProviderNotFound))

	p := provider("llm", "m")
	p.Namespace = key.Namespace
	if err := k8s.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	g.Eventually(providerReason, 30*time.Second, 100*time.Millisecond).Should(gomega.Equal("Pending " + v1alpha1.AgentRuntimeReasonProviderNotReady))
}
