package arenarun

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// Where a run's queue URL comes from (docs/arena.md § The queue's Redis).
//
// The URL is decided by the operator from what the operator controls, and
// decided again the same way at every reconcile: the operator's
// --arena-queue-redis-url for a Default queue, the Workspace's service group
// (cluster-scoped, the platform's) for a url, host or serviceRef group, as
// status.queue.configHash pinned it. It is never read back from the Secret
// <run>-queue-redis: that Secret lives in the tenant's namespace, where the
// tenant may write it. The operator writes it for the workers and, at every
// reconcile, checks it still holds exactly what the operator would write and
// is controlled by this run; otherwise the run does not use it
// (QueueSecretConflict). The owner check is defence in depth (a tenant can
// copy the run's UID into an owner reference); the content check is the one
// that matters, since it is what the workers would read.
//
// A group's existingSecret is named by the platform (in the Workspace) but
// lives in the tenant's namespace too, and its value is the only place the
// URL is: the operator reads it where the run pins its queue and pins the
// Secret's uid and resourceVersion (status.queue.secretVersion, neither of
// which a client can choose). A Secret replaced or written after that is
// refused the same way, so a value edited mid-run is never dialled. What the
// Secret held when it was first read is trusted as the platform's: a tenant
// who may write that Secret before the run pins chooses its own Redis (still
// behind the egress guard and the reply guard); a platform that does not
// want that names the Redis in the Workspace (url, host, serviceRef).

// queueSecretConflict is a queue Secret the run does not use. trustedURL is
// the run's queue URL when the operator still knows it without the Secret
// (Default, or a group whose redis is unchanged), so a failed run's keys can
// still be given their expiry.
type queueSecretConflict struct {
	msg        string
	trustedURL string
}

func (e *queueSecretConflict) Error() string { return e.msg }

// pinQueue decides status.queue once: which Redis (a service group's or the
// operator-wide one) and, for a group, the fingerprint of its redis. It
// reads nothing a tenant writes; the Secret is handled by queueURL.
func (r *Reconciler) pinQueue(run *v1alpha1.ArenaRun, st *v1alpha1.ArenaRunStatus, gr rules.ArenaRunServiceGroupResolution) error {
	q := &v1alpha1.ArenaRunQueue{Source: v1alpha1.ArenaRunQueueDefault}
	if st.StartTime != nil {
		// A run already started when status.queue arrived is pinned to Default.
		gr = rules.ArenaRunServiceGroupResolution{}
	}
	if gr.Group != nil {
		q.ServiceGroup = gr.Group.Name
	}
	if gr.Group == nil || gr.Group.Redis == nil {
		if r.opts.DefaultRedisURL == "" {
			return errors.New("no operator-wide arena queue is configured (--arena-queue-redis-url) and the run's service group sets no redis")
		}
		st.Queue = q
		return nil
	}
	// Where the group's URL comes from is the rules' decision; the
	// workspace's namespace is the run's.
	src := rules.ArenaRunQueueRedis(gr.Group, run.Namespace)
	if src.RetryMessage != "" {
		return errors.New(src.RetryMessage)
	}
	q.Source = v1alpha1.ArenaRunQueueServiceGroup
	q.ConfigHash = redisHash(gr.Group.Redis, run.Namespace)
	q.SecretRef = &v1alpha1.ArenaRunQueueSecretRef{Name: QueueSecretName(run.Name), Key: QueueSecretKey}
	if !src.Written() {
		if src.SecretName == QueueSecretName(run.Name) {
			return fmt.Errorf("service group %s's redis.existingSecret is named %s, the Secret the operator writes for this run: rename the existingSecret",
				gr.Group.Name, src.SecretName)
		}
		// existingSecret: the run reads the group's own Secret, pinned at
		// its first read (queueURL); nothing is copied (rule
		// arenarun/queue-redis-secret-found reports a missing one before this).
		q.SecretRef = &v1alpha1.ArenaRunQueueSecretRef{Name: src.SecretName, Key: src.SecretKey}
	}
	st.Queue = q
	return nil
}

