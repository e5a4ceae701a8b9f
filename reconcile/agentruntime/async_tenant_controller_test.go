package agentruntime

import (
	"context"
	"net/url"
	"strings"
	"testing"

	goredis "github.com/redis/go-redis/v9"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/arena/queue"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/redisacl"
	"github.com/altairalabs/omnia/test/redis"
)

// tenantProvisioner is the operator's provisioner, on a real Redis.
func tenantProvisioner(t *testing.T) *redisacl.Provisioner {
	t.Helper()
	p := redisacl.NewProvisioner(func(u string) (goredis.UniversalClient, error) { return queue.Connect(u) }, 0)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// TestReconcileAsyncTenantCredentials: with per-namespace
// credentials on, each agent's copy holds its namespace's own Redis user,
// for existingSecret and for url alike (a literal variable would show the
// user's password), never the operator's password; the facade is told its
// key prefix, and the copied URL is refused on another namespace's async
// keys by Redis itself. An operator whose Redis user may not set ACL users
// reports QueueCredentialUnavailable and writes no copy.
func TestReconcileAsyncTenantCredentials(t *testing.T) {
	ctx := context.Background()
	const adminPW = "async-admin-pw-81c2"
	srv := redis.StartWithPassword(t, adminPW)
	const opNS = "ar-async-acl-operator"
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: opNS}}); err != nil {
		t.Fatal(err)
	}
	src := types.NamespacedName{Namespace: opNS, Name: "redis-default"}
	if err := k8s.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: opNS, Name: src.Name},
		Data: map[string][]byte{"url": []byte(srv.URL())}}); err != nil {
		t.Fatal(err)
	}
	p := tenantProvisioner(t)

	backends := []struct {
		name string
		ns   string
		opts AsyncOptions
	}{
		{"existingSecret", "ar-async-acl-a", AsyncOptions{ExistingSecret: &src, source: &asyncSourceCache{}, TenantCredentials: p}},
		{"url", "ar-async-acl-b", AsyncOptions{URL: srv.URL(), TenantCredentials: p}},
	}
	copied := map[string]string{}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			r, _ := newCountingReconciler(t)
			r.opts.Async = b.opts
			key := runnableAgent(t, b.ns, withAsync)
			got := reconcileAgent(t, r, key)
			st := readAsyncState(t, got)
			st.want(t, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAsyncQueueConfigured)
			if !strings.Contains(st.cond.Message, redisacl.Username(b.ns)) {
				t.Errorf("condition message %q does not name the namespace's user", st.cond.Message)
			}
			if st.copy == nil || st.env == nil || st.env.ValueFrom == nil || st.env.ValueFrom.SecretKeyRef == nil ||
				st.env.ValueFrom.SecretKeyRef.Name != workload.AsyncRedisSecretName(got) {
				t.Fatalf("the facade does not read the copy: env %+v, copy %v", st.env, st.copy != nil)
			}
			u := string(st.copy.Data["url"])
			if strings.Contains(u, adminPW) {
				t.Fatal("the copy carries the operator's password")
			}
			if pu, err := url.Parse(u); err != nil || pu.User.Username() != redisacl.Username(b.ns) {
				t.Fatalf("copy URL user: %v", err)
			}
			noURLInStatus(t, got, adminPW)
			d := deploymentOf(t, key)
			prefix := env(container(t, &d.Spec.Template.Spec, workload.ContainerFacade), workload.EnvAsyncRedisKeyPrefix)
			if prefix == nil || prefix.Value != redisacl.AsyncKeyPrefix(b.ns) {
				t.Errorf("%s = %+v, want %q", workload.EnvAsyncRedisKeyPrefix, prefix, redisacl.AsyncKeyPrefix(b.ns))
			}
			copied[b.ns] = u
		})
	}
	if len(copied) != 2 {
		t.Fatal("a backend failed")
	}
	// What the facade of ar-async-acl-a would do with its variables.
	a, err := queue.Connect(copied["ar-async-acl-a"])
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = a.Close() }()
	if err := a.RPush(ctx, redisacl.AsyncKeyPrefix("ar-async-acl-a")+"pending", "job").Err(); err != nil {
		t.Errorf("the copied credential on its own prefix: %v", err)
	}
	if err := a.LPop(ctx, redisacl.AsyncKeyPrefix("ar-async-acl-b")+"pending").Err(); err == nil || !strings.HasPrefix(err.Error(), "NOPERM") {
		t.Errorf("the copied credential on another namespace's prefix: %v, want NOPERM", err)
	}

	// An operator whose Redis user may not run ACL SETUSER.
	admin, err := queue.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = admin.Close() }()
	if err := admin.Do(ctx, "ACL", "SETUSER", "limited", "on", ">limited-pw-4", "~*", "+@all", "-acl").Err(); err != nil {
		t.Fatal(err)
	}
	r, _ := newCountingReconciler(t)
	r.opts.Async = AsyncOptions{URL: "redis://limited:limited-pw-4@" + srv.Addr + "/0", TenantCredentials: tenantProvisioner(t)}
	key := runnableAgent(t, "ar-async-acl-c", withAsync)
	got := reconcileAgent(t, r, key)
	st := readAsyncState(t, got)
	st.want(t, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonQueueCredentialUnavailable)
	if st.copy != nil || st.env != nil {
		t.Errorf("no credential: copy %v, env %+v; want neither", st.copy != nil, st.env)
	}
	noURLInStatus(t, got, "limited-pw-4")
}
