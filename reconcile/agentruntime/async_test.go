package agentruntime

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// withAsync makes the agent a function with async invocation on.
func withAsync(a *v1alpha1.AgentRuntime) {
	a.Spec.Mode = v1alpha1.AgentRuntimeModeFunction
	a.Spec.InputSchema = &runtime.RawExtension{Raw: []byte(`{"type":"object"}`)}
	a.Spec.OutputSchema = &runtime.RawExtension{Raw: []byte(`{"type":"object"}`)}
	a.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeREST, Async: &v1alpha1.AgentRuntimeFacadeAsync{Enabled: true}}}
}

// TestAsyncCondition: one case per reason AsyncInvocationReady can carry,
// and a message that names the Secrets, never a URL.
func TestAsyncCondition(t *testing.T) {
	src := types.NamespacedName{Namespace: "omnia-system", Name: "redis-default"}
	secret := func(p asyncSourceProblem, kept bool) asyncOutcome {
		return asyncOutcome{backend: asyncBackendSecret, source: src, copyName: "agent-support-async-redis", problem: p, keptCopy: kept}
	}
	for _, tc := range []struct {
		name        string
		o           asyncOutcome
		status      metav1.ConditionStatus
		reason      string
		msgContains string
	}{
		{"no backend", asyncOutcome{}, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonQueueBackendMissing, "501"},
		{"url or host", asyncOutcome{backend: asyncBackendURL}, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAsyncQueueConfigured, "url or host"},
		{"existingSecret copied", secret(asyncSourceOK, false), metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAsyncQueueConfigured, "agent-support-async-redis"},
		{"existingSecret missing", secret(asyncSourceNotFound, false), metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonQueueSecretUnavailable, "does not exist"},
		{"existingSecret without the url key", secret(asyncSourceKeyMissing, false), metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonQueueSecretUnavailable, `no "url" key`},
		{"existingSecret holding no redis URL", secret(asyncSourceNotARedisURL, false), metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonQueueSecretUnavailable, "no redis://"},
		{"existingSecret missing, an earlier copy kept", secret(asyncSourceNotFound, true), metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonQueueSecretUnavailable, "keep the URL copied earlier"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := asyncCondition(tc.o, 4)
			if c.Type != v1alpha1.AgentRuntimeConditionAsyncInvocationReady || c.Status != tc.status || c.Reason != tc.reason || c.ObservedGeneration != 4 {
				t.Errorf("condition %+v, want %s %s at generation 4", c, tc.status, tc.reason)
			}
			if !strings.Contains(c.Message, tc.msgContains) {
				t.Errorf("message %q does not say %q", c.Message, tc.msgContains)
			}
			if tc.o.backend == asyncBackendSecret && !strings.Contains(c.Message, src.String()) {
				t.Errorf("message %q does not name the source Secret", c.Message)
			}
		})
	}
}

// TestSetAsyncStatus: the condition is present only while a facade sets
// async.enabled, and is left as it was when prepareAsync did not run.
func TestSetAsyncStatus(t *testing.T) {
	prior := metav1.Condition{Type: v1alpha1.AgentRuntimeConditionAsyncInvocationReady, Status: metav1.ConditionTrue,
		Reason: v1alpha1.AgentRuntimeReasonAsyncQueueConfigured, LastTransitionTime: metav1.Now()}
	for _, tc := range []struct {
		name       string
		async      bool
		outcome    *asyncOutcome
		wantReason string // "" = absent
	}{
		{"async off removes it", false, &asyncOutcome{}, ""},
		{"async on, not prepared: left as it was", true, nil, v1alpha1.AgentRuntimeReasonAsyncQueueConfigured},
		{"async on, no backend", true, &asyncOutcome{}, v1alpha1.AgentRuntimeReasonQueueBackendMissing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := agent()
			if tc.async {
				withAsync(ar)
			}
			st := v1alpha1.AgentRuntimeStatus{Conditions: []metav1.Condition{prior}}
			setAsyncStatus(&st, ar, statusInput{async: tc.outcome, now: metav1.Now()})
			c := meta.FindStatusCondition(st.Conditions, v1alpha1.AgentRuntimeConditionAsyncInvocationReady)
			switch {
			case tc.wantReason == "" && c != nil:
				t.Errorf("condition %+v, want none", c)
			case tc.wantReason != "" && (c == nil || c.Reason != tc.wantReason):
				t.Errorf("condition %+v, want reason %s", c, tc.wantReason)
			}
		})
	}
}

// TestAsyncQueueHashAnnotation: the pod template carries the copy's digest
// only for an agent with async on whose URL comes from the Secret copy; the
// digest changes with the URL and is not the URL.
func TestAsyncQueueHashAnnotation(t *testing.T) {
	const u1, u2 = "redis://:s3cret@redis.omnia-system.svc:6379/0", "redis://:other@redis.omnia-system.svc:6379/0"
	on := agent(withAsync)
	h1, h2 := asyncQueueDigest(on, u1), asyncQueueDigest(on, u2)
	if h1 == h2 || strings.Contains(h1, "s3cret") || len(h1) != 32 {
		t.Fatalf("digests %q %q: want two different 32-hex digests", h1, h2)
	}
	if other := agent(withAsync, func(a *v1alpha1.AgentRuntime) { a.UID = "uid-2" }); asyncQueueDigest(other, u1) == h1 {
		t.Errorf("the digest is not salted with the agent's UID")
	}
	for _, tc := range []struct {
		name string
		ar   *v1alpha1.AgentRuntime
		q    *workload.AsyncQueue
		want string
	}{
		{"secret copy", on, &workload.AsyncQueue{SecretName: workload.AsyncRedisSecretName(on), Hash: h1}, h1},
		{"literal URL rolls through the env itself", on, &workload.AsyncQueue{URL: u1}, ""},
		{"no backend", on, nil, ""},
		{"async off", agent(), &workload.AsyncQueue{SecretName: "agent-support-async-redis", Hash: h1}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := resolved()
			r.AsyncQueue = tc.q
			d, _, err := workload.Deployment(tc.ar, r)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := d.Spec.Template.Annotations[workload.AsyncQueueHashAnnotation]
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("annotation %q (present %v), want %q", got, ok, tc.want)
			}
		})
	}
}

func TestIsRedisURL(t *testing.T) {
	for _, tc := range []struct {
		v  string
		ok bool
	}{
		{"redis://redis:6379", true},
		{"rediss://:pw@redis.example:6380/2", true},
		{"http://redis:6379", false},
		{"redis://", false},
		{"redis://redis:6379\n", false},
		{"redis-host:6379", false},
	} {
		if got := isRedisURL(tc.v); got != tc.ok {
			t.Errorf("isRedisURL(%q) = %v, want %v", tc.v, got, tc.ok)
		}
	}
}

func TestAgentsForAsyncSecret(t *testing.T) {
	r := &Reconciler{opts: Options{Async: AsyncOptions{}}}
	owned := func(owner, name string) *metav1.PartialObjectMetadata {
		ar := agent(func(a *v1alpha1.AgentRuntime) { a.Name = owner })
		m := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name,
			OwnerReferences: []metav1.OwnerReference{workload.OwnerReference(ar)}}}
		return m
	}
	if got := r.agentsForAsyncSecret(t.Context(), owned("support", "agent-support-async-redis")); len(got) != 1 || got[0].Name != "support" {
		t.Errorf("the copy maps to %v, want its agent", got)
	}
	if got := r.agentsForAsyncSecret(t.Context(), owned("support", "support-oidc")); len(got) != 0 {
		t.Errorf("another owned Secret maps to %v, want nothing", got)
	}
}
