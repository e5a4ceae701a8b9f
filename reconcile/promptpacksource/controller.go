// Package promptpacksource is a minimal PromptPackSource controller
// (deploy-intent.md § Deploying a project to a dev agent): a project source
// materializes one live PromptPack named by spec.packName (spec.source.live
// naming the project id as its ArenaProject), owns it (a controller
// reference, so garbage collection removes the pack with the source), and
// keeps the pack's dev labels in step with its own: the four labels
// omnia.altairalabs.ai/dev, hidden, arena-project and arena-user are
// copied, plus the pack label rules.PromptPackLabel=packName an agent's
// promptPackRef resolves by.
//
// A PromptPack of that name the source does not control is never taken
// over: it is left as it is and the source's Ready condition is False with
// reason PackNameTaken. Otherwise Ready is True with reason
// PackMaterialized. The pack is written only when it is missing or its
// spec or copied labels differ (read from the cache); the status is
// computed in memory and patched once, and not at all when unchanged; each
// condition transition emits an event.
//
// The pack's own readiness is not reported here: a live pack's content is
// an Arena project the runtime compiles at start, which the operator
// cannot validate (see reconcile/promptpack).
package promptpacksource

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/reconcile/internal/statuswrite"
	"github.com/altairalabs/omnia/reconcile/transitions"
	"github.com/altairalabs/omnia/rules"
)

// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=promptpacksources,verbs=get;list;watch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=promptpacksources/status,verbs=get;patch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=promptpacksources/finalizers,verbs=update
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=promptpacks,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// ControllerName names the controller and is the reportingController of its
// events.
const ControllerName = "promptpacksource-controller"

// CopiedLabels are the source labels its live pack carries too.
var CopiedLabels = []string{
	"omnia.altairalabs.ai/dev",
	"omnia.altairalabs.ai/hidden",
	"omnia.altairalabs.ai/arena-project",
	"omnia.altairalabs.ai/arena-user",
}

// Options configure the controller. Zero values take the defaults.
type Options struct {
	// Clock stamps condition transitions. Default: the real clock.
	Clock clock.PassiveClock
	// SkipNameValidation lets tests register the controller in several
	// managers of one process.
	SkipNameValidation bool
}

// Reconciler reconciles PromptPackSources.
type Reconciler struct {
	client   client.Client
	recorder events.EventRecorder
	clock    clock.PassiveClock
}

// NewReconciler returns a Reconciler reading and writing through c and
// emitting events with recorder (nil emits none).
func NewReconciler(c client.Client, recorder events.EventRecorder, opts Options) *Reconciler {
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	return &Reconciler{client: c, recorder: recorder, clock: opts.Clock}
}

// SetupWithManager registers the controller: it reconciles a source on any
// change of it (its labels included) and of the pack it owns.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	r := NewReconciler(mgr.GetClient(), mgr.GetEventRecorder(ControllerName), opts)
	copts := controller.Options{}
	if opts.SkipNameValidation {
		skip := true
		copts.SkipNameValidation = &skip
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("promptpacksource").
		For(&v1alpha1.PromptPackSource{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, predicate.LabelChangedPredicate{}))).
		Owns(&v1alpha1.PromptPack{}).
		WithOptions(copts).
		Complete(r)
}

// DesiredPack is the live PromptPack of a source (without its owner
// reference): named spec.packName, spec.source.live naming the project id,
// the copied labels and the pack label.
func DesiredPack(src *v1alpha1.PromptPackSource) *v1alpha1.PromptPack {
	labels := map[string]string{rules.PromptPackLabel: src.Spec.PackName}
	for _, k := range CopiedLabels {
		if v, ok := src.Labels[k]; ok {
			labels[k] = v
		}
	}
	return &v1alpha1.PromptPack{
		ObjectMeta: metav1.ObjectMeta{Name: src.Spec.PackName, Namespace: src.Namespace, Labels: labels},
		Spec: v1alpha1.PromptPackSpec{
			PackName: src.Spec.PackName,
			Source: v1alpha1.PromptPackContentSource{
				Live: &v1alpha1.PromptPackLiveSource{ProjectRef: v1alpha1.LocalObjectReference{Name: src.Spec.Project.ID}},
			},
		},
	}
}

// setReadyCondition sets Ready from whether the pack name is taken by a
// pack the source does not control.
func setReadyCondition(st *v1alpha1.PromptPackSourceStatus, pack string, taken bool, gen int64, now metav1.Time) {
	c := metav1.Condition{Type: v1alpha1.PromptPackSourceConditionReady, Status: metav1.ConditionTrue, Reason: v1alpha1.PromptPackSourceReasonPackMaterialized,
		Message: "live PromptPack " + pack + " materialized", ObservedGeneration: gen}
	if taken {
		c.Status, c.Reason = metav1.ConditionFalse, v1alpha1.PromptPackSourceReasonPackNameTaken
		c.Message = "a PromptPack " + pack + " exists that this source does not own; it is not taken over"
	}
	conditions.Set(&st.Conditions, c, now)
	st.ObservedGeneration = gen
}

// Reconcile materializes the source's pack and writes its status when it
// changed.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	src := &v1alpha1.PromptPackSource{}
	if err := r.client.Get(ctx, req.NamespacedName, src); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !src.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	taken, err := r.pack(ctx, src)
	if err != nil {
		return ctrl.Result{}, err
	}
	st := *src.Status.DeepCopy()
	setReadyCondition(&st, src.Spec.PackName, taken, src.Generation, metav1.NewTime(r.clock.Now()).Rfc3339Copy())
	old := src.Status.Conditions
	if wrote, err := statuswrite.Patch(ctx, r.client, src, &src.Status, st); err != nil || !wrote {
		return ctrl.Result{}, err
	}
	transitions.Emit(r.recorder, src, old, st.Conditions)
	return ctrl.Result{}, nil
}

// pack creates or updates the live pack; taken when a pack of the name
// exists that the source does not control (left untouched).
func (r *Reconciler) pack(ctx context.Context, src *v1alpha1.PromptPackSource) (bool, error) {
	desired := DesiredPack(src)
	live := &v1alpha1.PromptPack{}
	err := r.client.Get(ctx, client.ObjectKeyFromObject(desired), live)
	if apierrors.IsNotFound(err) {
		if err := controllerutil.SetControllerReference(src, desired, r.client.Scheme()); err != nil {
			return false, err
		}
		if err := r.client.Create(ctx, desired, client.FieldOwner(ControllerName)); err != nil && !apierrors.IsAlreadyExists(err) {
			return false, fmt.Errorf("creating PromptPack %s: %w", desired.Name, err)
		}
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !metav1.IsControlledBy(live, src) {
		return true, nil
	}
	out := live.DeepCopy()
	out.Spec = desired.Spec
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	for k, v := range desired.Labels {
		out.Labels[k] = v
	}
	for _, k := range CopiedLabels {
		if _, ok := desired.Labels[k]; !ok {
			delete(out.Labels, k)
		}
	}
	if equality.Semantic.DeepEqual(live.Spec, out.Spec) && equality.Semantic.DeepEqual(live.Labels, out.Labels) {
		return false, nil
	}
	if err := r.client.Patch(ctx, out, client.MergeFrom(live), client.FieldOwner(ControllerName)); err != nil {
		return false, fmt.Errorf("updating PromptPack %s: %w", live.Name, err)
	}
	return false, nil
}
