// Package toolregistry is the ToolRegistry controller. Each reconcile reads
// the registry, asks the rule catalog for its findings (rules.Evaluate, every
// stage and severity, with facts from the manager's cache: an object can get
// in with the webhook off), resolves its tools, probes their endpoints when
// spec.probe is on, counts the ToolPolicies selecting it, and computes the
// status in memory: discoveredTools, discoveredToolsCount,
// lastDiscoveryTime, contentDigest, policyCount, phase and the conditions
// Ready, Degraded, HandlersValid, ToolsDiscovered and PolicyBound (plus
// SandboxesValid and HandlerConnectionsValid when the registry has a sandbox
// or a connectionRef handler, or a rule reports them). The
// status is written once, with a merge patch, and not at all when nothing
// changed. No rule is written here: findings come from rules/, conditions
// from conditions/.
//
// Tool statuses are configuration-level unless spec.probe.enabled: a tool is
// Available when its handler passed validation (its endpoint is resolved
// from the config; nothing is contacted). With probing, each network
// endpoint is TCP-dialled every spec.probe.interval with spec.probe.timeout;
// client, platform and sandbox tools have no address and are never dialled,
// nor is the endpoint of a handler that failed validation. A round that
// finds every tool as the status says writes nothing: a tool's lastChecked
// is when its result last changed, and the latest probe's time stays in the
// prober, which schedules the next round from it.
//
// The dials never run in Reconcile: it submits the due ones to the
// operator-wide prober (reconcile/prober: a bounded pool, per-host and
// per-namespace limits, backoff) and computes the tools' statuses from the
// results the prober stored. Each new result is announced on the prober's
// channel source and reconciles the registry again. Until its first result a
// probed tool is Unknown ("not probed yet") and the registry Pending. An
// address that keeps failing backs off exponentially up to the larger of
// its interval and 60s; no address is dialled more than once a second.
package toolregistry

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/reconcile/enqueue"
	"github.com/altairalabs/omnia/reconcile/internal/statuswrite"
	"github.com/altairalabs/omnia/reconcile/netguard"
	"github.com/altairalabs/omnia/reconcile/policycheck"
	"github.com/altairalabs/omnia/reconcile/prober"
	"github.com/altairalabs/omnia/rules"
)

// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=toolregistries,verbs=get;list;watch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=toolregistries/status,verbs=get;patch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=toolpolicies,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// ControllerName names the controller, its event recorder
// (reportingController) and its logger.
const ControllerName = "toolregistry-controller"

// Options configure the controller. The zero value is production's.
type Options struct {
	// Common are the clock, licence, workers and test switch every
	// controller takes (default workers: 2).
	ctrlopts.Common
	// Dialer opens probe connections. Defaults to netguard's dialer, which
	// refuses link-local and cloud-metadata addresses after DNS resolution,
	// for every handler type.
	Dialer Dialer
	// Prober runs the probes. Default: a prober of this controller's own,
	// with the prober package's defaults, added to the manager. The operator
	// passes the one it shares between controllers.
	Prober *prober.Prober
	// DefaultProbeInterval and DefaultProbeTimeout apply when spec.probe
	// leaves them empty. Default 60s and 5s (the CRD's).
	DefaultProbeInterval, DefaultProbeTimeout time.Duration
	// CRDCheckInterval is how often the ToolPolicy CRD is re-checked
	// through discovery. Default 30s.
	CRDCheckInterval time.Duration
	// Policies are the platform team's ValidationPolicies in force (the
	// operator's policies.Store): their rules for ToolRegistry set policy
	// conditions (policycheck), and a change re-reconciles every registry.
	// Nil: no policies.
	Policies policycheck.Policies
}

func (o Options) withDefaults() Options {
	o.Common = o.Common.WithDefaults(2)
	if o.Dialer == nil {
		o.Dialer = netguard.NewDialer(nil)
	}
	ctrlopts.Default(&o.DefaultProbeInterval, DefaultProbeInterval)
	ctrlopts.Default(&o.DefaultProbeTimeout, DefaultProbeTimeout)
	ctrlopts.Default(&o.CRDCheckInterval, DefaultCRDCheckInterval)
	return o
}

// Reconciler reconciles ToolRegistries.
type Reconciler struct {
	client client.Client
	// secrets reads Secrets uncached (the manager's APIReader): the
	// operator caches Secrets as metadata only.
	secrets  client.Reader
	mapper   meta.RESTMapper
	recorder events.EventRecorder
	policies *policyCRD
	prober   *prober.Prober
	opts     Options
}

