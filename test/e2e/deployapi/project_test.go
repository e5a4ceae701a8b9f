package deployapi

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/deploy/translate"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

// projectIntent deploys the Arena project my-project to a dev agent: the
// shape deploy-intent.md requires (one agent, an idleTimeout, one websocket
// facade off the data plane, no names: the server derives them).
func projectIntent(idle string) intent.DeployIntent {
	return intent.DeployIntent{
		APIVersion: intent.APIVersion,
		Pack:       intent.Pack{Project: &intent.Project{ID: "my-project"}},
		Agents: []intent.Agent{{
			Providers:   []intent.AgentProvider{{Name: "default", Ref: "mock"}},
			Facades:     []intent.Facade{{Type: "websocket", DataPlane: ptr.To(false)}},
			IdleTimeout: idle,
		}},
	}
}

var _ = Describe("The deploy API's dev project path", Ordered, func() {
	ctx := context.Background()
	var ns, agentName string

	BeforeAll(func() {
		ns = freshNamespace("dev")
		framework.CreateMockProvider(suite.Client, ns, "mock")
	})

	It("200: the agent first, then its PromptPackSource, each with the four dev labels; the user is a pseudonym", func() {
		var r reply
		// The enterprise licence is reloaded from its Secret: until then a
		// project intent is a 400 (deployintent/project-license).
		Eventually(func(g Gomega) {
			r = deploy(ns, projectIntent("30m"))
			g.Expect(r.Status).To(Equal(http.StatusOK), "%s", r.Body)
		}).WithTimeout(time.Minute).WithPolling(500 * time.Millisecond).Should(Succeed())
		res := decodeResult(r)
		Expect(res.Succeeded).To(BeTrue())
		Expect(len(res.Results)).To(BeNumerically(">=", 2))
		Expect(res.Results[0].Kind).To(Equal("AgentRuntime"))
		Expect(res.Results[1].Kind).To(Equal(translate.KindPromptPackSource))
		agentName = res.Results[0].Name
		Expect(agentName).To(HavePrefix("dev-my-project-"))
		Expect(agentName).NotTo(ContainSubstring("alice"), "the derived name carries the user's pseudonym, never the token's subject")

		ar := &v1alpha1.AgentRuntime{}
		Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: agentName}, ar)).To(Succeed())
		user := ar.Labels[translate.ArenaUserLabel]
		Expect(ar.Labels).To(HaveKeyWithValue(translate.DevLabel, "true"))
		Expect(ar.Labels).To(HaveKeyWithValue(translate.HiddenLabel, "true"))
		Expect(ar.Labels).To(HaveKeyWithValue(translate.ArenaProjectLabel, "my-project"))
		Expect(user).NotTo(BeEmpty())
		Expect(user).NotTo(Equal("alice"))
		Expect(ar.Annotations).To(HaveKeyWithValue("omnia.altairalabs.ai/idle-timeout", "30m"))
		Expect(ar.Spec.PromptPackRef).NotTo(BeNil())
		Expect(ar.Spec.PromptPackRef.Version).To(BeEmpty(), "a dev agent follows its live pack: no version")

		src := &v1alpha1.PromptPackSource{}
		Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: res.Results[1].Name}, src)).To(Succeed())
		Expect(src.Labels).To(HaveKeyWithValue(translate.ArenaUserLabel, user))
		Expect(metav1.IsControlledBy(src, ar) || hasOwnerUID(src.OwnerReferences, ar.UID)).To(BeTrue(), "the source is owned by the dev agent")
	})

	It("two concurrent applies of the same intent both succeed", func() {
		ns2 := freshNamespace("dev-race")
		framework.CreateMockProvider(suite.Client, ns2, "mock")
		var wg sync.WaitGroup
		replies := make([]reply, 2)
		for i := range replies {
			wg.Add(1)
			go func() {
				defer GinkgoRecover()
				defer wg.Done()
				replies[i] = deploy(ns2, projectIntent("30m"))
			}()
		}
		wg.Wait()
		var agentActions []string
		for _, r := range replies {
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r.Body)
			agentActions = append(agentActions, string(decodeResult(r).Results[0].Action))
		}
		Expect(agentActions).To(ContainElement(string(intent.ActionCreated)), "one apply created the dev agent")
		list := &v1alpha1.AgentRuntimeList{}
		Expect(suite.Client.List(ctx, list, client.InNamespace(ns2))).To(Succeed())
		Expect(list.Items).To(HaveLen(1))
	})

	It("503 with Retry-After while the dev agent is being deleted; nothing written", func() {
		Expect(agentName).NotTo(BeEmpty(), "the 200 spec deployed the agent")
		ar := &v1alpha1.AgentRuntime{}
		key := client.ObjectKey{Namespace: ns, Name: agentName}
		Expect(suite.Client.Get(ctx, key, ar)).To(Succeed())
		// A finalizer of the test's holds the agent in deletion, as the
		// garbage collector or the idle reaper would for a moment.
		controllerutil.AddFinalizer(ar, "e2e.omnia.altairalabs.ai/hold")
		Expect(suite.Client.Update(ctx, ar)).To(Succeed())
		DeferCleanup(func() {
			live := &v1alpha1.AgentRuntime{}
			if suite.Client.Get(ctx, key, live) == nil {
				controllerutil.RemoveFinalizer(live, "e2e.omnia.altairalabs.ai/hold")
				_ = suite.Client.Update(ctx, live)
			}
		})
		Expect(suite.Client.Delete(ctx, ar)).To(Succeed())
		r := deploy(ns, projectIntent("45m"))
		Expect(r.Status).To(Equal(http.StatusServiceUnavailable), "%s", r.Body)
		Expect(r.Header.Get("Retry-After")).NotTo(BeEmpty())
		Expect(strings.Contains(string(r.Body), agentName)).To(BeTrue(), "the results name the agent")
		// Nothing written: the intent's new idle timeout did not reach the
		// agent.
		live := &v1alpha1.AgentRuntime{}
		Expect(suite.Client.Get(ctx, key, live)).To(Succeed())
		Expect(live.Annotations).To(HaveKeyWithValue("omnia.altairalabs.ai/idle-timeout", "30m"))
	})
})

func hasOwnerUID(refs []metav1.OwnerReference, uid types.UID) bool {
	for _, r := range refs {
		if r.UID == uid {
			return true
		}
	}
	return false
}
