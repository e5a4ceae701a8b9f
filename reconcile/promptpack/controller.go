// Package promptpack is a minimal PromptPack controller: it validates a
// pack's source and sets status.phase (Ready or Invalid), the conditions
// SourceValid and Ready, and observedGeneration, so an AgentRuntime can
// tell a valid pack from an invalid one (agentruntime.md#promptpackref:
// "a resolved pack that failed source or schema validation also fails the
// agent") on a fresh cluster with no other component.
//
// Each reconcile asks the rule catalog for the pack's findings (every stage
// and severity, with facts from clusterfacts); no rule is written here. For
// a ConfigMap source the rules check that the ConfigMap exists in the pack's
// namespace, that its pack.json parses as a JSON object, and that its id and
// version are the pack's spec.packName and spec.version. The status is
// computed in memory and written once with a merge patch, and not at all
// when nothing changed; each condition transition emits an event.
//
// A live pack (spec.source.live) is left alone: no status is written. Its
// content is an Arena project compiled by the runtime at start, which the
// operator cannot validate, and a live pack is made and owned by its
// PromptPackSource, whose controller reports on it (deploy-intent.md).
// Writing Ready here would claim a validation that never ran.
//
// ConfigMaps are watched as metadata only (a ConfigMap's edit maps, through
// a field index on spec.source.configMapRef.name, to the packs naming it)
// and the one ConfigMap a pack names is read uncached (the manager's
// APIReader), so the operator never holds every ConfigMap's data.
package promptpack

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
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

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/reconcile/enqueue"
	"github.com/altairalabs/omnia/reconcile/internal/statuswrite"
	"github.com/altairalabs/omnia/reconcile/policycheck"
	"github.com/altairalabs/omnia/reconcile/transitions"
	"github.com/altairalabs/omnia/rules"
)

// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=promptpacks,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=promptpacks/status,verbs=get;patch
// ConfigMaps: list;watch serve the metadata-only informer (RBAC has no
// separate verb for metadata), get the uncached read of the one ConfigMap a
// pack names.
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// ControllerName names the controller and is the reportingController of its
// events.
const ControllerName = "promptpack-controller"

// ConfigMapNameIndex is the field index on PromptPacks holding the name of
// the ConfigMap a pack reads, so a ConfigMap's change maps to its packs.
const ConfigMapNameIndex = "spec.source.configMapRef.name"

// Options configure the controller. Zero values take the defaults.
type Options struct {
	// Common are the clock, licence, workers and test switch every
	// controller takes (default workers: 2).
	ctrlopts.Common
	// Policies are the platform team's ValidationPolicies in force (the
	// operator's policies.Store): their rules for PromptPack set policy
	// conditions (policycheck), and a change re-reconciles every ConfigMap-sourced pack.
	// Nil: no policies.
	Policies policycheck.Policies
}

func (o Options) withDefaults() Options {
	o.Common = o.Common.WithDefaults(2)
	return o
}

// Reconciler reconciles PromptPacks.
type Reconciler struct {
	client client.Client
	// configMaps reads the ConfigMap a pack names, uncached.
	configMaps client.Reader
	mapper     meta.RESTMapper
	recorder   events.EventRecorder
	opts       Options
}

// NewReconciler returns a Reconciler reading and writing PromptPacks
// through c, reading ConfigMaps through configMaps (nil: c) and emitting
// events with recorder (events.k8s.io; nil emits none).
func NewReconciler(c client.Client, configMaps client.Reader, mapper meta.RESTMapper, recorder events.EventRecorder, opts Options) *Reconciler {
	if configMaps == nil {
		configMaps = c
	}
	return &Reconciler{client: c, configMaps: configMaps, mapper: mapper, recorder: recorder, opts: opts.withDefaults()}
}

// SetupWithManager registers the controller: it reconciles PromptPacks on a
// spec change and whenever the ConfigMap one names is created, edited or
// deleted.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &v1alpha1.PromptPack{}, ConfigMapNameIndex, configMapNames); err != nil {
		return fmt.Errorf("promptpack controller: indexing %s: %w", ConfigMapNameIndex, err)
	}
	r := NewReconciler(mgr.GetClient(), mgr.GetAPIReader(), mgr.GetRESTMapper(), mgr.GetEventRecorder(ControllerName), opts)
	copts := r.opts.Controller()
	b := ctrl.NewControllerManagedBy(mgr).
		Named("promptpack").
		For(&v1alpha1.PromptPack{}, builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{},
			policycheck.Relabelled(opts.Policies, "PromptPack")))).
		// Metadata only: any change bumps the resourceVersion, which is all
		// the mapping needs; the data is read on reconcile.
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(r.packsForConfigMap), builder.OnlyMetadata)
	return policycheck.Watch(b, opts.Policies, "PromptPack", r.client, func() client.ObjectList { return &v1alpha1.PromptPackList{} }).
		WithOptions(copts).
		Complete(r)
}

// configMapNames is the ConfigMapNameIndex function.
func configMapNames(obj client.Object) []string {
	p, ok := obj.(*v1alpha1.PromptPack)
	if !ok || p.Spec.Source.ConfigMapRef == nil || p.Spec.Source.ConfigMapRef.Name == "" {
		return nil
	}
	return []string{p.Spec.Source.ConfigMapRef.Name}
}

// packsForConfigMap maps a ConfigMap to the packs in its namespace naming it.
func (r *Reconciler) packsForConfigMap(ctx context.Context, obj client.Object) []reconcile.Request {
	return enqueue.Listed(ctx, r.client, &v1alpha1.PromptPackList{}, "listing the PromptPacks reading ConfigMap "+obj.GetNamespace()+"/"+obj.GetName(),
		client.InNamespace(obj.GetNamespace()), client.MatchingFields{ConfigMapNameIndex: obj.GetName()})
}

// Reconcile computes the pack's status and writes it when it changed.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	p := &v1alpha1.PromptPack{}
	if err := r.client.Get(ctx, req.NamespacedName, p); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !p.DeletionTimestamp.IsZero() || p.Spec.Source.ConfigMapRef == nil {
		return ctrl.Result{}, nil // a live pack is its PromptPackSource's (see the package doc)
	}
	if err := r.ensurePackLabel(ctx, p); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	facts := clusterfacts.New(ctx, r.client, r.configMaps, r.mapper, r.opts.License)
	findings := rules.Default.Evaluate("PromptPack", rules.Input{Object: p, Facts: facts}, rules.Options{})
	validation, err := policycheck.Evaluate(policycheck.Catalog(r.opts.Policies), "PromptPack", p, facts)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := facts.Err(); err != nil {
		// A lookup could not be made: ConfigMapNotFound may be false.
		// Write nothing, emit nothing; retry with backoff.
		return ctrl.Result{}, fmt.Errorf("evaluating rules: %w", err)
	}

	now := metav1.NewTime(r.opts.Clock.Now()).Rfc3339Copy()
	st := computeStatus(p, findings, validation, now)
	packJSON, hasKey, _ := facts.ConfigMapValue(p.Namespace, p.Spec.Source.ConfigMapRef.Name, rules.PromptPackPackJSONKey)
	st.ContentDigest = contentDigest(st, packJSON, hasKey)
	old := p.Status
	if wrote, err := statuswrite.Patch(ctx, r.client, p, &p.Status, st); err != nil || !wrote {
		return ctrl.Result{}, err
	}
	log.V(1).Info("status written", "phase", st.Phase)
	transitions.Emit(r.recorder, p, old.Conditions, st.Conditions)
	return ctrl.Result{}, nil
}
