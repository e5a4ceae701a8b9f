package arenarun

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/arena/queue"
	"github.com/altairalabs/omnia/test/arenaworker"
	testredis "github.com/altairalabs/omnia/test/redis"
)

// tenantRedis is an address the tenant controls: it counts the connections
// it accepts and closes them. Whoever dials it is reading a URL the tenant
// wrote.
func tenantRedis(t *testing.T) (url string, accepted *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	accepted = &atomic.Int64{}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			_ = c.Close()
		}
	}()
	return "redis://" + l.Addr().String() + "/0", accepted
}

func refusedBeforeStart(r *v1alpha1.ArenaRun) bool {
	c := condOf(r, v1alpha1.ArenaRunConditionJobCreated)
	return c != nil && c.Status == metav1.ConditionFalse && c.Reason == v1alpha1.ArenaRunReasonQueueSecretConflict
}

func failedWithConflict(r *v1alpha1.ArenaRun) bool {
	c := condOf(r, v1alpha1.ArenaRunConditionReady)
	return r.Status.Phase == v1alpha1.ArenaRunPhaseFailed && c != nil && c.Reason == v1alpha1.ArenaRunReasonQueueSecretConflict
}

// noAddressIn fails when addr (a URL's host:port) is in the run's status.
func noAddressIn(t *testing.T, run *v1alpha1.ArenaRun, addr string) {
	t.Helper()
	b, _ := json.Marshal(run.Status)
	if strings.Contains(string(b), addr) {
		t.Fatalf("the tenant's address is in the status: %s", b)
	}
}

func redisAddrOf(url string) string {
	return strings.TrimSuffix(strings.TrimPrefix(url, "redis://"), "/0")
}

// A tenant who writes <run>-queue-redis before the operator does, pointing
// at a Redis of its own, does not make the operator dial it: the operator
// decides the URL itself, finds the Secret is not the one it would write,
// and holds the worker Job with reason QueueSecretConflict. That holds for
// a Secret claiming the run as its controller too (a tenant can read the
// run's UID): what decides is the content. Once the tenant's Secret is gone
// the operator writes its own and the run starts on the operator's Redis.
func TestPreCreatedQueueSecretIsRefused(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		// forgeOwner: the Secret names the run as its controller.
		forgeOwner bool
	}{
		{"not-owned", false},
		{"forged-owner", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ns := namespace(t)
			url, accepted := tenantRedis(t)
			// The run waits for its project, so the tenant writes the
			// Secret before the operator pins the queue.
			run := newRun(t, ns, "q", v1alpha1.ArenaJobSpec{Providers: providers("gpt")})
			waitFor(t, ns, "q", "waiting for its project", func(r *v1alpha1.ArenaRun) bool {
				sv := condOf(r, v1alpha1.ArenaRunConditionSourceValid)
				return sv != nil && sv.Reason == v1alpha1.ArenaRunReasonProjectNotFound
			})
			sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: QueueSecretName("q")},
				StringData: map[string]string{QueueSecretKey: url}}
			if c.forgeOwner {
				sec.OwnerReferences = []metav1.OwnerReference{{APIVersion: v1alpha1.GroupVersion.String(), Kind: "ArenaRun",
					Name: run.Name, UID: run.UID, Controller: ptr.To(true)}}
			}
			if err := direct.Create(ctx, sec); err != nil {
				t.Fatal(err)
			}
			readyProject(t, ns, "proj", nil)

			got := waitFor(t, ns, "q", "refused the tenant's Secret", refusedBeforeStart)
			if got.Status.Phase != v1alpha1.ArenaRunPhasePending || got.Status.StartTime != nil {
				t.Fatalf("phase %s startTime %v, want Pending and not started", got.Status.Phase, got.Status.StartTime)
			}
			if r := condOf(got, v1alpha1.ArenaRunConditionReady); r == nil || r.Reason != v1alpha1.ArenaRunReasonQueueSecretConflict {
				t.Fatalf("ready %+v", r)
			}
			if n := accepted.Load(); n != 0 {
				t.Fatalf("the operator dialled the tenant's Redis %d times", n)
			}
			job := &batchv1.Job{}
			if err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: "q"}, job); !apierrors.IsNotFound(err) {
				t.Fatalf("worker Job: %v, want none", err)
			}
			noAddressIn(t, got, redisAddrOf(url))

			// The tenant's Secret goes: the operator writes its own.
			if err := direct.Delete(ctx, sec); err != nil {
				t.Fatal(err)
			}
			waitLong(t, ns, "q", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
			if got := queueSecretURL(t, ns, "q"); got != defaultRedisURL {
				t.Fatalf("the queue Secret holds %q, want the operator's URL", got)
			}
			if n := accepted.Load(); n != 0 {
				t.Fatalf("the operator dialled the tenant's Redis %d times", n)
			}
		})
	}
}

