package arenarun

import (
	"context"
	"net/url"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/arena/queue"
	"github.com/altairalabs/omnia/redisacl"
	testredis "github.com/altairalabs/omnia/test/redis"
)

// The per-namespace credential controller (TestMain) reconciles the runs
// labelled outputTestLabel=tenantCredsLabel: its operator-wide queue is
// tenantAdmin, reached as the user "limited", which may run every command
// but ACL until a test grants it.
const (
	tenantCredsLabel = "tenant-creds"
	limitedUser      = "limited"
	limitedPassword  = "limited-arena-pw-7"
)

var tenantAdmin *testredis.Server

// limitedRedisUser creates the user "limited" on the Redis of adminURL,
// without the ACL commands, and returns its URL.
func limitedRedisUser(adminURL string) (string, error) {
	c, err := queue.Connect(adminURL)
	if err != nil {
		return "", err
	}
	defer func() { _ = c.Close() }()
	if err := c.Do(context.Background(), "ACL", "SETUSER", limitedUser, "on", ">"+limitedPassword, "~*", "&*", "+@all", "-@admin", "-acl").Err(); err != nil {
		return "", err
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", err
	}
	u.User = url.UserPassword(limitedUser, limitedPassword)
	return u.String(), nil
}

// TestTenantCredentialUnavailable: when
// the operator cannot give a namespace its own Redis user on the
// operator-wide queue, the run's Job is held back (JobCreated False,
// JobCreationFailed) saying so by the reply's class, no queue Secret is
// written and no Job created: the run never falls back to the operator's
// own credential. Once the operator's user may set users, the retry gives
// the run the namespace's user, and only that, in <run>-queue-redis.
func TestTenantCredentialUnavailable(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	run := &v1alpha1.ArenaRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "q", Labels: map[string]string{outputTestLabel: tenantCredsLabel}},
		Spec: v1alpha1.ArenaRunSpec{JobRef: v1alpha1.LocalObjectReference{Name: "job"},
			Template: v1alpha1.ArenaJobSpec{SourceRef: v1alpha1.LocalObjectReference{Name: "proj"}, Providers: providers("gpt")}},
	}
	if err := direct.Create(ctx, run); err != nil {
		t.Fatal(err)
	}

	held := waitFor(t, ns, "q", "held back for want of a tenant credential", heldWith("NOPERM"))
	if held.Status.StartTime != nil || held.Status.Phase != v1alpha1.ArenaRunPhasePending {
		t.Fatalf("phase %s startTime %v, want Pending and not started", held.Status.Phase, held.Status.StartTime)
	}
	msg := condOf(held, v1alpha1.ArenaRunConditionJobCreated).Message
	if !strings.Contains(msg, redisacl.Username(ns)) || strings.Contains(msg, limitedPassword) {
		t.Fatalf("JobCreated message %q: want the user it could not set, never the operator's password", msg)
	}
	if err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: QueueSecretName("q")}, &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Fatalf("queue Secret: %v, want none", err)
	}
	if err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: "q"}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Fatalf("worker Job: %v, want none", err)
	}

	// The platform grants the operator's user the ACL commands.
	admin, err := queue.Connect(tenantAdmin.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = admin.Close() }()
	if err := admin.Do(ctx, "ACL", "SETUSER", limitedUser, "+acl").Err(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = admin.Do(ctx, "ACL", "SETUSER", limitedUser, "-acl").Err() }()

	waitFor(t, ns, "q", "the Job created", func(r *v1alpha1.ArenaRun) bool {
		c := condOf(r, v1alpha1.ArenaRunConditionJobCreated)
		return c != nil && c.Status == metav1.ConditionTrue
	})
	u, err := url.Parse(queueSecretURL(t, ns, "q"))
	if err != nil {
		t.Fatal(err)
	}
	if u.User.Username() != redisacl.Username(ns) || strings.Contains(u.String(), limitedPassword) {
		t.Fatalf("<run>-queue-redis user %q: want the namespace's own %q, never the operator's", u.User.Username(), redisacl.Username(ns))
	}
}
