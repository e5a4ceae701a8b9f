package async

import (
	"context"
	"fmt"
	"net/url"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/arena/queue"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/redisacl"
	"github.com/altairalabs/omnia/test/controlplane"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

const (
	timeout = 90 * time.Second
	poll    = 250 * time.Millisecond
)

// passwords are the secret parts of the queue URLs the specs use: none
// may appear in a status, an event or the operator's log.
var passwords = []string{"e2e-first-pw", "e2e-second-pw"}

// queueURL is the operator's (admin) URL of the suite's Redis, database db.
func queueURL(pw string, db int) string {
	return fmt.Sprintf("redis://:%s@%s/%d", pw, suite.Redis.Addr, db)
}

// expectTenantCopy checks the copy's URL is the namespace's own Redis user
// on the suite's Redis, database db, that it carries no
// admin password, and that it authenticates (what the facade would do
// with OMNIA_ASYNC_REDIS_URL) and reaches its own key prefix only.
func expectTenantCopy(g Gomega, copied, ns string, db int) {
	for _, pw := range passwords {
		g.Expect(copied).NotTo(ContainSubstring(pw), "the copy carries the operator's password")
	}
	u, err := url.Parse(copied)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(u.User.Username()).To(Equal(redisacl.Username(ns)))
	g.Expect(u.Host).To(Equal(suite.Redis.Addr))
	g.Expect(u.Path).To(Equal(fmt.Sprintf("/%d", db)))
	c, err := queue.Connect(copied)
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = c.Close() }()
	ctx := context.Background()
	g.Expect(c.RPush(ctx, redisacl.AsyncKeyPrefix(ns)+"probe", "x").Err()).To(Succeed())
	err = c.RPush(ctx, redisacl.AsyncKeyPrefix("another-namespace")+"probe", "x").Err()
	g.Expect(err).To(HaveOccurred())
	g.Expect(err.Error()).To(HavePrefix("NOPERM"))
}

// functionAgent is a function-mode agent with async invocation on.
func functionAgent(ns, name string) *v1alpha1.AgentRuntime {
	return &v1alpha1.AgentRuntime{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.AgentRuntimeSpec{
			Mode:          v1alpha1.AgentRuntimeModeFunction,
			InputSchema:   &runtime.RawExtension{Raw: []byte(`{"type":"object"}`)},
			OutputSchema:  &runtime.RawExtension{Raw: []byte(`{"type":"object"}`)},
			PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts"},
			Facades: []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeREST,
				Async: &v1alpha1.AgentRuntimeFacadeAsync{Enabled: true, Workers: ptr.To[int32](2)}}},
		},
	}
}

func setSource(data map[string][]byte) {
	ctx := context.Background()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: controlplane.OperatorNamespace, Name: sourceSecret}}
	err := suite.Client.Get(ctx, client.ObjectKeyFromObject(s), s)
	if apierrors.IsNotFound(err) {
		s.Data = data
		Expect(suite.Client.Create(ctx, s)).To(Succeed())
		return
	}
	Expect(err).NotTo(HaveOccurred())
	s.Data = data
	Expect(suite.Client.Update(ctx, s)).To(Succeed())
}

func asyncCondition(g Gomega, ns, name string) *metav1.Condition {
	ar := &v1alpha1.AgentRuntime{}
	g.Expect(suite.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, ar)).To(Succeed())
	for _, pw := range passwords {
		g.Expect(fmt.Sprint(ar.Status)).NotTo(ContainSubstring(pw), "the status carries a queue URL")
	}
	return meta.FindStatusCondition(ar.Status.Conditions, v1alpha1.AgentRuntimeConditionAsyncInvocationReady)
}

func podHash(g Gomega, ns, name string) string {
	d := &appsv1.Deployment{}
	g.Expect(suite.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, d)).To(Succeed())
	return d.Spec.Template.Annotations[workload.AsyncQueueHashAnnotation]
}

// noURLInEvents checks the namespace's events for the URLs' passwords.
func noURLInEvents(ns string) {
	list := &corev1.EventList{}
	Expect(suite.Client.List(context.Background(), list, client.InNamespace(ns), client.Limit(500))).To(Succeed())
	for _, e := range list.Items {
		for _, pw := range passwords {
			Expect(e.Message).NotTo(ContainSubstring(pw), "an event carries a queue URL")
		}
	}
}

