package arenarun

import (
	"context"
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/test/arenaworker"
)

// serviceDNS plays cluster DNS for the controller's Redis dials:
// <name>.<namespace>.svc is the loopback (where the test redis-servers
// listen), metadata.<namespace>.svc is the cloud metadata address, and
// nowhere.<namespace>.svc does not resolve.
func serviceDNS(name string) ([4]byte, bool) {
	labels := strings.Split(strings.TrimSuffix(name, "."), ".")
	if len(labels) != 3 || labels[2] != "svc" {
		return [4]byte{}, false
	}
	switch labels[0] {
	case "metadata":
		return [4]byte{169, 254, 169, 254}, true
	case "nowhere":
		return [4]byte{}, false
	}
	return [4]byte{127, 0, 0, 1}, true
}

// groupRedisAddr is the group Redis's host:port, and its port.
func groupRedisAddr(t *testing.T) (string, int32) {
	t.Helper()
	addr := strings.TrimSuffix(strings.TrimPrefix(groupRedisURL, "redis://"), "/0")
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(p)
	return addr, int32(port)
}

func redisGroup(r *v1alpha1.WorkspaceRedis) v1alpha1.WorkspaceSpec {
	return v1alpha1.WorkspaceSpec{Services: []v1alpha1.WorkspaceServiceGroup{{Name: "grp", Redis: r}}}
}

func createSecret(t *testing.T, ns, name string, data map[string]string) *corev1.Secret {
	t.Helper()
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: data}
	if err := direct.Create(context.Background(), sec); err != nil {
		t.Fatal(err)
	}
	return sec
}

// queueSecretURL is the URL in the run-owned <run>-queue-redis; "" when the
// Secret does not exist.
func queueSecretURL(t *testing.T, ns, run string) string {
	t.Helper()
	sec := &corev1.Secret{}
	err := direct.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: QueueSecretName(run)}, sec)
	if apierrors.IsNotFound(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(sec.OwnerReferences) != 1 || sec.OwnerReferences[0].Name != run {
		t.Errorf("queue Secret owners %v, want the run", sec.OwnerReferences)
	}
	return string(sec.Data[QueueSecretKey])
}

// waitLong is waitFor with room for the hold's backoff (5s, doubling).
func waitLong(t *testing.T, ns, name, what string, ok func(*v1alpha1.ArenaRun) bool) *v1alpha1.ArenaRun {
	t.Helper()
	var last v1alpha1.ArenaRun
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		if err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &last); err != nil {
			return false, nil
		}
		return ok(&last), nil
	})
	if err != nil {
		b, _ := json.MarshalIndent(last.Status, "", "  ")
		t.Fatalf("run %s/%s never %s; status:\n%s", ns, name, what, b)
	}
	return &last
}

func heldWith(substr string) func(*v1alpha1.ArenaRun) bool {
	return func(r *v1alpha1.ArenaRun) bool {
		c := condOf(r, v1alpha1.ArenaRunConditionJobCreated)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == v1alpha1.ArenaRunReasonJobCreationFailed &&
			strings.Contains(c.Message, substr)
	}
}

