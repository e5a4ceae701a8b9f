package e2e

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

// agentruntime.md § toolRegistryRef: a registry in another namespace is
// admitted with a warning (the agent pod's Role could not read it) and the
// agent "is held Pending". Held means held: the spec is checked for a while
// after the first match, not once.
var _ = Describe("An AgentRuntime naming a ToolRegistry in another namespace", func() {
	ctx := context.Background()

	It("is held Pending with ToolRegistryCrossNamespace and gets no Deployment", func() {
		ns := framework.CreateNamespace(suite.Client, "xns-tools")
		framework.CreateReadyPromptPack(suite.Client, ns, "hello-pack", "1.0.0")
		framework.CreateMockProvider(suite.Client, ns, "mock")
		ar := &v1alpha1.AgentRuntime{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "held"},
			Spec: v1alpha1.AgentRuntimeSpec{
				PromptPackRef:   &v1alpha1.AgentRuntimePromptPackRef{Name: "hello-pack", Version: "1.0.0"},
				Providers:       []v1alpha1.AgentRuntimeProvider{{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "mock"}}},
				ToolRegistryRef: &v1alpha1.NamespacedObjectReference{Name: "tools", Namespace: "elsewhere"},
				Facades:         []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}},
			},
		}
		Expect(suite.Client.Create(ctx, ar)).To(Succeed())
		state := func() string {
			got := &v1alpha1.AgentRuntime{}
			if err := suite.Client.Get(ctx, client.ObjectKeyFromObject(ar), got); err != nil {
				return err.Error()
			}
			d := "no Deployment"
			if err := suite.Client.Get(ctx, client.ObjectKeyFromObject(ar), &appsv1.Deployment{}); err == nil {
				d = "a Deployment"
			} else if !apierrors.IsNotFound(err) {
				return err.Error()
			}
			return string(got.Status.Phase) + " " + framework.Condition(got.Status.Conditions, v1alpha1.AgentRuntimeConditionToolRegistryReady) + " " + d
		}
		want := "Pending False/" + v1alpha1.AgentRuntimeReasonToolRegistryCrossNamespace + " no Deployment"
		Eventually(state, framework.Timeout, framework.Poll).Should(Equal(want))
		Consistently(state, 5*time.Second, framework.Poll).Should(Equal(want))
	})
})