var _ = Describe("async invocation queue (redis.default existingSecret)", Ordered, func() {
	It("reports QueueSecretUnavailable while the source Secret has no url key, and wires nothing", func() {
		setSource(map[string][]byte{"host": []byte("redis")})
		ns := framework.CreateNamespace(suite.Client, "async-unavailable")
		framework.CreateReadyPromptPack(suite.Client, ns, "prompts", "1.0.0")
		Expect(suite.Client.Create(context.Background(), functionAgent(ns, "fn"))).To(Succeed())
		Eventually(func(g Gomega) {
			c := asyncCondition(g, ns, "fn")
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(v1alpha1.AgentRuntimeReasonQueueSecretUnavailable))
			g.Expect(podHash(g, ns, "fn")).To(BeEmpty())
		}).WithTimeout(timeout).WithPolling(poll).Should(Succeed())
		err := suite.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "agent-fn-async-redis"}, &corev1.Secret{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a copy exists without a source url: %v", err)
	})

	It("copies the source's url into agent-<name>-async-redis, rewrites it (rolling the pods) when the source changes, and deletes it when async is off", func() {
		ctx := context.Background()
		setSource(map[string][]byte{"url": []byte(queueURL(passwords[0], 0))})
		ns := framework.CreateNamespace(suite.Client, "async-copy")
		framework.CreateReadyPromptPack(suite.Client, ns, "prompts", "1.0.0")
		ar := functionAgent(ns, "fn")
		Expect(suite.Client.Create(ctx, ar)).To(Succeed())
		copyKey := client.ObjectKey{Namespace: ns, Name: "agent-fn-async-redis"}

		var first string
		Eventually(func(g Gomega) {
			c := asyncCondition(g, ns, "fn")
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(v1alpha1.AgentRuntimeReasonAsyncQueueConfigured))
			s := &corev1.Secret{}
			g.Expect(suite.Client.Get(ctx, copyKey, s)).To(Succeed())
			expectTenantCopy(g, string(s.Data["url"]), ns, 0)
			g.Expect(metav1.IsControlledBy(s, ar)).To(BeTrue(), "the copy is controlled by the agent")
			g.Expect(s.Labels).To(HaveKeyWithValue(workload.LabelManagedBy, workload.ManagedByValue))
			first = podHash(g, ns, "fn")
			g.Expect(first).NotTo(BeEmpty())
		}).WithTimeout(timeout).WithPolling(poll).Should(Succeed())

		d := &appsv1.Deployment{}
		Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "fn"}, d)).To(Succeed())
		var facade *corev1.Container
		for i := range d.Spec.Template.Spec.Containers {
			if d.Spec.Template.Spec.Containers[i].Name == workload.ContainerFacade {
				facade = &d.Spec.Template.Spec.Containers[i]
			}
		}
		Expect(facade).NotTo(BeNil())
		var redisEnv *corev1.EnvVar
		for i := range facade.Env {
			Expect(facade.Env[i].Value).NotTo(ContainSubstring(passwords[0]), "the URL is a literal in the pod")
			if facade.Env[i].Name == workload.EnvAsyncRedisURL {
				redisEnv = &facade.Env[i]
			}
		}
		Expect(redisEnv).NotTo(BeNil())
		Expect(redisEnv.ValueFrom.SecretKeyRef.Name).To(Equal(copyKey.Name))
		Expect(facade.Env).To(ContainElement(corev1.EnvVar{Name: workload.EnvAsyncRedisKeyPrefix, Value: redisacl.AsyncKeyPrefix(ns)}),
			"the facade is told the prefix its Redis user may reach")

		// The source changes: only the Secret watch can notice.
		// The admin password is rotated and the source moves to another
		// database: the operator reconnects with the new admin URL, and the
		// copy (same namespace user) now names database 1.
		rotateAdminPassword(passwords[1])
		setSource(map[string][]byte{"url": []byte(queueURL(passwords[1], 1))})
		Eventually(func(g Gomega) {
			s := &corev1.Secret{}
			g.Expect(suite.Client.Get(ctx, copyKey, s)).To(Succeed())
			expectTenantCopy(g, string(s.Data["url"]), ns, 1)
			g.Expect(podHash(g, ns, "fn")).NotTo(Or(BeEmpty(), Equal(first)))
		}).WithTimeout(timeout).WithPolling(poll).Should(Succeed(), "the copy is rewritten and the pod template's digest changes")

		// Async off: the copy and the condition go.
		Eventually(func() error {
			cur := &v1alpha1.AgentRuntime{}
			if err := suite.Client.Get(ctx, client.ObjectKeyFromObject(ar), cur); err != nil {
				return err
			}
			cur.Spec.Facades[0].Async.Enabled = false
			return suite.Client.Update(ctx, cur)
		}).WithTimeout(timeout).WithPolling(poll).Should(Succeed())
		Eventually(func(g Gomega) {
			err := suite.Client.Get(ctx, copyKey, &corev1.Secret{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the copy still exists: %v", err)
			g.Expect(asyncCondition(g, ns, "fn")).To(BeNil())
			g.Expect(podHash(g, ns, "fn")).To(BeEmpty())
		}).WithTimeout(timeout).WithPolling(poll).Should(Succeed())
		noURLInEvents(ns)
	})
})

var _ = Describe("rollout.trigger.promptPackChannel", func() {
	It("sets a newer stable version of the agent's pack as rollout.candidate", func() {
		ctx := context.Background()
		ns := framework.CreateNamespace(suite.Client, "async-trigger")
		framework.CreateReadyPromptPack(suite.Client, ns, "prompts", "1.0.0")
		ar := &v1alpha1.AgentRuntime{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "triggered"},
			Spec: v1alpha1.AgentRuntimeSpec{
				PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts", Version: "1.0.0"},
				Facades:       []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}},
				Rollout: &v1alpha1.AgentRuntimeRollout{
					Steps:   []v1alpha1.AgentRuntimeRolloutStep{{SetWeight: ptr.To[int32](10)}},
					Trigger: &v1alpha1.AgentRuntimeRolloutTrigger{PromptPackChannel: v1alpha1.AgentRuntimePromptPackTrackStable},
				},
			},
		}
		Expect(suite.Client.Create(ctx, ar)).To(Succeed())
		framework.CreateReadyPromptPack(suite.Client, ns, "prompts", "1.1.0-rc.1")
		framework.CreateReadyPromptPack(suite.Client, ns, "prompts", "1.1.0")
		Eventually(func(g Gomega) {
			cur := &v1alpha1.AgentRuntime{}
			g.Expect(suite.Client.Get(ctx, client.ObjectKeyFromObject(ar), cur)).To(Succeed())
			g.Expect(cur.Spec.Rollout.Candidate).NotTo(BeNil())
			g.Expect(cur.Spec.Rollout.Candidate.PromptPackRef).To(Equal(&v1alpha1.AgentRuntimePromptPackRef{Name: "prompts", Version: "1.1.0"}))
			g.Expect(cur.Spec.PromptPackRef.Version).To(Equal("1.0.0"))
		}).WithTimeout(timeout).WithPolling(poll).Should(Succeed())
	})
})
