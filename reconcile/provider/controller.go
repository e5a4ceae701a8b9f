// Package provider is the Provider controller (provider.md#status-fields). It
// reads facts from the manager's cache, asks the rule catalog for findings
// (rules.Full: the CRD's schema rules and the Go rules, admission and
// reconcile stages, so an object that got in with the webhook off is still
// reported), turns them into conditions with the conditions package, adds
// what only the controller can observe — whether the Secret's value is a
// placeholder, the vendor's verdict on the credential, whether the endpoint
// answers — and writes the status once per reconcile, and not at all when
// nothing changed.
//
// The credential value is read from the Secret only to classify it
// (MatchPlaceholder) and to send it in the vendor probe (CredentialProbes). It
// is never logged, stored in status or emitted in an event.
//
// Egress: the vendor probe sends the credential only over https and only to
// the vendor's default host or a host the operator allows
// (--credential-probe-hosts); otherwise no request is made and
// CredentialValid is Unknown with v1alpha1.ProviderReasonCredentialProbeInsecure or
// v1alpha1.ProviderReasonCredentialProbeHostNotAllowed. --credential-probe=off makes no vendor
// request at all (v1alpha1.ProviderReasonCredentialProbeDisabled, v1alpha1.ProviderReasonEndpointProbeDisabled).
// Every request goes through netguard's transport, which never dials a
// link-local or cloud-metadata address (v1alpha1.ProviderReasonAddressNotAllowed). See Egress.
//
// Probes run outside Reconcile, on the operator-wide prober
// (reconcile/prober; see async.go): Reconcile submits the endpoint health
// check and the credential probe when they are due and computes the
// conditions from the results the prober stored. Until a probe's first
// result for the current spec and Secret, its condition keeps the value it
// had for this generation (after a restart or a leader change, or a Secret
// edit) or, without one, is Unknown with reason ProbePending. The credential
// value reaches the prober only inside the job's closure, in memory; results
// hold the status code, failure reason and detail. A probe the egress
// policy withholds is never submitted.
//
// Endpoint grace: EndpointReachable's lastTransitionTime records when the
// health-check failures began (conditions.Set keeps it while the condition
// stays False). For UnavailableAfter (5 minutes) from then, Ready stays True
// with reason EndpointProbeFailing and the phase Ready; after that Ready is
// False with the failure's reason and the phase Unavailable. The check is
// repeated every HealthCheckInterval (30 seconds).
package provider

import (
	"context"
	"fmt"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/reconcile/enqueue"
	"github.com/altairalabs/omnia/reconcile/internal/requeue"
	"github.com/altairalabs/omnia/reconcile/internal/statuswrite"
	"github.com/altairalabs/omnia/reconcile/policycheck"
	"github.com/altairalabs/omnia/reconcile/prober"
	"github.com/altairalabs/omnia/reconcile/transitions"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
)

// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=providers,verbs=get;list;watch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=providers/status,verbs=get;patch
// Secrets: the controller watches Secrets as metadata only (a
// PartialObjectMetadata informer, so a Secret's change re-reconciles the
// Providers naming it without the operator ever holding Secret data
// cluster-wide), and reads the data of the one Secret a Provider names with
// an uncached get (the manager's APIReader). A metadata-only list and watch
// is still a list and watch on "secrets" to the API server's authorizer —
// RBAC has no separate verb for metadata — so list;watch here serve that
// informer alone, and get serves the direct read. The manager's cache is
// configured never to cache Secrets with their data (client.CacheOptions
// DisableFor in cmd/omnia-operator), so no other code path can open a
// full-object Secret informer with these verbs.
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// ControllerName names the controller and is the reportingController of its
// events.
const ControllerName = "provider-controller"

// SecretNameIndex is the field index on Providers holding the names of the
// Secrets a Provider reads (spec.credential.secretRef.name and
// spec.auth.credentialsSecretRef.name), so a Secret's change maps to the
// Providers that reference it.
const SecretNameIndex = "spec.credential.secretRef.name"

