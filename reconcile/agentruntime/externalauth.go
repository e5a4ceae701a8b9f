package agentruntime

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/reconcile/oidcfetch"
	"github.com/altairalabs/omnia/reconcile/prober"
	"github.com/altairalabs/omnia/rules"
)

// External auth (agentruntime.md § externalAuth, § Client key Secret,
// § facades[].managementPlane; conditions ExternalAuth and OIDCJWKSReady).
//
//   - ExternalAuth is the effective data-plane authentication: the
//     validators the facades' external listeners run, in the order
//     clientKeys, oidc, edgeTrust. It is False (NoCallersAccepted) from the
//     agentruntime/facade-accepts-callers rule's finding: a facade with
//     managementPlane: false and no validator can accept no callers.
//   - With externalAuth.oidc, the issuer's JWKS is fetched in the
//     background (reconcile/prober; reconcile/oidcfetch: https only, the
//     egress guard, bounded bodies and time) and mirrored into the Secret
//     agent-<agent>-oidc-jwks (key jwks.json), refreshed every six hours.
//     A failed refresh keeps the last good JWKS (OIDCJWKSReady True,
//     JWKSStale). Reconcile never waits for the network: it submits the
//     fetch when due, reads the last result, and is re-enqueued when a
//     result is stored.
//   - "The facade does not start with oidc enabled until that Secret
//     exists": the facade's OMNIA_EXTERNAL_AUTH configuration lists oidc,
//     and the pod mounts the JWKS Secret, only once the Secret holds the
//     current issuer's JWKS (annotation OIDCIssuerAnnotation). Before that
//     the facade runs the other validators (or none: 401), so an oidc token
//     is refused rather than checked against nothing. The Secret appearing
//     changes the pod template once (a rollout); a refresh changes only the
//     Secret's data, which the kubelet updates in the mounted file.
//   - Client keys need nothing from the controller: the facade watches
//     the key Secrets itself (omniactl client-key mint writes one).

// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;patch;delete

// Names and keys of the JWKS Secret and the facade's configuration.
const (
	// OIDCIssuerAnnotation is the issuer (trailing slashes trimmed) whose
	// JWKS the Secret holds.
	OIDCIssuerAnnotation = "omnia.altairalabs.ai/oidc-issuer"
	// OIDCMirroredAtAnnotation is when the JWKS was fetched (RFC 3339).
	OIDCMirroredAtAnnotation = "omnia.altairalabs.ai/oidc-jwks-mirrored-at"
	// OIDCJWKSURIAnnotation is the jwks_uri it was fetched from.
	OIDCJWKSURIAnnotation = "omnia.altairalabs.ai/oidc-jwks-uri"
	// ComponentOIDCJWKS is LabelComponent's value on the JWKS Secret.
	ComponentOIDCJWKS = "oidc-jwks"

	// DefaultJWKSRefresh is how often a mirrored JWKS is fetched again.
	DefaultJWKSRefresh = 6 * time.Hour
	// oidcProberKind is the prober owner kind of the JWKS fetches.
	oidcProberKind = "AgentRuntimeOIDC"
	oidcProbe      = "jwks"
	// jwksRetryDropped is when a fetch the prober's full queue dropped is
	// submitted again.
	jwksRetryDropped = 30 * time.Second
)

// ExternalAuthOptions configure the group (cmd/omnia-operator sets them).
type ExternalAuthOptions struct {
	// Fetcher fetches issuers' JWKS. Nil: oidcfetch.New with the system
	// roots and the package's bounds.
	Fetcher *oidcfetch.Fetcher
	// Prober runs the fetches. Nil: a prober of the controller's own, on
	// Options.Clock, added to the manager.
	Prober *prober.Prober
	// RefreshInterval between two fetches of a mirrored JWKS. Default
	// DefaultJWKSRefresh (six hours, the spec's).
	RefreshInterval time.Duration

	// state is set up by setupExternalAuth.
	state *externalAuthState
}

// externalAuthState is what the group keeps between reconciles.
type externalAuthState struct {
	prober  *prober.Prober
	fetcher *oidcfetch.Fetcher
	// meta reads Secrets' metadata from the manager's cache (the operator
	// never caches Secret data).
	meta    client.Reader
	refresh time.Duration
	fetched *jwksStore

	// applied remembers the JWKS Secret each agent's last write made, so a
	// reconcile that runs before the metadata cache has seen the write does
	// not take the Secret for absent (and render the facade without oidc
	// for a moment). A deleted Secret's event forgets it.
	mu      sync.Mutex
	applied map[types.NamespacedName]appliedJWKS
}

