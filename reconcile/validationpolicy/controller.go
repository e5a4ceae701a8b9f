// Package validationpolicy keeps the operator's policies.Store in step with
// the cluster's ValidationPolicies and reports each policy's compilation in
// its status.
//
// Two controllers share the work, because the Store serves admission on
// every replica while status has one writer:
//
//   - the loader (validationpolicy-store) runs on every replica, without
//     leader election: on each event it compiles the policy and puts it in
//     the Store (Set), or takes it out (Delete) once the policy is gone. Its
//     readiness check holds a replica unready until the policies that
//     existed at start are loaded, so no replica admits objects without
//     them.
//   - the status reconciler (validationpolicy) runs on the leader: it
//     compiles the policy too (compilation is deterministic, so both
//     agree), patches status once when it changed — observedGeneration,
//     Ready (True Compiled / False CompileFailed, the errors summarised),
//     ruleErrors — and records an event on each Ready transition.
package validationpolicy

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/policies"
	"github.com/altairalabs/omnia/reconcile/internal/statuswrite"
	"github.com/altairalabs/omnia/reconcile/transitions"
)

// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=validationpolicies,verbs=get;list;watch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=validationpolicies/status,verbs=get;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// ControllerName names the status controller and is the reportingController
// of its events.
const ControllerName = "validationpolicy-controller"

// Compiler compiles a policy (*policies.Env in the operator).
type Compiler interface {
	Compile(p *v1alpha1.ValidationPolicy) *policies.Compiled
}

// Options configure the controllers.
type Options struct {
	// Store receives the compiled policies. Required.
	Store *policies.Store
	// Compiler compiles them. Required.
	Compiler Compiler
	// Clock stamps condition transitions. Default: the real clock.
	Clock clock.PassiveClock
	// SkipNameValidation lets tests register the controllers in several
	// managers of one process.
	SkipNameValidation bool
}

// Loader puts the cluster's policies in the Store.
type Loader struct {
	reader   client.Reader
	compiler Compiler
	store    *policies.Store

	mu sync.Mutex
	// loaded maps a policy's name to the generation last put in the Store.
	// It holds one entry per live policy, so it is bounded by them.
	loaded map[string]int64
	ready  atomic.Bool
}

// NewLoader returns a Loader reading policies through reader.
func NewLoader(reader client.Reader, compiler Compiler, store *policies.Store) *Loader {
	return &Loader{reader: reader, compiler: compiler, store: store, loaded: map[string]int64{}}
}

// Reconcile compiles the named policy into the Store, or takes it out when
// the policy is gone or being deleted.
func (l *Loader) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	p := &v1alpha1.ValidationPolicy{}
	if err := l.reader.Get(ctx, req.NamespacedName, p); err != nil {
		if !apierrors.IsNotFound(err) {
			return ctrl.Result{}, err
		}
		l.store.Delete(req.Name)
		l.forget(req.Name)
		return ctrl.Result{}, nil
	}
	if !p.DeletionTimestamp.IsZero() {
		// A policy being deleted no longer applies, even while a
		// finalizer keeps it.
		l.store.Delete(p.Name)
		l.remember(p.Name, p.Generation)
		return ctrl.Result{}, nil
	}
	compiled := l.compiler.Compile(p)
	if compiled == nil {
		return ctrl.Result{}, fmt.Errorf("compiling ValidationPolicy %s: no result", p.Name)
	}
	if err := l.store.Set(compiled); err != nil {
		// The rules cannot join the catalog (a compiler bug: the webhook
		// admitted the policy); the previous catalog stays in force.
		log.FromContext(ctx).Error(err, "ValidationPolicy not put in force", "policy", p.Name, "generation", p.Generation)
		return ctrl.Result{}, err
	}
	l.remember(p.Name, p.Generation)
	return ctrl.Result{}, nil
}

func (l *Loader) remember(name string, generation int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.loaded[name] = generation
}

func (l *Loader) forget(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.loaded, name)
}

// ReadyzCheck fails until every policy the cache lists has been loaded at
// its generation; once it has passed it always passes (a later policy
// change is loaded within moments, and turning every replica unready at
// once on a policy change would take the webhooks down).
func (l *Loader) ReadyzCheck(req *http.Request) error {
	if l.ready.Load() {
		return nil
	}
	list := &v1alpha1.ValidationPolicyList{}
	if err := l.reader.List(req.Context(), list); err != nil {
		return fmt.Errorf("listing ValidationPolicies: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range list.Items {
		p := &list.Items[i]
		if gen, ok := l.loaded[p.Name]; !ok || gen != p.Generation {
			return fmt.Errorf("ValidationPolicy %s (generation %d) not loaded yet", p.Name, p.Generation)
		}
	}
	l.ready.Store(true)
	return nil
}

// Reconciler writes each policy's status.
type Reconciler struct {
	client   client.Client
	compiler Compiler
	recorder events.EventRecorder
	clock    clock.PassiveClock
}

// NewReconciler returns the status reconciler, writing through c and
// emitting events with recorder (nil emits none).
func NewReconciler(c client.Client, compiler Compiler, recorder events.EventRecorder, clk clock.PassiveClock) *Reconciler {
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &Reconciler{client: c, compiler: compiler, recorder: recorder, clock: clk}
}

// Reconcile compiles the policy and patches its status once, when changed.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	p := &v1alpha1.ValidationPolicy{}
	if err := r.client.Get(ctx, req.NamespacedName, p); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !p.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	st := Status(p.Status, p.Generation, r.compiler.Compile(p), metav1.NewTime(r.clock.Now()).Rfc3339Copy())
	old := p.Status.Conditions
	if wrote, err := statuswrite.Patch(ctx, r.client, p, &p.Status, st); err != nil || !wrote {
		return ctrl.Result{}, err
	}
	transitions.Emit(r.recorder, p, old, st.Conditions)
	return ctrl.Result{}, nil
}

// SetupWithManager registers both controllers and returns the loader, whose
// ReadyzCheck the caller adds to the manager's readiness checks. Both react
// to spec changes (the generation) and deletions, not to their own status
// writes.
func SetupWithManager(mgr ctrl.Manager, opts Options) (*Loader, error) {
	if opts.Store == nil || opts.Compiler == nil {
		return nil, fmt.Errorf("validationpolicy: a Store and a Compiler are required")
	}
	loader := NewLoader(mgr.GetClient(), opts.Compiler, opts.Store)
	everyReplica := false
	loaderOpts := controller.Options{NeedLeaderElection: &everyReplica}
	statusOpts := controller.Options{}
	if opts.SkipNameValidation {
		skip := true
		loaderOpts.SkipNameValidation = &skip
		statusOpts.SkipNameValidation = &skip
	}
	if err := ctrl.NewControllerManagedBy(mgr).
		Named("validationpolicy-store").
		For(&v1alpha1.ValidationPolicy{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(loaderOpts).
		Complete(loader); err != nil {
		return nil, err
	}
	r := NewReconciler(mgr.GetClient(), storeFirst{store: opts.Store, compiler: opts.Compiler}, mgr.GetEventRecorder(ControllerName), opts.Clock)
	if err := ctrl.NewControllerManagedBy(mgr).
		Named("validationpolicy").
		For(&v1alpha1.ValidationPolicy{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(statusOpts).
		Complete(r); err != nil {
		return nil, err
	}
	return loader, nil
}
