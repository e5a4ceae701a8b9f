package agentruntime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// asyncState is what a reconcile left for an agent's async queue: the
// condition, the copy (nil when absent), and the Deployment's pod
// annotation and facade variables.
type asyncState struct {
	cond    *metav1.Condition
	copy    *corev1.Secret
	podHash string
	env     *corev1.EnvVar
}

func readAsyncState(t *testing.T, ar *v1alpha1.AgentRuntime) asyncState {
	t.Helper()
	ctx := context.Background()
	st := asyncState{cond: meta.FindStatusCondition(ar.Status.Conditions, v1alpha1.AgentRuntimeConditionAsyncInvocationReady)}
	s := &corev1.Secret{}
	switch err := k8s.Get(ctx, types.NamespacedName{Namespace: ar.Namespace, Name: workload.AsyncRedisSecretName(ar)}, s); {
	case err == nil:
		st.copy = s
	case !apierrors.IsNotFound(err):
		t.Fatal(err)
	}
	d := &appsv1.Deployment{}
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(ar), d); err != nil {
		t.Fatal(err)
	}
	st.podHash = d.Spec.Template.Annotations[workload.AsyncQueueHashAnnotation]
	st.env = env(container(t, &d.Spec.Template.Spec, workload.ContainerFacade), workload.EnvAsyncRedisURL)
	return st
}

func (s asyncState) want(t *testing.T, status metav1.ConditionStatus, reason string) {
	t.Helper()
	if s.cond == nil || s.cond.Status != status || s.cond.Reason != reason {
		t.Fatalf("AsyncInvocationReady = %+v, want %s %s", s.cond, status, reason)
	}
}

// noURLInStatus fails when the agent's status mentions a secret part of the
// queue URL.
func noURLInStatus(t *testing.T, ar *v1alpha1.AgentRuntime, secret string) {
	t.Helper()
	b, err := json.Marshal(ar.Status)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret) {
		t.Errorf("the status carries the queue URL's secret part")
	}
}

