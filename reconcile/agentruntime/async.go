package agentruntime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/reconcile/enqueue"
	"github.com/altairalabs/omnia/redisacl"
)

// Async invocation (agentruntime.md § facades[].async): the queue Secret
// copy and AsyncInvocationReady; the promptPackChannel trigger is in
// rollout_trigger.go.
//
// "Async requires a queue backend: the operator's Redis, from the chart's
// redis.default as url, host or existingSecret." With url or host the
// facade gets the URL as it is (workload/env_facade.go asyncEnv). With
// existingSecret the Secret sits in the operator's namespace, which the
// agent's pods cannot read, so the controller copies its url key into
// agent-<name>-async-redis in the agent's namespace (owned by the agent,
// the operator's labels), rewrites the copy when the source changes, and
// deletes it when async is turned off. The pod template carries a digest
// of the copied URL (AsyncQueueHashAnnotation, never the URL), so a
// rewritten copy rolls the pods: a variable read from a Secret is read
// only when a container starts.
//
// Reads: the source Secret's data through the API reader (the manager
// caches no Secret data), only for an agent with async on, and remembered
// by the source's resourceVersion (from the Secrets' metadata cache the
// manager already keeps), so it is read again only when it changed. The
// copy is judged from its metadata alone (its digest annotation, labels and
// owner), so an unchanged copy costs no request. A change of the source
// re-reconciles the agents with async on, listed through a field index
// (indexAsync) so no other agent is touched; a change or deletion of a copy
// re-reconciles its agent.
//
// The URL may carry a password: it is never put in a status, an event, a
// log line or an error message; only the names of the Secrets are.

// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;patch;delete

// indexAsync is the field index on AgentRuntimes holding "true" for an
// agent a facade of which sets async.enabled.
const indexAsync = "omnia.async.enabled"

// AsyncOptions configure the group (cmd/omnia-operator sets them from the
// --async-redis-* flags, the chart's redis.default).
type AsyncOptions struct {
	// URL is the queue's Redis URL when the chart gives redis.default as
	// url, or as host (the flags turn it into redis://host:port). Ignored
	// when ExistingSecret is set.
	URL string
	// ExistingSecret is the chart's redis.default.existingSecret: a
	// Secret in the operator's namespace whose url key holds the Redis
	// URL. Nil with an empty URL: no queue backend.
	ExistingSecret *types.NamespacedName

	// secretData reads Secrets with their data, uncached (the manager's
	// APIReader); secretMeta reads their metadata from the manager's
	// cache. setupAsync sets both; nil reads through the controller's
	// client.
	secretData, secretMeta client.Reader
	// source remembers the source Secret's URL by resourceVersion; nil
	// reads the Secret every time.
	source *asyncSourceCache

	// TenantCredentials, when set, gives each namespace its own Redis
	// user on the operator's Redis (redisacl.Provisioner): the copy holds
	// the namespace's URL, for the url and host backends too (a literal
	// variable would show the user's password). Nil: the operator's URL
	// (--redis-tenant-credentials=false).
	TenantCredentials TenantCredentials
}

// TenantCredentials turns the operator's admin URL of a Redis into the
// URL of a namespace's own user on it (redisacl.Provisioner.TenantURL).
type TenantCredentials interface {
	TenantURL(ctx context.Context, adminURL, namespace string) (string, error)
}

// asyncBackend is where the operator's queue URL comes from.
type asyncBackend string

const (
	asyncBackendNone   asyncBackend = ""
	asyncBackendURL    asyncBackend = "url"
	asyncBackendSecret asyncBackend = "existingSecret"
)

// asyncSourceProblem is why the existingSecret gave no URL ("" when it did).
type asyncSourceProblem string

const (
	asyncSourceOK           asyncSourceProblem = ""
	asyncSourceNotFound     asyncSourceProblem = "SecretNotFound"
	asyncSourceKeyMissing   asyncSourceProblem = "KeyMissing"
	asyncSourceNotARedisURL asyncSourceProblem = "NotARedisURL"
	// asyncCredentialUnavailable: the namespace's own Redis user could not
	// be set up on the operator's Redis (AsyncOptions.TenantCredentials).
	asyncCredentialUnavailable asyncSourceProblem = "CredentialUnavailable"
)