// SetupWithManager registers the controller, its watches and the ToolPolicy
// CRD re-check with mgr.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	opts = opts.withDefaults()
	dc, err := discovery.NewDiscoveryClientForConfig(mgr.GetConfig())
	if err != nil {
		return fmt.Errorf("toolregistry: discovery client: %w", err)
	}
	p := opts.Prober
	if p == nil {
		p = prober.New(prober.Options{Clock: opts.Clock})
		if err := mgr.Add(p); err != nil {
			return fmt.Errorf("toolregistry: adding the prober: %w", err)
		}
	}
	r := &Reconciler{
		client:   mgr.GetClient(),
		secrets:  mgr.GetAPIReader(),
		mapper:   mgr.GetRESTMapper(),
		recorder: mgr.GetEventRecorder(ControllerName),
		prober:   p,
		opts:     opts,
	}
	var c controller.Controller
	r.policies = newPolicyCRD(dc, func(context.Context) error {
		// Called under the policy lock, after Build returned c.
		return c.Watch(source.Kind(mgr.GetCache(), &v1alpha1.ToolPolicy{},
			handler.TypedEnqueueRequestsFromMapFunc(policyToRegistry)))
	})

	b := ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		For(&v1alpha1.ToolRegistry{}, builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{},
			policycheck.Relabelled(opts.Policies, "ToolRegistry")))).
		WatchesRawSource(source.Channel(r.policies.changed, handler.EnqueueRequestsFromMapFunc(r.allRegistries))).
		// Each stored probe result reconciles its registry.
		WatchesRawSource(source.Channel(p.Events(ProberKind), &handler.EnqueueRequestForObject{}))
	c, err = policycheck.Watch(b, opts.Policies, "ToolRegistry", r.client, func() client.ObjectList { return &v1alpha1.ToolRegistryList{} }).
		WithOptions(opts.Controller()).
		Build(r)
	if err != nil {
		return err
	}
	// Learn now whether the CRD is served, so its watch starts with the
	// controller; then re-check on the leader every CRDCheckInterval.
	if _, err := r.policies.Refresh(context.Background()); err != nil {
		return fmt.Errorf("toolregistry: adding the ToolPolicy watch: %w", err)
	}
	return mgr.Add(manager.RunnableFunc(r.policies.run(opts.CRDCheckInterval)))
}

// policyToRegistry maps a ToolPolicy to the registry it names. On update
// the handler maps the old and the new object, so a policy re-pointed to
// another registry re-reconciles both.
func policyToRegistry(_ context.Context, p *v1alpha1.ToolPolicy) []reconcile.Request {
	if p.Spec.Selector.Registry == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: p.Namespace, Name: p.Spec.Selector.Registry}}}
}

// allRegistries maps a ToolPolicy CRD flip to every ToolRegistry.
func (r *Reconciler) allRegistries(ctx context.Context, _ client.Object) []reconcile.Request {
	return enqueue.Listed(ctx, r.client, &v1alpha1.ToolRegistryList{}, "listing ToolRegistries after the ToolPolicy CRD changed")
}

// Reconcile computes a ToolRegistry's status and writes it when it changed.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	owner := prober.Owner{Kind: ProberKind, NamespacedName: req.NamespacedName}
	tr := &v1alpha1.ToolRegistry{}
	if err := r.client.Get(ctx, req.NamespacedName, tr); err != nil {
		if apierrors.IsNotFound(err) {
			r.prober.Retain(owner) // forget its results
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	probedAt := r.opts.Clock.Now()
	now := probedAt.Truncate(time.Second)

	facts := clusterfacts.New(ctx, r.client, r.secrets, r.mapper, r.opts.License)
	findings := rules.Default.Evaluate("ToolRegistry", rules.Input{Object: tr, Facts: facts}, rules.Options{})
	validation, err := policycheck.Evaluate(policycheck.Catalog(r.opts.Policies), "ToolRegistry", tr, facts)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := facts.Err(); err != nil {
		// A lookup could not be made: the findings may report as missing
		// what exists. Write nothing, emit nothing; retry with backoff.
		return ctrl.Result{}, fmt.Errorf("evaluating rules: %w", err)
	}

	in := statusInput{
		findings:   findings,
		validation: validation,
		probe:      probeSettingsOf(tr.Spec.Probe, r.opts.DefaultProbeInterval, r.opts.DefaultProbeTimeout),
		now:        now,
	}
	in.tools, in.handlersWithTools = discoverTools(tr)

	installed, err := r.policies.Installed(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	in.policy.installed = installed
	if installed {
		if in.policy.names, err = selectingPolicies(ctx, r.client, req.NamespacedName); err != nil {
			return ctrl.Result{}, fmt.Errorf("listing ToolPolicies: %w", err)
		}
	}

	targets := probeTargets(in.tools, invalidHandlers(findingsFor(findings, v1alpha1.ToolRegistryConditionHandlersValid)), in.probe)
	in.previous = previousResults(tr.Status.DiscoveredTools)
	var result ctrl.Result
	in.results, result.RequeueAfter = r.requestProbes(owner, targets, in.probe, probedAt)

	updated := computeStatus(tr, in)
	oldConditions := tr.Status.Conditions
	wrote, err := statuswrite.Patch(ctx, r.client, tr, &tr.Status, updated)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !wrote {
		return result, nil
	}
	for _, e := range transitionEvents(oldConditions, updated.Conditions) {
		r.recorder.Eventf(tr, nil, e.eventType, e.reason, ActionReconcile, "%s", e.note)
	}
	log.V(1).Info("status written", "phase", updated.Phase, "tools", updated.DiscoveredToolsCount)
	return result, nil
}