// A tenant who edits the queue Secret once the run is running (to point
// its later workers, and the operator, at a Redis of its own) is refused:
// the operator keeps deciding the URL itself, never dials the tenant's, and
// the run fails with QueueSecretConflict, its worker Job deleted. Whether
// the Secret is the one the operator wrote (a Default queue or a url group)
// or a group's existingSecret, which is pinned at its first read.
func TestEditedQueueSecretFailsTheRun(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		redis  *v1alpha1.WorkspaceRedis // nil: the Default queue
		secret string                   // the Secret the tenant edits
		key    string
	}{
		{name: "default", secret: QueueSecretName("q"), key: QueueSecretKey},
		{name: "group-url", redis: &v1alpha1.WorkspaceRedis{URL: groupRedisURL}, secret: QueueSecretName("q"), key: QueueSecretKey},
		{name: "existing-secret", redis: &v1alpha1.WorkspaceRedis{ExistingSecret: &v1alpha1.WorkspaceRedisSecretRef{Name: "redis-conn"}},
			secret: "redis-conn", key: "url"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ns := namespace(t)
			readyProject(t, ns, "proj", nil)
			if c.redis != nil {
				if c.redis.ExistingSecret != nil {
					createSecret(t, ns, "redis-conn", map[string]string{"url": groupRedisURL})
				}
				workspace(t, ns, redisGroup(c.redis))
			}
			newRun(t, ns, "q", v1alpha1.ArenaJobSpec{Providers: providers("gpt"), Trials: ptr.To[int32](3)})
			run := waitFor(t, ns, "q", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
			if c.name == "existing-secret" && run.Status.Queue.SecretVersion == "" {
				t.Fatalf("queue %+v: the existingSecret is not pinned", run.Status.Queue)
			}

			url, accepted := tenantRedis(t)
			sec := &corev1.Secret{}
			if err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: c.secret}, sec); err != nil {
				t.Fatal(err)
			}
			sec.Data[c.key] = []byte(url)
			if err := direct.Update(ctx, sec); err != nil {
				t.Fatal(err)
			}
			run = waitFor(t, ns, "q", "Failed with QueueSecretConflict", failedWithConflict)
			if n := accepted.Load(); n != 0 {
				t.Fatalf("the operator dialled the tenant's Redis %d times", n)
			}
			err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
				job := &batchv1.Job{}
				err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: "q"}, job)
				return apierrors.IsNotFound(err) || (err == nil && !job.DeletionTimestamp.IsZero()), nil
			})
			if err != nil {
				t.Fatal("the worker Job of the refused run was not deleted")
			}
			noAddressIn(t, run, redisAddrOf(url))
			assertEvent(t, ns, "q", v1alpha1.ArenaRunReasonQueueSecretConflict)
		})
	}
}