// Every form of a group's redis pins the run's queue to it:
// status.queue.secretRef is <run>-queue-redis holding the URL the form
// gives (url as written, host and serviceRef made into redis://…), or the
// group's own existingSecret with nothing written. The worker Job reads the
// URL from that Secret, the matrix is on the group's Redis, and the run
// ends when workers drain it there.
func TestQueueRedisForms(t *testing.T) {
	ctx := context.Background()
	addr, port := groupRedisAddr(t)
	cases := []struct {
		name    string
		redis   *v1alpha1.WorkspaceRedis
		secret  map[string]string // the group's Secret redis-conn, created first
		wantRef [2]string         // secretRef; "" name: <run>-queue-redis
		written func(ns string) string
	}{
		{name: "url", redis: &v1alpha1.WorkspaceRedis{URL: groupRedisURL},
			written: func(string) string { return groupRedisURL }},
		{name: "host", redis: &v1alpha1.WorkspaceRedis{Host: addr},
			written: func(string) string { return "redis://" + addr }},
		{name: "serviceref", redis: &v1alpha1.WorkspaceRedis{ServiceRef: &v1alpha1.WorkspaceRedisServiceRef{Name: "redis", Port: port}},
			written: func(ns string) string { return "redis://redis." + ns + ".svc:" + strconv.Itoa(int(port)) }},
		{name: "existingsecret", redis: &v1alpha1.WorkspaceRedis{ExistingSecret: &v1alpha1.WorkspaceRedisSecretRef{Name: "redis-conn", Key: "REDIS_URL"}},
			secret: map[string]string{"REDIS_URL": groupRedisURL}, wantRef: [2]string{"redis-conn", "REDIS_URL"},
			written: func(string) string { return "" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ns := namespace(t)
			readyProject(t, ns, "proj", nil)
			if c.secret != nil {
				createSecret(t, ns, "redis-conn", c.secret)
			}
			workspace(t, ns, redisGroup(c.redis))
			newRun(t, ns, "q", v1alpha1.ArenaJobSpec{Providers: providers("gpt")})
			run := waitFor(t, ns, "q", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))

			want := c.wantRef
			if want[0] == "" {
				want = [2]string{QueueSecretName("q"), QueueSecretKey}
			}
			q := run.Status.Queue
			if q == nil || q.Source != v1alpha1.ArenaRunQueueServiceGroup || q.ServiceGroup != "grp" || q.SecretRef == nil ||
				q.SecretRef.Name != want[0] || q.SecretRef.Key != want[1] || q.ConfigHash == "" {
				t.Fatalf("queue %+v, want ServiceGroup grp with secretRef %v", q, want)
			}
			if got := queueSecretURL(t, ns, "q"); got != c.written(ns) {
				t.Fatalf("<run>-queue-redis holds %q, want %q", got, c.written(ns))
			}
			if d := condOf(run, v1alpha1.ArenaRunConditionQueueRedisDrifted); d == nil || d.Status != metav1.ConditionFalse || d.Reason != v1alpha1.ArenaRunReasonPinned {
				t.Fatalf("drift %+v", d)
			}
			job := &batchv1.Job{}
			if err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: "q"}, job); err != nil {
				t.Fatal(err)
			}
			for _, e := range job.Spec.Template.Spec.Containers[0].Env {
				if e.Name == "ARENA_QUEUE_REDIS_URL" {
					if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil ||
						e.ValueFrom.SecretKeyRef.Name != want[0] || e.ValueFrom.SecretKeyRef.Key != want[1] {
						t.Fatalf("worker env %+v, want a secretKeyRef to %v", e, want)
					}
				}
			}
			b, _ := json.Marshal(run.Status)
			if strings.Contains(string(b), addr) {
				t.Fatal("the Redis address is in the status")
			}
			// The matrix is on the group's Redis: the workers drain it there.
			st, err := arenaworker.Run(ctx, runQueue(t, groupRedisURL, ns, "q"), 1, arenaworker.Pass)
			if err != nil || st.Executed != 3 {
				t.Fatalf("workers executed %d on the group's Redis: %v", st.Executed, err)
			}
			waitFor(t, ns, "q", "Succeeded", phaseIs(v1alpha1.ArenaRunPhaseSucceeded))
		})
	}
	if strings.Contains(logs.String(), addr) {
		t.Fatal("the Redis address is in the controller's log")
	}
}

// A group's redis cannot make the operator dial a link-local or metadata
// address, whether named by host or by a Service whose DNS answers one;
// the run is pinned, its Job held back with JobCreationFailed saying the
// egress guard refused (without the address), and retried. A Service name
// that does not resolve is said as such.
func TestQueueRedisEgressRefused(t *testing.T) {
	cases := []struct {
		name    string
		redis   *v1alpha1.WorkspaceRedis
		written func(ns string) string
		msg     string
	}{
		{"host-metadata", &v1alpha1.WorkspaceRedis{Host: "169.254.169.254"},
			func(string) string { return "redis://169.254.169.254:6379" }, "refused by the operator's egress guard"},
		{"serviceref-resolving-to-metadata", &v1alpha1.WorkspaceRedis{ServiceRef: &v1alpha1.WorkspaceRedisServiceRef{Name: "metadata"}},
			func(ns string) string { return "redis://metadata." + ns + ".svc:6379" }, "refused by the operator's egress guard"},
		{"serviceref-not-resolving", &v1alpha1.WorkspaceRedis{ServiceRef: &v1alpha1.WorkspaceRedisServiceRef{Name: "nowhere"}},
			func(ns string) string { return "redis://nowhere." + ns + ".svc:6379" }, "host name does not resolve"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ns := namespace(t)
			readyProject(t, ns, "proj", nil)
			workspace(t, ns, redisGroup(c.redis))
			newRun(t, ns, "q", v1alpha1.ArenaJobSpec{Providers: providers("gpt")})
			run := waitFor(t, ns, "q", "held back", heldWith(c.msg))
			if run.Status.Phase != v1alpha1.ArenaRunPhasePending || run.Status.StartTime != nil {
				t.Fatalf("phase %s startTime %v", run.Status.Phase, run.Status.StartTime)
			}
			if q := run.Status.Queue; q == nil || q.Source != v1alpha1.ArenaRunQueueServiceGroup || q.SecretRef == nil || q.SecretRef.Name != QueueSecretName("q") {
				t.Fatalf("queue %+v, want pinned to the group", q)
			}
			if got := queueSecretURL(t, ns, "q"); got != c.written(ns) {
				t.Fatalf("<run>-queue-redis holds %q, want %q", got, c.written(ns))
			}
			msg := condOf(run, v1alpha1.ArenaRunConditionJobCreated).Message
			if strings.Contains(msg, "169.254") || strings.Contains(msg, ns+".svc") {
				t.Fatalf("the message names the address: %q", msg)
			}
			job := &batchv1.Job{}
			if err := direct.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "q"}, job); !apierrors.IsNotFound(err) {
				t.Fatalf("worker Job: %v, want none", err)
			}
		})
	}
}

