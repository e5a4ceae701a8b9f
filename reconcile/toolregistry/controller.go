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
// nor is the endpoint of a handler that failed validation.
package toolregistry

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
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
	"github.com/altairalabs/omnia/reconcile/enqueue"
	"github.com/altairalabs/omnia/reconcile/netguard"
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
	// Clock is the time source of probes, lastChecked, lastDiscoveryTime and
	// condition transitions. Defaults to the real clock.
	Clock clock.PassiveClock
	// Dialer opens probe connections. Defaults to netguard's dialer, which
	// refuses link-local and cloud-metadata addresses after DNS resolution,
	// for every handler type.
	Dialer Dialer
	// DefaultProbeInterval and DefaultProbeTimeout apply when spec.probe
	// leaves them empty. Default 60s and 5s (the CRD's).
	DefaultProbeInterval, DefaultProbeTimeout time.Duration
	// CRDCheckInterval is how often the ToolPolicy CRD is re-checked
	// through discovery. Default 30s.
	CRDCheckInterval time.Duration
	// License is the licence rules see.
	License rules.License
	// MaxConcurrentReconciles bounds parallel reconciles (a probe round
	// holds a worker for up to the probe timeout). Default 2.
	MaxConcurrentReconciles int
}

func (o Options) withDefaults() Options {
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Dialer == nil {
		o.Dialer = netguard.NewDialer(nil)
	}
	if o.DefaultProbeInterval <= 0 {
		o.DefaultProbeInterval = DefaultProbeInterval
	}
	if o.DefaultProbeTimeout <= 0 {
		o.DefaultProbeTimeout = DefaultProbeTimeout
	}
	if o.CRDCheckInterval <= 0 {
		o.CRDCheckInterval = DefaultCRDCheckInterval
	}
	if o.MaxConcurrentReconciles <= 0 {
		o.MaxConcurrentReconciles = 2
	}
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
	r := &Reconciler{
		client:   mgr.GetClient(),
		secrets:  mgr.GetAPIReader(),
		mapper:   mgr.GetRESTMapper(),
		recorder: mgr.GetEventRecorder(ControllerName),
		opts:     opts,
	}
	var c controller.Controller
	r.policies = newPolicyCRD(dc, func(context.Context) error {
		// Called under the policy lock, after Build returned c.
		return c.Watch(source.Kind(mgr.GetCache(), &v1alpha1.ToolPolicy{},
			handler.TypedEnqueueRequestsFromMapFunc(policyToRegistry)))
	})

	c, err = ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		For(&v1alpha1.ToolRegistry{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesRawSource(source.Channel(r.policies.changed, handler.EnqueueRequestsFromMapFunc(r.allRegistries))).
		WithOptions(controller.Options{MaxConcurrentReconciles: opts.MaxConcurrentReconciles}).
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
	tr := &v1alpha1.ToolRegistry{}
	if err := r.client.Get(ctx, req.NamespacedName, tr); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	now := r.opts.Clock.Now().Truncate(time.Second)

	facts := clusterfacts.New(ctx, r.client, r.secrets, r.mapper, r.opts.License)
	findings := rules.Default.Evaluate("ToolRegistry", rules.Input{Object: tr, Facts: facts}, rules.Options{})
	if err := facts.Err(); err != nil {
		// A lookup could not be made: the findings may report as missing
		// what exists. Write nothing, emit nothing; retry with backoff.
		return ctrl.Result{}, fmt.Errorf("evaluating rules: %w", err)
	}

	in := statusInput{
		findings: findings,
		probe:    probeSettingsOf(tr.Spec.Probe, r.opts.DefaultProbeInterval, r.opts.DefaultProbeTimeout),
		now:      now,
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
	in.plan = planProbe(tr.Status.DiscoveredTools, targets, in.probe.interval, now)
	var result ctrl.Result
	if len(targets) > 0 {
		if in.plan.due {
			addrs := make([]string, 0, len(targets))
			for _, t := range targets {
				if t.dialAddr != "" {
					addrs = append(addrs, t.dialAddr)
				}
			}
			in.results = probeAddresses(ctx, r.opts.Dialer, addrs, in.probe.timeout)
			result.RequeueAfter = in.probe.interval
		} else {
			result.RequeueAfter = in.plan.next
		}
	}

	updated := computeStatus(tr, in)
	if equality.Semantic.DeepEqual(updated, tr.Status) {
		return result, nil
	}
	base := tr.DeepCopy()
	oldConditions := tr.Status.Conditions
	tr.Status = updated
	if err := r.client.Status().Patch(ctx, tr, client.MergeFrom(base)); err != nil {
		return ctrl.Result{}, fmt.Errorf("writing status: %w", err)
	}
	for _, e := range transitionEvents(oldConditions, updated.Conditions) {
		r.recorder.Eventf(tr, nil, e.eventType, e.reason, ActionReconcile, "%s", e.note)
	}
	log.V(1).Info("status written", "phase", updated.Phase, "tools", updated.DiscoveredToolsCount)
	return result, nil
}