// appliedJWKS is a JWKS Secret as the operator last wrote it.
type appliedJWKS struct {
	issuer, mirroredAt, jwksURI string
}

func (st *externalAuthState) setApplied(k types.NamespacedName, a *appliedJWKS) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if a == nil {
		delete(st.applied, k)
		return
	}
	st.applied[k] = *a
}

func (st *externalAuthState) appliedOf(k types.NamespacedName) (appliedJWKS, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	a, ok := st.applied[k]
	return a, ok
}

// jwksStore hands a fetched JWKS from the prober's job to the next
// reconcile, which writes it into the Secret and drops it: the prober
// stores only outcomes, and the operator keeps no key set in memory once
// it is mirrored.
type jwksStore struct {
	mu sync.Mutex
	m  map[types.NamespacedName]fetchedJWKS
}

type fetchedJWKS struct {
	issuer string
	jwks   *oidcfetch.JWKS
}

func (s *jwksStore) put(k types.NamespacedName, issuer string, j *oidcfetch.JWKS) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[k] = fetchedJWKS{issuer: issuer, jwks: j}
}

func (s *jwksStore) take(k types.NamespacedName, issuer string) *oidcfetch.JWKS {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.m[k]
	if !ok || f.issuer != issuer {
		return nil
	}
	delete(s.m, k)
	return f.jwks
}

func (s *jwksStore) forget(k types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, k)
}

// externalAuthOutcome is what the group's apply step did, for the status.
type externalAuthOutcome struct {
	// oidc is what was observed of the JWKS; nil without externalAuth.oidc.
	oidc *oidcObservation
	// refresh is the JWKS refresh interval.
	refresh time.Duration
}

// oidcObservation is everything OIDCJWKSReady is computed from.
type oidcObservation struct {
	// issuer is the trimmed issuer.
	issuer string
	// refused is set when the issuer URL is never fetched (not https, or a
	// literal blocked address).
	refused *oidcfetch.Error
	// secretExists: the Secret holds the current issuer's JWKS.
	secretExists bool
	// mirroredAt, jwksURI: the Secret's annotations.
	mirroredAt, jwksURI string
	// result is the last fetch of the current issuer; nil when none yet.
	result *prober.Result
}

// setupExternalAuth sets up the group's state: the JWKS fetcher, the
// prober that runs the fetches (added to mgr unless given), the refresh
// interval. SetupWithManager watches the JWKS Secrets (jwksSecretHandler),
// the prober's results and agent deletions (forgetJWKSOnDelete).
func (r *Reconciler) setupExternalAuth(mgr ctrl.Manager) *externalAuthState {
	o := &r.opts.ExternalAuth
	st := &externalAuthState{prober: o.Prober, fetcher: o.Fetcher, meta: mgr.GetCache(), refresh: o.RefreshInterval,
		fetched: &jwksStore{m: map[types.NamespacedName]fetchedJWKS{}}, applied: map[types.NamespacedName]appliedJWKS{}}
	if st.refresh <= 0 {
		st.refresh = DefaultJWKSRefresh
	}
	if st.fetcher == nil {
		st.fetcher = oidcfetch.New(oidcfetch.Options{})
	}
	if st.prober == nil {
		st.prober = prober.New(prober.Options{Clock: r.opts.Clock})
		if err := mgr.Add(st.prober); err != nil {
			// Without a running prober nothing is fetched: OIDCJWKSReady
			// stays JWKSPending, and the setup error is logged.
			ctrl.Log.WithName(ControllerName).Error(err, "adding the OIDC JWKS prober")
		}
	}
	o.state = st
	return st
}

// forgetJWKSOnDelete is an AgentRuntime event handler that acts on
// deletions only: the deleted agent's fetches are dropped from the prober,
// and its last fetch and write forgotten.
func forgetJWKSOnDelete(st *externalAuthState) handler.EventHandler {
	return handler.Funcs{
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			k := types.NamespacedName{Namespace: e.Object.GetNamespace(), Name: e.Object.GetName()}
			st.prober.Retain(prober.Owner{Kind: oidcProberKind, NamespacedName: k})
			st.fetched.forget(k)
			st.setApplied(k, nil)
		},
	}
}