// asyncOutcome is what prepareAsync did, for the status; nil when it did
// not run (the workload was held back), which leaves AsyncInvocationReady
// as it was.
type asyncOutcome struct {
	// backend is the operator's queue backend.
	backend asyncBackend
	// source is the existingSecret (backend existingSecret).
	source types.NamespacedName
	// problem is why the source gave no URL.
	problem asyncSourceProblem
	// copyName is the agent's Secret copy.
	copyName string
	// keptCopy is true when the source gave no URL but an earlier copy
	// exists: the pods keep the URL copied before.
	keptCopy bool
	// tenantUser is the namespace's own Redis user the copy holds ("":
	// the operator's URL itself).
	tenantUser string
	// credentialErr is why the namespace's user could not be set up
	// (problem asyncCredentialUnavailable); it names no URL or password.
	credentialErr string
}

// asyncIndexValue is the indexAsync function.
func asyncIndexValue(o client.Object) []string {
	if ar, ok := o.(*v1alpha1.AgentRuntime); ok && workload.AsyncEnabled(ar) {
		return []string{"true"}
	}
	return nil
}

// setupAsync gives the group its readers (the API reader for the source
// Secret's data, the cache for Secrets' metadata) and the indexAsync field
// index that agentsForAsyncSecret lists by. SetupWithManager watches the
// Secrets.
func (r *Reconciler) setupAsync(mgr ctrl.Manager) {
	if r.opts.Async.secretData == nil {
		r.opts.Async.secretData = mgr.GetAPIReader()
	}
	if r.opts.Async.secretMeta == nil {
		r.opts.Async.secretMeta = mgr.GetCache()
	}
	r.opts.Async.source = &asyncSourceCache{}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &v1alpha1.AgentRuntime{}, indexAsync, asyncIndexValue); err != nil {
		// Only possible when the index exists already or the cache has
		// started: the source watch then logs its list error.
		mgr.GetLogger().Error(err, "indexing AgentRuntimes by async.enabled")
	}
}

// agentsForAsyncSecret maps a Secret event: the existingSecret to every
// agent with async on; an agent's copy to that agent; any other Secret to
// nothing.
func (r *Reconciler) agentsForAsyncSecret(ctx context.Context, o client.Object) []reconcile.Request {
	if src := r.opts.Async.ExistingSecret; src != nil && o.GetNamespace() == src.Namespace && o.GetName() == src.Name {
		return enqueue.Listed(ctx, r.client, &v1alpha1.AgentRuntimeList{}, "listing the AgentRuntimes with async on",
			client.MatchingFields{indexAsync: "true"})
	}
	ref := metav1.GetControllerOf(o)
	if ref == nil || ref.Kind != "AgentRuntime" || ref.APIVersion != v1alpha1.GroupVersion.String() ||
		o.GetName() != "agent-"+ref.Name+"-async-redis" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: ref.Name}}}
}

// setAsyncStatus sets AsyncInvocationReady: removed from an agent without
// async.enabled, left as it was when prepareAsync did not run, else from
// what it did (asyncCondition).
func setAsyncStatus(st *v1alpha1.AgentRuntimeStatus, ar *v1alpha1.AgentRuntime, in statusInput) {
	if !workload.AsyncEnabled(ar) {
		meta.RemoveStatusCondition(&st.Conditions, v1alpha1.AgentRuntimeConditionAsyncInvocationReady)
		return
	}
	if in.async == nil {
		return
	}
	conditions.Set(&st.Conditions, asyncCondition(*in.async, ar.Generation), in.now)
}