// Options configure the controller. Zero values take the defaults.
type Options struct {
	// Common are the clock, licence, workers and test switch every
	// controller takes (default workers: 4).
	ctrlopts.Common
	// HTTPClient sends the probes. Default: a client with netguard's
	// transport (no link-local or cloud-metadata address, no proxy).
	// Redirects are never followed, whatever the client says.
	HTTPClient *http.Client
	// Egress is the vendor egress policy (--credential-probe,
	// --credential-probe-hosts). Default: probes on, credentials only to the
	// vendors' default hosts.
	Egress Egress
	// Prober runs the probes outside Reconcile. SetupWithManager creates
	// one (with Clock) and adds it to the manager when it is nil; the
	// operator passes the one its controllers share. NewReconciler's caller
	// must start the one it passes.
	Prober *prober.Prober
	// ProbeTimeout bounds each probe request. Default 10s.
	ProbeTimeout time.Duration
	// HealthCheckInterval is how often the endpoint is re-checked (and a
	// transient credential validation error retried). Default 30s.
	HealthCheckInterval time.Duration
	// UnavailableAfter is how long the endpoint may fail before Ready turns
	// False and the phase Unavailable. Default 5m.
	UnavailableAfter time.Duration
	// CredentialRecheckInterval is how long a vendor's verdict on an
	// unchanged credential (same Provider generation, same Secret
	// resourceVersion) is reused before the credential is probed again.
	// Default 10m.
	CredentialRecheckInterval time.Duration
	// DefaultEndpoints are the vendor endpoints used without spec.baseURL.
	// Default: DefaultEndpoints.
	DefaultEndpoints map[v1alpha1.ProviderType]string
	// Policies are the platform team's policies in force (the operator's
	// policies.Store): their rules for Provider set policy conditions
	// (policycheck), and a change re-reconciles every Provider. Nil: no
	// policies.
	Policies policycheck.Policies
	// SecretReader reads the Secret a Provider names. SetupWithManager
	// defaults it to the manager's APIReader (uncached: Secrets are watched
	// as metadata only and never cached with their data); NewReconciler
	// defaults it to its client.
	SecretReader client.Reader
}

func (o Options) withDefaults() Options {
	o.Common = o.Common.WithDefaults(4)
	ctrlopts.Default(&o.ProbeTimeout, 10*time.Second)
	ctrlopts.Default(&o.HealthCheckInterval, 30*time.Second)
	ctrlopts.Default(&o.UnavailableAfter, 5*time.Minute)
	ctrlopts.Default(&o.CredentialRecheckInterval, 10*time.Minute)
	if o.DefaultEndpoints == nil {
		o.DefaultEndpoints = DefaultEndpoints
	}
	return o
}

// Reconciler reconciles Providers.
type Reconciler struct {
	client client.Client
	// secrets reads the Secret a Provider names, uncached.
	secrets  client.Reader
	mapper   meta.RESTMapper
	recorder events.EventRecorder
	schema   *schema.Validator
	prober   *Prober
	probes   *prober.Prober
	opts     Options
}

// NewReconciler returns a Reconciler reading and writing through c (the
// manager's client: reads come from its cache), resolving optional CRDs with
// mapper and emitting events with recorder (events.k8s.io; nil emits none).
func NewReconciler(c client.Client, mapper meta.RESTMapper, recorder events.EventRecorder, opts Options) (*Reconciler, error) {
	sv, err := schema.Default()
	if err != nil {
		return nil, fmt.Errorf("provider controller: compiling the CRD schemas: %w", err)
	}
	opts = opts.withDefaults()
	if opts.Prober == nil {
		return nil, fmt.Errorf("provider controller: no prober")
	}
	secrets := opts.SecretReader
	if secrets == nil {
		secrets = c
	}
	return &Reconciler{
		client:   c,
		secrets:  secrets,
		mapper:   mapper,
		recorder: recorder,
		schema:   sv,
		prober:   NewProber(opts.HTTPClient, opts.ProbeTimeout),
		probes:   opts.Prober,
		opts:     opts,
	}, nil
}