// queueURL is the URL of the run's pinned queue (st.Queue set), decided as
// the comment above says, after checking the Secret the workers read. ws is
// the namespace's Workspace (nil: none). A *queueSecretConflict says the
// Secret is refused; it may set st.Queue.SecretVersion (the first read of
// an existingSecret).
func (r *Reconciler) queueURL(ctx context.Context, run *v1alpha1.ArenaRun, st *v1alpha1.ArenaRunStatus, ws *v1alpha1.Workspace) (string, error) {
	q := st.Queue
	switch {
	case q.Source != v1alpha1.ArenaRunQueueServiceGroup:
		if r.opts.DefaultRedisURL == "" {
			return "", errors.New("the run's queue is the operator-wide arena queue, and none is configured (--arena-queue-redis-url)")
		}
		want, err := r.defaultQueueURL(ctx, run.Namespace)
		if err != nil {
			return "", err
		}
		return r.ownQueueSecret(ctx, run, want, "")
	case q.SecretRef != nil && q.SecretRef.Name != QueueSecretName(run.Name):
		return r.existingSecretURL(ctx, run, q)
	default:
		return r.ownQueueSecret(ctx, run, groupQueueURL(q, ws, run.Namespace), q.ConfigHash)
	}
}

// defaultQueueURL is the operator-wide arena queue's URL for the runs of
// namespace: its own Redis user's when the operator gives each namespace
// one (Options.TenantCredentials), the admin URL otherwise. The user's
// password is the operator's (kept in Redis, never in a tenant object), so
// this too is decided without reading anything a tenant writes.
func (r *Reconciler) defaultQueueURL(ctx context.Context, namespace string) (string, error) {
	if r.opts.TenantCredentials == nil {
		return r.opts.DefaultRedisURL, nil
	}
	return r.opts.TenantCredentials.TenantURL(ctx, r.opts.DefaultRedisURL, namespace)
}

// groupQueueURL is the URL the pinned group's redis gives now, when it
// still fingerprints as pinned; "" when the group changed (or is gone): the
// operator then no longer knows the URL without the Secret.
func groupQueueURL(q *v1alpha1.ArenaRunQueue, ws *v1alpha1.Workspace, namespace string) string {
	if ws == nil {
		return ""
	}
	for i := range ws.Spec.Services {
		g := &ws.Spec.Services[i]
		if g.Name != q.ServiceGroup || g.Redis == nil {
			continue
		}
		src := rules.ArenaRunQueueRedis(g, namespace)
		if src.Written() && currentRedisHash(q.ConfigHash, g.Redis, namespace) == q.ConfigHash {
			return src.URL
		}
	}
	return ""
}

// ownQueueSecret makes sure <run>-queue-redis holds want, controlled by the
// run, and returns the queue URL. want is "" when the operator cannot
// derive the URL any more (the group's redis changed since the run was
// pinned): the Secret's value is then used only if it fingerprints as
// pinnedHash, i.e. it is the URL the operator decided when it pinned the run.
func (r *Reconciler) ownQueueSecret(ctx context.Context, run *v1alpha1.ArenaRun, want, pinnedHash string) (string, error) {
	name := QueueSecretName(run.Name)
	refuse := func(why string) error {
		return &queueSecretConflict{trustedURL: want,
			msg: "the queue Secret " + name + " " + why + ": the run does not use it (the operator never reads the queue's URL back from it)"}
	}
	sec := &corev1.Secret{}
	err := r.secrets.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: name}, sec)
	switch {
	case apierrors.IsNotFound(err):
		if want == "" {
			return "", refuse("is gone, and the service group's redis changed since the run was pinned, so the operator cannot write it again")
		}
		if err := r.client.Create(ctx, queueSecret(run, want)); err != nil {
			if apierrors.IsAlreadyExists(err) {
				return "", fmt.Errorf("the queue Secret %s appeared while the operator wrote it; looking again", name)
			}
			return "", fmt.Errorf("writing the queue Secret %s: %w", name, err)
		}
		return want, nil
	case err != nil:
		return "", fmt.Errorf("reading the queue Secret %s: %w", name, err)
	}
	if !metav1.IsControlledBy(sec, run) {
		return "", refuse("was not written by the operator for this run")
	}
	got := sec.Data[QueueSecretKey]
	if sec.Type != corev1.SecretTypeOpaque || len(sec.Data) != 1 {
		return "", refuse("was changed since the operator wrote it")
	}
	if want != "" {
		if !bytes.Equal(got, []byte(want)) {
			return "", refuse("was changed since the operator wrote it")
		}
		return want, nil
	}
	if pinnedHash == "" || urlHash(string(got)) != pinnedHash {
		return "", refuse("was changed since the operator wrote it")
	}
	return string(got), nil
}