// asyncCondition is AsyncInvocationReady for an agent with async.enabled:
// True (AsyncQueueConfigured) when the facade is given the operator's
// queue; False QueueBackendMissing without a backend, QueueSecretUnavailable
// when the existingSecret or its url key is missing (or holds no Redis URL).
// Messages name Secrets, never the URL.
func asyncCondition(o asyncOutcome, gen int64) metav1.Condition {
	c := metav1.Condition{Type: v1alpha1.AgentRuntimeConditionAsyncInvocationReady, ObservedGeneration: gen}
	switch {
	case o.backend == asyncBackendNone:
		c.Status, c.Reason = metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonQueueBackendMissing
		c.Message = "the operator has no async queue backend (the chart's redis.default url, host or existingSecret): " +
			"the async routes answer 501; the operator never falls back to an in-process queue"
	case o.problem == asyncCredentialUnavailable:
		c.Status, c.Reason = metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonQueueCredentialUnavailable
		why := "the namespace's own Redis user could not be set up on the operator's Redis (" + o.credentialErr + ")"
		if o.keptCopy {
			c.Message = why + fmt.Sprintf(": the pods keep the URL copied earlier into Secret %s", o.copyName)
		} else {
			c.Message = why + ": async stays off in the pods and the async routes answer 501"
		}
	case o.backend == asyncBackendURL && o.tenantUser != "":
		c.Status, c.Reason = metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAsyncQueueConfigured
		c.Message = fmt.Sprintf("async invocations are queued on the operator's Redis (redis.default url or host) as the namespace's own Redis user %s, "+
			"whose URL is in Secret %s", o.tenantUser, o.copyName)
	case o.backend == asyncBackendURL:
		c.Status, c.Reason = metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAsyncQueueConfigured
		c.Message = "async invocations are queued on the operator's Redis (redis.default url or host)"
	case o.problem == asyncSourceOK && o.tenantUser != "":
		c.Status, c.Reason = metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAsyncQueueConfigured
		c.Message = fmt.Sprintf("async invocations are queued on the operator's Redis (the url of Secret %s) as the namespace's own Redis user %s, "+
			"whose URL is in Secret %s", o.source, o.tenantUser, o.copyName)
	case o.problem == asyncSourceOK:
		c.Status, c.Reason = metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAsyncQueueConfigured
		c.Message = fmt.Sprintf("async invocations are queued on the operator's Redis: the url of Secret %s is copied into Secret %s",
			o.source, o.copyName)
	default:
		c.Status, c.Reason = metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonQueueSecretUnavailable
		var why string
		switch o.problem {
		case asyncSourceNotFound:
			why = fmt.Sprintf("Secret %s (redis.default existingSecret, in the operator's namespace) does not exist", o.source)
		case asyncSourceKeyMissing:
			why = fmt.Sprintf("Secret %s (redis.default existingSecret) has no %q key, or it is empty", o.source, workload.RedisURLSecretKey)
		default:
			why = fmt.Sprintf("key %q of Secret %s (redis.default existingSecret) holds no redis:// or rediss:// URL with a host",
				workload.RedisURLSecretKey, o.source)
		}
		if o.keptCopy {
			c.Message = why + fmt.Sprintf(": the pods keep the URL copied earlier into Secret %s", o.copyName)
		} else {
			c.Message = why + ": async stays off in the pods and the async routes answer 501"
		}
	}
	return c
}

// prepareAsync runs before the Deployment is built: the async queue
// Secret copy, setting res.AsyncQueue. Without async.enabled it deletes the
// agent's copy, if any, and sets nothing.
func (r *Reconciler) prepareAsync(ctx context.Context, ar *v1alpha1.AgentRuntime, res *workload.Resolved, in *statusInput) error {
	o := r.opts.Async
	copyName := workload.AsyncRedisSecretName(ar)
	if !workload.AsyncEnabled(ar) {
		return r.deleteAsyncCopy(ctx, ar)
	}
	switch {
	case o.ExistingSecret != nil:
		out := asyncOutcome{backend: asyncBackendSecret, source: *o.ExistingSecret, copyName: copyName}
		u, problem, err := r.asyncSourceURL(ctx)
		if err != nil {
			return err
		}
		out.problem = problem
		if problem != asyncSourceOK {
			return r.keepAsyncCopy(ctx, ar, res, in, out)
		}
		return r.wireAsyncCopy(ctx, ar, res, in, u, out)
	case o.URL != "" && o.TenantCredentials != nil:
		// The namespace's own user has a password, which a literal
		// variable would show in the Deployment: it goes in the copy.
		return r.wireAsyncCopy(ctx, ar, res, in, o.URL, asyncOutcome{backend: asyncBackendURL, copyName: copyName})
	case o.URL != "":
		if err := r.deleteAsyncCopy(ctx, ar); err != nil {
			return err
		}
		res.AsyncQueue = &workload.AsyncQueue{URL: o.URL, KeyPrefix: redisacl.AsyncKeyPrefix(ar.Namespace)}
		in.async = &asyncOutcome{backend: asyncBackendURL}
	default:
		if err := r.deleteAsyncCopy(ctx, ar); err != nil {
			return err
		}
		in.async = &asyncOutcome{backend: asyncBackendNone}
	}
	return nil
}