// SetupWithManager registers the controller: it reconciles Providers on a
// spec change and whenever a Secret they reference is created, edited or
// deleted.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &v1alpha1.Provider{}, SecretNameIndex, secretNames); err != nil {
		return fmt.Errorf("provider controller: indexing %s: %w", SecretNameIndex, err)
	}
	if opts.SecretReader == nil {
		opts.SecretReader = mgr.GetAPIReader()
	}
	if opts.Prober == nil {
		opts.Prober = prober.New(prober.Options{Clock: opts.Clock})
		if err := mgr.Add(opts.Prober); err != nil {
			return fmt.Errorf("provider controller: adding the prober: %w", err)
		}
	}
	r, err := NewReconciler(mgr.GetClient(), mgr.GetRESTMapper(), mgr.GetEventRecorder(ControllerName), opts)
	if err != nil {
		return err
	}
	copts := r.opts.Controller()
	b := ctrl.NewControllerManagedBy(mgr).
		Named("provider").
		For(&v1alpha1.Provider{}, builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{},
			policycheck.Relabelled(opts.Policies, "Provider")))).
		// Metadata only: a change to any Secret bumps its resourceVersion,
		// which is all the mapping needs; the data is read on reconcile.
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.providersForSecret), builder.OnlyMetadata).
		// Each stored probe result reconciles its Provider.
		WatchesRawSource(source.Channel(r.probes.Events(ProberKind), &handler.EnqueueRequestForObject{}))
	return policycheck.Watch(b, opts.Policies, "Provider", r.client, func() client.ObjectList { return &v1alpha1.ProviderList{} }).
		WithOptions(copts).
		Complete(r)
}

// secretNames is the SecretNameIndex function.
func secretNames(obj client.Object) []string {
	p, ok := obj.(*v1alpha1.Provider)
	if !ok {
		return nil
	}
	var names []string
	if ref := secretRefOf(p); ref != nil && ref.Name != "" {
		names = append(names, ref.Name)
	}
	if a := p.Spec.Auth; a != nil && a.CredentialsSecretRef != nil && a.CredentialsSecretRef.Name != "" {
		if len(names) == 0 || names[0] != a.CredentialsSecretRef.Name {
			names = append(names, a.CredentialsSecretRef.Name)
		}
	}
	return names
}

// providersForSecret maps a Secret to the Providers in its namespace that
// reference it.
func (r *Reconciler) providersForSecret(ctx context.Context, obj client.Object) []reconcile.Request {
	return enqueue.Listed(ctx, r.client, &v1alpha1.ProviderList{}, "listing the Providers referencing Secret "+obj.GetNamespace()+"/"+obj.GetName(),
		client.InNamespace(obj.GetNamespace()), client.MatchingFields{SecretNameIndex: obj.GetName()})
}

// Reconcile computes the Provider's status and writes it when it changed.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	p := &v1alpha1.Provider{}
	if err := r.client.Get(ctx, req.NamespacedName, p); err != nil {
		if apierrors.IsNotFound(err) {
			r.probes.Retain(prober.Owner{Kind: ProberKind, NamespacedName: req.NamespacedName}) // forget its results
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	if !p.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}

	obs, err := r.observe(ctx, p)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		// Shutting down: a probe cut short says nothing about the vendor.
		return ctrl.Result{}, err
	}
	now := metav1.NewTime(r.opts.Clock.Now()).Rfc3339Copy()
	st := computeStatus(p, obs, now, r.opts.UnavailableAfter)

	old := p.Status
	wrote, err := statuswrite.Patch(ctx, r.client, p, &p.Status, st)
	if err != nil {
		return ctrl.Result{}, err
	}
	if wrote {
		log.V(1).Info("status updated", "phase", st.Phase)
		transitions.Emit(r.recorder, p, old.Conditions, st.Conditions)
	}
	var after requeue.Earliest
	after.After(r.requeueAfter(&st, now))
	after.After(obs.probeWait)
	return after.Result(), nil
}