// jwksSecretHandler enqueues the agent owning a changed JWKS Secret (its
// controller reference, and the name agent-<agent>-oidc-jwks), and forgets
// the agent's last write when the Secret is deleted.
func jwksSecretHandler(st *externalAuthState) handler.EventHandler {
	owner := func(o client.Object) (types.NamespacedName, bool) {
		ref := metav1.GetControllerOf(o)
		if ref == nil || ref.Kind != "AgentRuntime" || ref.APIVersion != v1alpha1.GroupVersion.String() ||
			o.GetName() != "agent-"+ref.Name+"-oidc-jwks" {
			return types.NamespacedName{}, false
		}
		return types.NamespacedName{Namespace: o.GetNamespace(), Name: ref.Name}, true
	}
	enqueue := func(o client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		if k, ok := owner(o); ok {
			q.Add(reconcile.Request{NamespacedName: k})
		}
	}
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(e.Object, q)
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(e.ObjectNew, q)
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if k, ok := owner(e.Object); ok {
				st.setApplied(k, nil)
				q.Add(reconcile.Request{NamespacedName: k})
			}
		},
	}
}

// setExternalAuthStatus sets ExternalAuth, and OIDCJWKSReady when
// externalAuth.oidc is set (removed otherwise).
func setExternalAuthStatus(st *v1alpha1.AgentRuntimeStatus, ar *v1alpha1.AgentRuntime, in statusInput) {
	gen := ar.Generation
	var obs *oidcObservation
	if in.externalAuth != nil {
		obs = in.externalAuth.oidc
	}
	conditions.Set(&st.Conditions, externalAuthCondition(ar, byCondition(in.findings, v1alpha1.AgentRuntimeConditionExternalAuth), obs, gen), in.now)
	switch {
	case ar.Spec.ExternalAuth == nil || ar.Spec.ExternalAuth.OIDC == nil:
		meta.RemoveStatusCondition(&st.Conditions, v1alpha1.AgentRuntimeConditionOIDCJWKSReady)
	case obs != nil:
		conditions.Set(&st.Conditions, oidcJWKSCondition(*obs, in.refreshInterval(), gen), in.now)
	}
}

// refreshInterval is the JWKS refresh interval the outcome was computed
// with (DefaultJWKSRefresh when the step did not run).
func (in statusInput) refreshInterval() time.Duration {
	if in.externalAuth != nil && in.externalAuth.refresh > 0 {
		return in.externalAuth.refresh
	}
	return DefaultJWKSRefresh
}

// externalAuthCondition is ExternalAuth: False from the
// agentruntime/facade-accepts-callers findings; True otherwise, naming the
// external chain (ExternalAuthConfigured) or saying it is empty and only
// the management plane admits callers (ManagementPlaneOnly). obs, when the
// oidc validator waits for its JWKS Secret, adds that to the message.
func externalAuthCondition(ar *v1alpha1.AgentRuntime, findings []rules.Finding, obs *oidcObservation, gen int64) metav1.Condition {
	validators := rules.AgentRuntimeExternalValidators(ar)
	okReason := v1alpha1.AgentRuntimeReasonManagementPlaneOnly
	okMessage := "no externalAuth validator: every external listener answers 401, and callers reach the agent over the management plane"
	if len(validators) > 0 {
		okReason = v1alpha1.AgentRuntimeReasonExternalAuthConfigured
		okMessage = "external listeners run " + strings.Join(validators, ", ")
		if ar.Spec.ExternalAuth.OIDC != nil && (obs == nil || !obs.secretExists) {
			okMessage += "; oidc is enabled in the facade once the JWKS Secret " + workload.OIDCJWKSSecretName(ar) + " exists (see OIDCJWKSReady)"
		}
	}
	return conditions.FromFindings(v1alpha1.AgentRuntimeConditionExternalAuth, findings, okReason, okMessage,
		v1alpha1.AgentRuntimeReasonNoCallersAccepted, gen)
}