// queueSecret is the Secret <run>-queue-redis holding url, controlled by run.
func queueSecret(run *v1alpha1.ArenaRun, url string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: QueueSecretName(run.Name), Namespace: run.Namespace,
			Labels: map[string]string{LabelRun: run.Name},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: v1alpha1.GroupVersion.String(), Kind: "ArenaRun",
				Name: run.Name, UID: run.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}},
		},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{QueueSecretKey: []byte(url)},
	}
}

// existingSecretURL reads the group's existingSecret the run is pinned to,
// refusing it when it is not the Secret, or not the version, first read.
func (r *Reconciler) existingSecretURL(ctx context.Context, run *v1alpha1.ArenaRun, q *v1alpha1.ArenaRunQueue) (string, error) {
	ref := q.SecretRef
	refuse := func(why string) error {
		return &queueSecretConflict{msg: "service group " + q.ServiceGroup + "'s redis.existingSecret " + ref.Name + " " + why +
			": the run does not use it (a pinned existingSecret must not be replaced or written while its runs use it)"}
	}
	sec := &corev1.Secret{}
	err := r.secrets.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: ref.Name}, sec)
	switch {
	case apierrors.IsNotFound(err):
		if q.SecretVersion == "" {
			return "", fmt.Errorf("service group %s's redis.existingSecret %s does not exist", q.ServiceGroup, ref.Name)
		}
		return "", refuse("is gone since the run was pinned")
	case err != nil:
		return "", fmt.Errorf("reading service group %s's redis.existingSecret %s: %w", q.ServiceGroup, ref.Name, err)
	}
	version := string(sec.UID) + "/" + sec.ResourceVersion
	u := string(sec.Data[ref.Key])
	if q.SecretVersion == "" {
		// The run in hand may come from a cache that has not seen the
		// status patch which pinned the version yet; pinning again from it
		// would take a Secret edited since as the first read.
		pinned, err := r.livePinnedSecretVersion(ctx, run, ref)
		if err != nil {
			return "", err
		}
		q.SecretVersion = pinned
	}
	switch q.SecretVersion {
	case "":
		// The first read (or a run pinned before the field): pin it.
		if u == "" {
			return "", fmt.Errorf("service group %s's redis.existingSecret %s has no key %s", q.ServiceGroup, ref.Name, ref.Key)
		}
		q.SecretVersion = version
	case version:
	default:
		return "", refuse("was replaced or written since the run was pinned")
	}
	return u, nil
}

// livePinnedSecretVersion is status.queue.secretVersion of the run as the
// API server has it now (uncached), when it is pinned to ref; "" when it is
// not pinned yet.
func (r *Reconciler) livePinnedSecretVersion(ctx context.Context, run *v1alpha1.ArenaRun, ref *v1alpha1.ArenaRunQueueSecretRef) (string, error) {
	live := &v1alpha1.ArenaRun{}
	if err := r.secrets.Get(ctx, client.ObjectKeyFromObject(run), live); err != nil {
		return "", fmt.Errorf("reading the run's pinned queue: %w", err)
	}
	q := live.Status.Queue
	if live.UID != run.UID || q == nil || q.SecretRef == nil || *q.SecretRef != *ref {
		return "", nil
	}
	return q.SecretVersion, nil
}