// A run whose service group's redis changed since it was pinned (drift)
// keeps its queue: the operator cannot derive the URL from the Workspace
// any more, and uses the Secret it wrote only while the Secret's value
// fingerprints as the pinned configHash. Edited, it is refused like any
// other.
func TestDriftedGroupStillRefusesAnEditedSecret(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	ws := workspace(t, ns, redisGroup(&v1alpha1.WorkspaceRedis{URL: groupRedisURL}))
	newRun(t, ns, "q", v1alpha1.ArenaJobSpec{Providers: providers("gpt"), Trials: ptr.To[int32](3)})
	waitFor(t, ns, "q", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	patch := client.MergeFrom(ws.DeepCopy())
	ws.Spec.Services[0].Redis.URL = defaultRedisURL
	if err := direct.Patch(ctx, ws, patch); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ns, "q", "drifted", func(r *v1alpha1.ArenaRun) bool {
		c := condOf(r, v1alpha1.ArenaRunConditionQueueRedisDrifted)
		return c != nil && c.Status == metav1.ConditionTrue && r.Status.Phase == v1alpha1.ArenaRunPhaseRunning
	})
	// Still on its queue: the workers drain some of it there.
	if n, err := arenaworker.RunN(ctx, runQueue(t, groupRedisURL, ns, "q"), 1, arenaworker.Pass); err != nil || n != 1 {
		t.Fatalf("ran %d: %v", n, err)
	}
	url, accepted := tenantRedis(t)
	sec := &corev1.Secret{}
	if err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: QueueSecretName("q")}, sec); err != nil {
		t.Fatal(err)
	}
	sec.Data[QueueSecretKey] = []byte(url)
	if err := direct.Update(ctx, sec); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ns, "q", "Failed with QueueSecretConflict", failedWithConflict)
	if n := accepted.Load(); n != 0 {
		t.Fatalf("the operator dialled the tenant's Redis %d times", n)
	}
}

// operatorConns lists the connections CLIENT LIST shows on srv but the one
// asking: the operator's, and the test workers' while they are connected.
func operatorConns(t *testing.T, srv *testredis.Server) []string {
	t.Helper()
	c, err := net.DialTimeout("tcp", srv.Addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("CLIENT LIST\r\n")); err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(c)
	header, err := rd.ReadString('\n')
	if err != nil || !strings.HasPrefix(header, "$") {
		t.Fatalf("CLIENT LIST: %q %v", header, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(header[1:]))
	if err != nil {
		t.Fatal(err)
	}
	body := make([]byte, n+2)
	if _, err := io.ReadFull(rd, body); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(body[:n]), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.Contains(line, "cmd=client|list") {
			out = append(out, line)
		}
	}
	return out
}

// The operator's connection to a run's queue Redis is closed when the run
// ends: the real Redis's CLIENT LIST shows it while the run runs and not
// once it succeeded.
func TestQueueConnectionClosedWhenTheRunEnds(t *testing.T) {
	ctx := context.Background()
	srv := testredis.Start(t)
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	workspace(t, ns, redisGroup(&v1alpha1.WorkspaceRedis{URL: srv.URL()}))
	newRun(t, ns, "q", v1alpha1.ArenaJobSpec{Providers: providers("gpt")})
	waitFor(t, ns, "q", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	conns := operatorConns(t, srv)
	if len(conns) == 0 {
		t.Fatal("CLIENT LIST shows no connection of the operator while the run runs")
	}
	for _, c := range conns {
		if !strings.Contains(c, "name="+QueueClientName+" ") {
			t.Fatalf("a connection without the operator's client name: %s", c)
		}
	}
	wc, err := queue.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := arenaworker.Run(ctx, queue.New(wc, ns, "q"), 1, arenaworker.Pass); err != nil {
		t.Fatal(err)
	}
	_ = wc.Close() // the workers are done: theirs goes too
	waitFor(t, ns, "q", "Succeeded", phaseIs(v1alpha1.ArenaRunPhaseSucceeded))
	var left []string
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		left = operatorConns(t, srv)
		return len(left) == 0, nil
	})
	if err != nil {
		t.Fatalf("the operator's connections are still open after the run ended: %v", left)
	}
}