// oidcJWKSCondition is OIDCJWKSReady.
//
//   - True JWKSMirrored: the last fetch of the current issuer succeeded,
//     or (after an operator restart, before the next fetch) the Secret
//     holds the issuer's JWKS;
//   - True JWKSStale: the last refresh failed and the Secret keeps the last
//     good JWKS;
//   - False IssuerNotHTTPS: the issuer or its jwks_uri is not https;
//   - False JWKSInvalid / JWKSFetchFailed: the fetch failed and no JWKS was
//     ever mirrored; the message names the URL and the error class;
//   - False JWKSPending: not fetched yet.
func oidcJWKSCondition(obs oidcObservation, refresh time.Duration, gen int64) metav1.Condition {
	c := metav1.Condition{Type: v1alpha1.AgentRuntimeConditionOIDCJWKSReady, ObservedGeneration: gen}
	if e := obs.refused; e != nil {
		c.Status, c.Reason = metav1.ConditionFalse, failedReason(e.Class)
		c.Message = conditions.Truncate(fmt.Sprintf("issuer %q is not fetched (%s): %s", obs.issuer, e.Class, e.Detail), 1024)
		return c
	}
	res := obs.result
	switch {
	case res != nil && res.Failure == "":
		c.Status, c.Reason = metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonJWKSMirrored
		c.Message = fmt.Sprintf("the JWKS of %s (%s) is mirrored; refreshed every %s", obs.issuer, res.Detail, refresh)
	case res != nil && obs.secretExists:
		c.Status, c.Reason = metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonJWKSStale
		c.Message = fmt.Sprintf("refreshing the JWKS of %s failed (%s): %s; the Secret keeps the JWKS fetched at %s",
			obs.issuer, res.Failure, res.Detail, obs.mirroredAt)
	case res != nil:
		c.Status, c.Reason = metav1.ConditionFalse, failedReason(oidcfetch.Class(res.Failure))
		c.Message = fmt.Sprintf("fetching the JWKS of %s failed (%s): %s", obs.issuer, res.Failure, res.Detail)
	case obs.secretExists:
		c.Status, c.Reason = metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonJWKSMirrored
		c.Message = fmt.Sprintf("the JWKS of %s fetched at %s from %s is mirrored; refreshed every %s", obs.issuer, obs.mirroredAt, obs.jwksURI, refresh)
	default:
		c.Status, c.Reason = metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonJWKSPending
		c.Message = fmt.Sprintf("the JWKS of %s is not fetched yet; the facade starts without oidc until it is mirrored", obs.issuer)
	}
	c.Message = conditions.Truncate(c.Message, 1024)
	return c
}

// failedReason is the OIDCJWKSReady False reason of a failure class.
func failedReason(class oidcfetch.Class) string {
	switch class {
	case oidcfetch.ClassNotHTTPS:
		return v1alpha1.AgentRuntimeReasonIssuerNotHTTPS
	case oidcfetch.ClassInvalidJWKS, oidcfetch.ClassBadDiscovery:
		return v1alpha1.AgentRuntimeReasonJWKSInvalid
	default:
		return v1alpha1.AgentRuntimeReasonJWKSFetchFailed
	}
}

// prepareExternalAuth runs before the Deployment is built: it mirrors a
// fetched JWKS into the Secret, submits the fetch when due (never waiting
// for it), deletes the Secret once oidc is removed, and sets
// res.OIDCJWKSSecret when the Secret holds the current issuer's JWKS.
func (r *Reconciler) prepareExternalAuth(ctx context.Context, ar *v1alpha1.AgentRuntime, res *workload.Resolved, in *statusInput) error {
	st := r.opts.ExternalAuth.state
	out := &externalAuthOutcome{}
	in.externalAuth = out
	k := types.NamespacedName{Namespace: ar.Namespace, Name: ar.Name}
	owner := prober.Owner{Kind: oidcProberKind, NamespacedName: k}
	var oidc *v1alpha1.AgentRuntimeOIDC
	if ar.Spec.ExternalAuth != nil {
		oidc = ar.Spec.ExternalAuth.OIDC
	}
	if st == nil {
		return nil
	}
	out.refresh = st.refresh
	secret, err := r.jwksSecretMeta(ctx, ar, st)
	if err != nil {
		return err
	}
	if oidc == nil {
		st.prober.Retain(owner)
		st.fetched.forget(k)
		st.setApplied(k, nil)
		if secret != nil && metav1.IsControlledBy(secret, ar) {
			if err := r.client.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: secret.Name, Namespace: secret.Namespace}},
				client.Preconditions{UID: &secret.UID}); client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("deleting the JWKS Secret %s: %w", secret.Name, err)
			}
		}
		return nil
	}
	issuer := strings.TrimRight(oidc.Issuer, "/")
	obs := &oidcObservation{issuer: issuer}
	out.oidc = obs
	if secret != nil && metav1.IsControlledBy(secret, ar) && secret.Annotations[OIDCIssuerAnnotation] == issuer {
		obs.secretExists = true
		obs.mirroredAt, obs.jwksURI = secret.Annotations[OIDCMirroredAtAnnotation], secret.Annotations[OIDCJWKSURIAnnotation]
	}
	if a, ok := st.appliedOf(k); ok && a.issuer == issuer && (!obs.secretExists || a.mirroredAt > obs.mirroredAt) {
		// Written by this operator, not yet (or not newly) in the cache.
		obs.secretExists, obs.mirroredAt, obs.jwksURI = true, a.mirroredAt, a.jwksURI
	}
	if e := oidcfetch.CheckURL(oidcfetch.DiscoveryURL(issuer)); e != nil {
		st.prober.Retain(owner)
		obs.refused, obs.secretExists = e, false
		return nil
	}
	st.prober.Retain(owner, oidcProbe)
	key := prober.Key{Owner: owner, Probe: oidcProbe}
	now := r.opts.Clock.Now()
	var last time.Time
	if result, found := st.prober.Result(key); found && result.Fingerprint == issuer {
		obs.result = &result
		if result.Failure == "" {
			last = result.At
			if j := st.fetched.take(k, issuer); j != nil {
				if err := r.applyJWKSSecret(ctx, ar, issuer, j, result.At); err != nil {
					return err
				}
				a := appliedJWKS{issuer: issuer, mirroredAt: result.At.UTC().Format(time.RFC3339), jwksURI: j.URI}
				st.setApplied(k, &a)
				obs.secretExists, obs.mirroredAt, obs.jwksURI = true, a.mirroredAt, a.jwksURI
			} else if !obs.secretExists {
				// The Secret went away (deleted by hand) after its JWKS was
				// written: fetch again now.
				last = time.Time{}
			}
		}
	} else if obs.secretExists {
		// After a restart: the Secret's fetch time says when the next is due.
		if t, err := time.Parse(time.RFC3339, obs.mirroredAt); err == nil {
			last = t
		}
	}
	if obs.secretExists {
		res.OIDCJWKSSecret = workload.OIDCJWKSSecretName(ar)
	}
	if !last.IsZero() {
		if wait := last.Add(st.refresh).Sub(now); wait > 0 {
			in.requeue.After(wait)
			return nil
		}
	}
	sub := st.prober.Submit(jwksJob(key, issuer, st))
	switch sub.State {
	case prober.BackingOff:
		in.requeue.After(max(sub.NotBefore.Sub(now), time.Second))
	case prober.Dropped:
		in.requeue.After(jwksRetryDropped)
	}
	return nil
}