// TestReconcileAsyncQueueSecretCopy: with redis.default as existingSecret
// the source Secret, in the operator's namespace, is copied into
// agent-<name>-async-redis (owned by the agent, operator labels), the
// facade reads it from there and the pod template carries its digest; a
// changed source rewrites the copy and changes the digest (rolling the
// pods); a source without its key is QueueSecretUnavailable (the copy made
// before is kept); async off deletes the copy and the condition; no
// backend is QueueBackendMissing; url is used as is.
func TestReconcileAsyncQueueSecretCopy(t *testing.T) {
	ctx := context.Background()
	const ns, opNS = "ar-async-copy", "ar-async-operator"
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: opNS}}); err != nil {
		t.Fatal(err)
	}
	src := types.NamespacedName{Namespace: opNS, Name: "redis-default"}
	r, writes := newCountingReconciler(t)
	r.opts.Async = AsyncOptions{ExistingSecret: &src, source: &asyncSourceCache{}}
	key := runnableAgent(t, ns, withAsync)

	// No source Secret yet: False, no copy, async off in the pod.
	got := reconcileAgent(t, r, key)
	st := readAsyncState(t, got)
	st.want(t, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonQueueSecretUnavailable)
	if st.copy != nil || st.env != nil || st.podHash != "" {
		t.Errorf("without a source: copy %v, %s %v, annotation %q; want none", st.copy != nil, workload.EnvAsyncRedisURL, st.env, st.podHash)
	}

	const url1, url2 = "redis://:first-pw@redis.ar-async-operator.svc:6379/0", "redis://:second-pw@redis.ar-async-operator.svc:6379/1"
	source := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: opNS, Name: src.Name}, Data: map[string][]byte{"url": []byte(url1)}}
	if err := k8s.Create(ctx, source); err != nil {
		t.Fatal(err)
	}
	got = reconcileAgent(t, r, key)
	st = readAsyncState(t, got)
	st.want(t, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAsyncQueueConfigured)
	if st.copy == nil || string(st.copy.Data["url"]) != url1 {
		t.Fatalf("no copy holding the source's url")
	}
	if ref := metav1.GetControllerOf(st.copy); ref == nil || ref.UID != got.UID {
		t.Errorf("copy controller %+v, want the agent", ref)
	}
	if st.copy.Labels[workload.LabelManagedBy] != workload.ManagedByValue || st.copy.Labels[workload.LabelAgent] != got.Name {
		t.Errorf("copy labels %v, want the operator's", st.copy.Labels)
	}
	if st.env == nil || st.env.ValueFrom == nil || st.env.ValueFrom.SecretKeyRef == nil ||
		st.env.ValueFrom.SecretKeyRef.Name != workload.AsyncRedisSecretName(got) || st.env.ValueFrom.SecretKeyRef.Key != "url" {
		t.Errorf("%s = %+v, want the copy's url key", workload.EnvAsyncRedisURL, st.env)
	}
	hash1 := st.podHash
	if hash1 == "" || strings.Contains(hash1, "first-pw") || st.copy.Annotations[workload.AsyncQueueHashAnnotation] != hash1 {
		t.Errorf("pod annotation %q, copy annotation %q: want the same digest", hash1, st.copy.Annotations[workload.AsyncQueueHashAnnotation])
	}
	noURLInStatus(t, got, "first-pw")
	secondReconcileWritesNothing(t, r, writes, key)

	// The source changes: the copy is rewritten and the pods roll.
	source.Data["url"] = []byte(url2)
	if err := k8s.Update(ctx, source); err != nil {
		t.Fatal(err)
	}
	got = reconcileAgent(t, r, key)
	st = readAsyncState(t, got)
	st.want(t, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAsyncQueueConfigured)
	if st.copy == nil || string(st.copy.Data["url"]) != url2 {
		t.Fatalf("the copy was not rewritten with the source's new url")
	}
	if st.podHash == "" || st.podHash == hash1 {
		t.Errorf("pod annotation %q after the source changed, want a new digest (was %q)", st.podHash, hash1)
	}
	hash2 := st.podHash

	// The source loses its key: False, the copy made before is kept and the
	// pods do not roll.
	source.Data = map[string][]byte{"other": []byte("x")}
	if err := k8s.Update(ctx, source); err != nil {
		t.Fatal(err)
	}
	got = reconcileAgent(t, r, key)
	st = readAsyncState(t, got)
	st.want(t, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonQueueSecretUnavailable)
	if st.copy == nil || st.podHash != hash2 {
		t.Errorf("copy present %v, pod annotation %q; want the earlier copy kept and %q", st.copy != nil, st.podHash, hash2)
	}
	noURLInStatus(t, got, "second-pw")

	// Async off: the copy and the condition are gone.
	ar := &v1alpha1.AgentRuntime{}
	if err := k8s.Get(ctx, key, ar); err != nil {
		t.Fatal(err)
	}
	ar.Spec.Facades[0].Async.Enabled = false
	if err := k8s.Update(ctx, ar); err != nil {
		t.Fatal(err)
	}
	got = reconcileAgent(t, r, key)
	st = readAsyncState(t, got)
	if st.cond != nil || st.copy != nil || st.podHash != "" || st.env != nil {
		t.Errorf("async off: condition %+v, copy %v, annotation %q, env %v; want none", st.cond, st.copy != nil, st.podHash, st.env)
	}

	// Async on again without a backend: QueueBackendMissing, nothing copied.
	ar = got.DeepCopy()
	ar.Spec.Facades[0].Async.Enabled = true
	if err := k8s.Update(ctx, ar); err != nil {
		t.Fatal(err)
	}
	r.opts.Async = AsyncOptions{}
	got = reconcileAgent(t, r, key)
	st = readAsyncState(t, got)
	st.want(t, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonQueueBackendMissing)
	if st.copy != nil || st.env != nil {
		t.Errorf("without a backend: copy %v, env %v; want none", st.copy != nil, st.env)
	}

	// url (or host): the facade gets it as is, True.
	r.opts.Async = AsyncOptions{URL: "redis://redis.shared:6379"}
	got = reconcileAgent(t, r, key)
	st = readAsyncState(t, got)
	st.want(t, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAsyncQueueConfigured)
	if st.env == nil || st.env.Value != "redis://redis.shared:6379" || st.copy != nil || st.podHash != "" {
		t.Errorf("url backend: env %+v, copy %v, annotation %q", st.env, st.copy != nil, st.podHash)
	}
}

// TestAsyncSourceWatch: with the controller running in a manager, a change
// of the source Secret alone (no agent change) rewrites the copy of an
// agent with async on, through the metadata watch and the async index; a
// deleted copy is restored.
func TestAsyncSourceWatch(t *testing.T) {
	ctx := context.Background()
	const ns, opNS = "ar-async-watch", "ar-async-watch-op"
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: opNS}}); err != nil {
		t.Fatal(err)
	}
	src := types.NamespacedName{Namespace: opNS, Name: "redis-default"}
	source := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: opNS, Name: src.Name}, Data: map[string][]byte{"url": []byte("redis://:a@redis:6379")}}
	if err := k8s.Create(ctx, source); err != nil {
		t.Fatal(err)
	}
	key := runnableAgent(t, ns, withAsync)
	startManager(t, Options{Async: AsyncOptions{ExistingSecret: &src}})

	copyKey := types.NamespacedName{Namespace: ns, Name: "agent-" + key.Name + "-async-redis"}
	copyHolds := func(want string) func() bool {
		return func() bool {
			s := &corev1.Secret{}
			return k8s.Get(ctx, copyKey, s) == nil && string(s.Data["url"]) == want
		}
	}
	eventually(t, "the copy holds the source's url", copyHolds("redis://:a@redis:6379"))

	source.Data["url"] = []byte("redis://:b@redis:6379")
	if err := k8s.Update(ctx, source); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the copy holds the source's new url", copyHolds("redis://:b@redis:6379"))

	if err := k8s.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: copyKey.Name}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the deleted copy is restored", copyHolds("redis://:b@redis:6379"))
}

// eventually polls cond until it holds, failing the test after 30 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