// wireAsyncCopy writes the operator's URL u into the agent's copy, as the
// namespace's own Redis user when the operator gives each namespace one,
// and wires the facade to the copy. A user that cannot be set up is
// reported like a missing source: an earlier copy is kept.
func (r *Reconciler) wireAsyncCopy(ctx context.Context, ar *v1alpha1.AgentRuntime, res *workload.Resolved, in *statusInput, u string, out asyncOutcome) error {
	if tc := r.opts.Async.TenantCredentials; tc != nil {
		tenantURL, err := tc.TenantURL(ctx, u, ar.Namespace)
		if err != nil {
			out.problem, out.credentialErr = asyncCredentialUnavailable, err.Error()
			return r.keepAsyncCopy(ctx, ar, res, in, out)
		}
		u, out.tenantUser = tenantURL, redisacl.Username(ar.Namespace)
	}
	hash := asyncQueueDigest(ar, u)
	if err := r.writeAsyncCopy(ctx, ar, u, hash); err != nil {
		return err
	}
	res.AsyncQueue = &workload.AsyncQueue{SecretName: out.copyName, Hash: hash, KeyPrefix: redisacl.AsyncKeyPrefix(ar.Namespace)}
	in.async = &out
	return nil
}

// keepAsyncCopy keeps an earlier copy wired when the operator has no URL
// to write now: a source that is briefly missing (re-created by an
// upgrade) rolls no pod and stops no queue. Without one, async stays off
// in the pods.
func (r *Reconciler) keepAsyncCopy(ctx context.Context, ar *v1alpha1.AgentRuntime, res *workload.Resolved, in *statusInput, out asyncOutcome) error {
	live, err := r.asyncCopyMeta(ctx, ar)
	if err != nil {
		return err
	}
	if live != nil && ownedByAgent(live, ar) {
		out.keptCopy = true
		res.AsyncQueue = &workload.AsyncQueue{SecretName: out.copyName, Hash: live.GetAnnotations()[workload.AsyncQueueHashAnnotation],
			KeyPrefix: redisacl.AsyncKeyPrefix(ar.Namespace)}
	}
	in.async = &out
	return nil
}

// asyncQueueDigest is the hex SHA-256 of the URL salted with the agent's
// UID, cut to 128 bits: it changes when the URL does, and is not a bare
// hash of the URL that a table of common passwords could be matched
// against across agents.
func asyncQueueDigest(ar *v1alpha1.AgentRuntime, u string) string {
	h := sha256.New()
	h.Write([]byte(ar.UID))
	h.Write([]byte{0})
	h.Write([]byte(u))
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// isRedisURL reports whether v is a redis:// or rediss:// URL with a host,
// exactly as given (a trailing newline is not trimmed: the facade reads
// the value as it is).
func isRedisURL(v string) bool {
	u, err := url.Parse(v)
	return err == nil && (u.Scheme == "redis" || u.Scheme == "rediss") && u.Host != "" && strings.TrimSpace(v) == v
}

// asyncSourceCache remembers the source Secret's URL by resourceVersion.
type asyncSourceCache struct {
	mu              sync.Mutex
	resourceVersion string
	url             string
	problem         asyncSourceProblem
}

// asyncSourceURL reads the existingSecret's url key: from memory when the
// metadata cache holds the Secret at the resourceVersion last read, else
// through the API reader. problem says why there is no URL; err is a
// failed read (not "absent").
func (r *Reconciler) asyncSourceURL(ctx context.Context) (string, asyncSourceProblem, error) {
	key := *r.opts.Async.ExistingSecret
	c := r.opts.Async.source
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	if c != nil && r.secretMetaReader().Get(ctx, key, m) == nil {
		if u, p, ok := c.get(m.ResourceVersion); ok {
			return u, p, nil
		}
	}
	s := &corev1.Secret{}
	if err := r.secretDataReader().Get(ctx, key, s); err != nil {
		if apierrors.IsNotFound(err) {
			c.set("", "", asyncSourceNotFound)
			return "", asyncSourceNotFound, nil
		}
		return "", "", fmt.Errorf("reading the async queue Secret %s: %w", key, err)
	}
	u, problem := string(s.Data[workload.RedisURLSecretKey]), asyncSourceOK
	switch {
	case u == "":
		u, problem = "", asyncSourceKeyMissing
	case !isRedisURL(u):
		u, problem = "", asyncSourceNotARedisURL
	}
	c.set(s.ResourceVersion, u, problem)
	return u, problem, nil
}

// get is the URL remembered for resourceVersion rv.
func (c *asyncSourceCache) get(rv string) (string, asyncSourceProblem, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rv == "" || c.resourceVersion != rv {
		return "", "", false
	}
	return c.url, c.problem, true
}

// set remembers what the Secret at rv gave ("" rv: absent, nothing
// remembered). A nil cache remembers nothing.
func (c *asyncSourceCache) set(rv, u string, p asyncSourceProblem) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.resourceVersion, c.url, c.problem = rv, u, p
}