// An existingSecret that is missing, then lacks its key, holds the Job back
// with the catalog rule's finding (JobCreated=False, JobCreationFailed) and
// nothing pinned; the retry with backoff picks the Secret up once it holds
// the URL, and the run starts on it.
func TestQueueRedisExistingSecretMissing(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	workspace(t, ns, redisGroup(&v1alpha1.WorkspaceRedis{ExistingSecret: &v1alpha1.WorkspaceRedisSecretRef{Name: "later"}}))
	newRun(t, ns, "q", v1alpha1.ArenaJobSpec{Providers: providers("gpt")})
	ruleTag := "[" + rules.ArenaRunQueueRedisSecretRuleID + "]"
	run := waitFor(t, ns, "q", "held back for the missing Secret", heldWith(ruleTag))
	if !strings.Contains(condOf(run, v1alpha1.ArenaRunConditionJobCreated).Message, "does not exist") || run.Status.Queue != nil ||
		run.Status.Phase != v1alpha1.ArenaRunPhasePending {
		t.Fatalf("status %+v", run.Status)
	}
	if r := condOf(run, v1alpha1.ArenaRunConditionReady); r == nil || r.Reason != v1alpha1.ArenaRunReasonJobCreationFailed {
		t.Fatalf("ready %+v", r)
	}

	sec := createSecret(t, ns, "later", map[string]string{"REDIS_URL": groupRedisURL})
	waitLong(t, ns, "q", "held back for the missing key", heldWith(`has no key "url"`))

	sec.StringData = map[string]string{"url": groupRedisURL}
	if err := direct.Update(ctx, sec); err != nil {
		t.Fatal(err)
	}
	run = waitLong(t, ns, "q", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	if q := run.Status.Queue; q.SecretRef == nil || q.SecretRef.Name != "later" || q.SecretRef.Key != "url" {
		t.Fatalf("queue %+v", q)
	}
	if queueSecretURL(t, ns, "q") != "" {
		t.Fatal("a <run>-queue-redis was written for an existingSecret group")
	}
	if _, err := arenaworker.Run(ctx, runQueue(t, groupRedisURL, ns, "q"), 1, arenaworker.Pass); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ns, "q", "Succeeded", phaseIs(v1alpha1.ArenaRunPhaseSucceeded))
}

// QueueRedisDrifted follows where the group's redis points, whatever the
// form: a url rewritten as the same host is not a drift; an existingSecret
// is; back to the same host (with an unrelated session change) is Pinned
// again. The run never moves.
func TestQueueRedisDriftAcrossForms(t *testing.T) {
	ctx := context.Background()
	addr, _ := groupRedisAddr(t)
	ns := namespace(t)
	readyProject(t, ns, "proj", nil)
	createSecret(t, ns, "redis-conn", map[string]string{"url": "redis://" + addr})
	ws := workspace(t, ns, redisGroup(&v1alpha1.WorkspaceRedis{URL: "redis://" + addr}))
	newRun(t, ns, "q", v1alpha1.ArenaJobSpec{Providers: providers("gpt")})
	run := waitFor(t, ns, "q", "Running", phaseIs(v1alpha1.ArenaRunPhaseRunning))
	pinned := *run.Status.Queue

	drifted := func(want bool) func(*v1alpha1.ArenaRun) bool {
		return func(r *v1alpha1.ArenaRun) bool {
			c := condOf(r, v1alpha1.ArenaRunConditionQueueRedisDrifted)
			if want {
				return c != nil && c.Status == metav1.ConditionTrue && c.Reason == v1alpha1.ArenaRunReasonServiceGroupRedisChanged
			}
			return c != nil && c.Status == metav1.ConditionFalse && c.Reason == v1alpha1.ArenaRunReasonPinned
		}
	}
	setRedis := func(r *v1alpha1.WorkspaceRedis, session *v1alpha1.WorkspaceServiceBlock) {
		t.Helper()
		patch := client.MergeFrom(ws.DeepCopy())
		ws.Spec.Services[0].Redis = r
		ws.Spec.Services[0].Session = session
		if err := direct.Patch(ctx, ws, patch); err != nil {
			t.Fatal(err)
		}
	}

	setRedis(&v1alpha1.WorkspaceRedis{ExistingSecret: &v1alpha1.WorkspaceRedisSecretRef{Name: "redis-conn"}}, nil)
	waitFor(t, ns, "q", "drifted to the existingSecret", drifted(true))
	setRedis(&v1alpha1.WorkspaceRedis{Host: addr}, &v1alpha1.WorkspaceServiceBlock{URL: "http://session"})
	run = waitFor(t, ns, "q", "pinned again on the same host", drifted(false))
	if q := run.Status.Queue; q.SecretRef == nil || *q.SecretRef != *pinned.SecretRef || q.ConfigHash != pinned.ConfigHash {
		t.Fatalf("the pinned queue moved: %+v, was %+v", run.Status.Queue, pinned)
	}
	if _, err := arenaworker.Run(ctx, runQueue(t, groupRedisURL, ns, "q"), 1, arenaworker.Pass); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ns, "q", "Succeeded", phaseIs(v1alpha1.ArenaRunPhaseSucceeded))
}