// jwksJob is the prober job fetching issuer's JWKS into st.fetched.
func jwksJob(key prober.Key, issuer string, st *externalAuthState) prober.Job {
	host := issuer
	if u, err := url.Parse(issuer); err == nil {
		host = u.Host
	}
	return prober.Job{Key: key, Fingerprint: issuer, Host: host, Timeout: oidcfetch.DefaultTimeout + 5*time.Second,
		Run: func(ctx context.Context) prober.Outcome {
			j, err := st.fetcher.Fetch(ctx, issuer)
			if err != nil {
				var fe *oidcfetch.Error
				if errors.As(err, &fe) {
					return prober.Outcome{Failure: string(fe.Class), Detail: fe.URL + ": " + fe.Detail}
				}
				return prober.Outcome{Failure: string(oidcfetch.ClassConnection), Detail: err.Error()}
			}
			st.fetched.put(key.NamespacedName, issuer, j)
			return prober.Outcome{StatusCode: 200, Detail: fmt.Sprintf("%d keys from %s", j.Keys, j.URI)}
		}}
}

// jwksSecretMeta reads the JWKS Secret's metadata from the cache; nil when
// there is none.
func (r *Reconciler) jwksSecretMeta(ctx context.Context, ar *v1alpha1.AgentRuntime, st *externalAuthState) (*metav1.PartialObjectMetadata, error) {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	err := st.meta.Get(ctx, client.ObjectKey{Namespace: ar.Namespace, Name: workload.OIDCJWKSSecretName(ar)}, m)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading the JWKS Secret's metadata: %w", err)
	}
	return m, nil
}

// JWKSSecret builds the agent's JWKS Secret: operator labels, owned by the
// agent, the key set under OIDCJWKSKey and the issuer, jwks_uri and fetch
// time as annotations.
func JWKSSecret(ar *v1alpha1.AgentRuntime, issuer string, j *oidcfetch.JWKS, at time.Time) *corev1.Secret {
	m := workload.ObjectMeta(ar, workload.OIDCJWKSSecretName(ar))
	m.Labels[workload.LabelComponent] = ComponentOIDCJWKS
	m.Annotations = map[string]string{
		OIDCIssuerAnnotation:     issuer,
		OIDCJWKSURIAnnotation:    j.URI,
		OIDCMirroredAtAnnotation: at.UTC().Format(time.RFC3339),
	}
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: m,
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{workload.OIDCJWKSKey: j.Data},
	}
}

// applyJWKSSecret server-side applies the JWKS Secret.
func (r *Reconciler) applyJWKSSecret(ctx context.Context, ar *v1alpha1.AgentRuntime, issuer string, j *oidcfetch.JWKS, at time.Time) error {
	s := JWKSSecret(ar, issuer, j, at)
	if err := r.applier().Apply(ctx, s); err != nil {
		return fmt.Errorf("applying the JWKS Secret %s: %w", s.Name, err)
	}
	return nil
}