// observe gathers the facts and findings, reads the probes' stored results
// and submits the due probes (it never waits for one).
func (r *Reconciler) observe(ctx context.Context, p *v1alpha1.Provider) (observation, error) {
	facts := clusterfacts.New(ctx, r.client, r.secrets, r.mapper, r.opts.License)
	findings, err := Evaluate(ctx, r.schema, p, facts)
	if err != nil {
		return observation{}, err
	}
	if err := facts.Err(); err != nil {
		// A lookup could not be made (cache not synced, Forbidden, context
		// cancelled): a finding such as SecretNotFound may be false. Write no
		// status and emit no event from it; the reconcile retries.
		return observation{}, fmt.Errorf("evaluating rules: %w", err)
	}
	obs := observation{findings: findings}
	if obs.policy, err = policycheck.Evaluate(policycheck.Catalog(r.opts.Policies), "Provider", p, facts); err != nil {
		return observation{}, err
	}
	if err := facts.Err(); err != nil {
		return observation{}, fmt.Errorf("evaluating policy rules: %w", err)
	}

	var value []byte
	var secretID string
	if ref := secretRefOf(p); ref != nil {
		if keys, found := facts.SecretKeys(p.Namespace, ref.Name); found {
			if key, ok, _ := rules.ProviderSecretKey(p, keys); ok {
				secret := &corev1.Secret{}
				if err := r.secrets.Get(ctx, client.ObjectKey{Namespace: p.Namespace, Name: ref.Name}, secret); err != nil {
					return observation{}, fmt.Errorf("reading the credential Secret %s: %w", ref.Name, err)
				}
				obs.secretKey = key
				value = secret.Data[key]
				secretID = string(secret.UID) + "@" + secret.ResourceVersion
			}
		}
		if err := facts.Err(); err != nil {
			return observation{}, fmt.Errorf("looking up the credential Secret: %w", err)
		}
	}

	owner := probeOwner(p)
	var probes []string
	g := groupFindings(findings)
	w := r.opts.Egress.decide(p, r.opts.DefaultEndpoints)
	if secretCredentialUsable(p, g, obs.secretKey) {
		if probe, base, ok := ProbeFor(p, r.opts.DefaultEndpoints); ok {
			if obs.credential = w.credential; obs.credential == nil {
				probes = append(probes, probeCredential)
				secret := fmt.Sprintf("%s/%d/%s/%s", p.UID, p.Generation, secretID, obs.secretKey)
				read := r.read(r.credentialJob(owner, probe, base, p.Spec.Headers, value, secret), r.credentialFreshness)
				obs.credential, obs.credentialPending = read.outcome, read.outcome == nil
				obs.waitAtMost(read.wait)
			}
		}
	}
	if endpoint, ok := EndpointFor(p, r.opts.DefaultEndpoints); ok {
		if obs.endpoint = w.endpoint; obs.endpoint == nil {
			probes = append(probes, probeEndpoint)
			read := r.read(r.endpointJob(owner, endpoint, p.Spec.Headers), r.endpointFreshness)
			obs.endpoint, obs.endpointPending = read.outcome, read.outcome == nil
			obs.waitAtMost(read.wait)
		}
	}
	// A probe the Provider no longer needs is forgotten.
	r.probes.Retain(owner, probes...)
	return obs, nil
}

// requeueAfter is when the Provider is looked at again without an event: the
// next health check, the end of the endpoint grace, the retry of a transient
// credential validation error, or the credential recheck.
func (r *Reconciler) requeueAfter(st *v1alpha1.ProviderStatus, now metav1.Time) time.Duration {
	var after requeue.Earliest
	consider := after.After
	// An Unknown EndpointReachable is a check the egress policy withheld:
	// nothing to repeat until the Provider changes.
	if e := meta.FindStatusCondition(st.Conditions, v1alpha1.ProviderConditionEndpointReachable); e != nil && e.Status != metav1.ConditionUnknown {
		consider(r.opts.HealthCheckInterval)
		if e.Status == metav1.ConditionFalse {
			consider(e.LastTransitionTime.Add(r.opts.UnavailableAfter + time.Second).Sub(now.Time))
		}
	}
	if c := meta.FindStatusCondition(st.Conditions, v1alpha1.ProviderConditionCredentialValid); c != nil {
		switch c.Reason {
		case v1alpha1.ProviderReasonCredentialValidationError:
			consider(r.opts.HealthCheckInterval)
		case v1alpha1.ProviderReasonCredentialAccepted, v1alpha1.ProviderReasonCredentialRejected:
			consider(r.opts.CredentialRecheckInterval)
		}
	}
	return after.Duration()
}

// Evaluate returns every rule finding on the Provider, as omniactl check and
// the webhook would report them: the CRD's schema rules run offline with the
// API server's validators (so ModelMissing is reported on a Provider stored
// before provider/model-required) and the Go rules of both stages, with facts
// answered by facts.
func Evaluate(ctx context.Context, sv *schema.Validator, p *v1alpha1.Provider, facts rules.Facts) ([]rules.Finding, error) {
	return rules.FullStored(ctx, sv, "Provider", p, facts)
}