// secretDataReader and secretMetaReader are the group's Secret readers,
// the controller's client when setupAsync has not set them.
func (r *Reconciler) secretDataReader() client.Reader {
	if r.opts.Async.secretData != nil {
		return r.opts.Async.secretData
	}
	return r.client
}

func (r *Reconciler) secretMetaReader() client.Reader {
	if r.opts.Async.secretMeta != nil {
		return r.opts.Async.secretMeta
	}
	return r.client
}

// asyncCopyMeta is the agent's copy's metadata from the cache; nil when
// there is none.
func (r *Reconciler) asyncCopyMeta(ctx context.Context, ar *v1alpha1.AgentRuntime) (*metav1.PartialObjectMetadata, error) {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	err := r.secretMetaReader().Get(ctx, types.NamespacedName{Namespace: ar.Namespace, Name: workload.AsyncRedisSecretName(ar)}, m)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading Secret %s's metadata: %w", workload.AsyncRedisSecretName(ar), err)
	}
	return m, nil
}

// ownedByAgent reports whether the agent is o's controller.
func ownedByAgent(o metav1.Object, ar *v1alpha1.AgentRuntime) bool {
	ref := metav1.GetControllerOf(o)
	return ref != nil && ref.UID == ar.UID
}

// asyncCopy is the agent's Secret copy holding u under key url.
func asyncCopy(ar *v1alpha1.AgentRuntime, u, hash string) *corev1.Secret {
	s := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: workload.ObjectMeta(ar, workload.AsyncRedisSecretName(ar)),
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{workload.RedisURLSecretKey: []byte(u)},
	}
	s.Annotations = map[string]string{workload.AsyncQueueHashAnnotation: hash}
	return s
}

// writeAsyncCopy applies the agent's copy unless the cached metadata shows
// it holds the same URL (its digest), labels and owner already.
func (r *Reconciler) writeAsyncCopy(ctx context.Context, ar *v1alpha1.AgentRuntime, u, hash string) error {
	want := asyncCopy(ar, u, hash)
	live, err := r.asyncCopyMeta(ctx, ar)
	if err != nil {
		return err
	}
	if live != nil && live.GetAnnotations()[workload.AsyncQueueHashAnnotation] == hash && ownedByAgent(live, ar) && hasLabels(live.GetLabels(), want.Labels) {
		return nil
	}
	if err := r.applier().Apply(ctx, want); err != nil {
		// The API server's message names the object, never its data.
		return fmt.Errorf("applying Secret %s: %w", want.Name, err)
	}
	return nil
}

// hasLabels reports whether have holds every entry of want.
func hasLabels(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// deleteAsyncCopy deletes the agent's copy, if the cache shows one the
// agent controls (a Secret of that name someone else made is left alone).
func (r *Reconciler) deleteAsyncCopy(ctx context.Context, ar *v1alpha1.AgentRuntime) error {
	live, err := r.asyncCopyMeta(ctx, ar)
	if err != nil || live == nil || !ownedByAgent(live, ar) {
		return err
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ar.Namespace, Name: live.Name}}
	if err := r.client.Delete(ctx, s, client.Preconditions{UID: &live.UID}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting Secret %s: %w", live.Name, err)
	}
	return nil
}
