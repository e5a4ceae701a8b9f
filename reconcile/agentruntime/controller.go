package agentruntime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/reconcile/enqueue"
	"github.com/altairalabs/omnia/rules"
)

// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=agentruntimes,verbs=get;list;watch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=agentruntimes/status,verbs=get;patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups="",resources=services;serviceaccounts,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=roles;rolebindings,verbs=get;list;watch;create;patch

// ControllerName names the controller and its logger.
const ControllerName = "agentruntime-controller"

// FieldManager is the one field manager every child is applied with.
const FieldManager = "omnia-operator"

// AppliedHashAnnotation holds the sha256 of the object as built, on every
// applied child. The builders are deterministic, so a child whose
// annotation equals the hash of what would be applied now is skipped: no
// API write when nothing changed (chosen over a dry-run apply, which is
// itself a request per child per reconcile).
const AppliedHashAnnotation = "omnia.altairalabs.ai/applied-hash"

// Options configure the controller.
type Options struct {
	// FrameworkImages are the --framework-image=<type>=<image> entries.
	FrameworkImages map[string]string
	// BuiltinRuntimeImage, FacadeImage, PolicyBrokerImage are the
	// operator's built-in images.
	BuiltinRuntimeImage, FacadeImage, PolicyBrokerImage string
	// Clock stamps condition transitions.
	Clock   clock.PassiveClock
	License rules.License
}

// Reconciler reconciles AgentRuntimes.
type Reconciler struct {
	client client.Client
	mapper meta.RESTMapper
	opts   Options
}

// SetupWithManager registers the controller: For AgentRuntime (generation
// changes), Owns Deployment and Service.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	r := &Reconciler{client: mgr.GetClient(), mapper: mgr.GetRESTMapper(), opts: opts}
	ctx := context.Background()
	idx := mgr.GetFieldIndexer()
	if err := idx.IndexField(ctx, &v1alpha1.AgentRuntime{}, indexProvider, providerNames); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &v1alpha1.AgentRuntime{}, indexPromptPack, packNames); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		For(&v1alpha1.AgentRuntime{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.Service{}).
		Watches(&v1alpha1.Provider{}, handler.EnqueueRequestsFromMapFunc(r.agentsBy(indexProvider, func(o client.Object) string { return o.GetName() }))).
		Watches(&v1alpha1.PromptPack{}, handler.EnqueueRequestsFromMapFunc(r.agentsBy(indexPromptPack, func(o client.Object) string { return o.GetLabels()[rules.PromptPackLabel] }))).
		Complete(r)
}

// Reconcile resolves the agent's inputs, applies its children when they
// resolved, and writes its status once when it changed.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ar := &v1alpha1.AgentRuntime{}
	if err := r.client.Get(ctx, req.NamespacedName, ar); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	facts := clusterfacts.New(ctx, r.client, r.client, r.mapper, r.opts.License)
	findings := rules.Default.Evaluate("AgentRuntime", rules.Input{Object: ar, Facts: facts}, rules.Options{})
	if err := facts.Err(); err != nil {
		return ctrl.Result{}, fmt.Errorf("evaluating rules: %w", err)
	}
	image, imageOK := rules.AgentRuntimeFrameworkImage(ar, r.opts.FrameworkImages, r.opts.BuiltinRuntimeImage)
	in := statusInput{findings: findings, frameworkImageOK: imageOK, now: metav1.NewTime(r.opts.Clock.Now().Truncate(1e9))}

	held := !imageOK
	for _, f := range findings {
		switch f.Condition {
		case v1alpha1.AgentRuntimeConditionPromptPackReady, v1alpha1.AgentRuntimeConditionProviderReady:
			held = true
		}
	}
	if !held {
		res := Resolved{RuntimeImage: image, FacadeImage: r.opts.FacadeImage, PolicyBrokerImage: r.opts.PolicyBrokerImage,
			Providers: map[string]ResolvedProvider{}}
		for _, e := range ar.Spec.Providers {
			if p, ok := facts.Provider(ar.Namespace, e.ProviderRef.Name); ok && p != nil {
				res.Providers[e.Name] = ResolvedProvider{Provider: p}
			}
		}
		if ref := ar.Spec.PromptPackRef; ref != nil {
			if p := pickPack(facts.PromptPacks(ar.Namespace, ref.Name), ref); p != nil {
				rp := &ResolvedPromptPack{PackName: p.Spec.PackName, Version: p.Spec.Version}
				if p.Spec.Source.ConfigMapRef != nil {
					rp.ConfigMapName = p.Spec.Source.ConfigMapRef.Name
				}
				res.PromptPack = rp
				in.activeVersion = p.Spec.Version
			}
		}
		if ref := ar.Spec.ToolRegistryRef; ref != nil && (ref.Namespace == "" || ref.Namespace == ar.Namespace) {
			res.ToolRegistryName = ref.Name
		}
		d, dropped, err := Deployment(ar, res)
		if err != nil {
			return ctrl.Result{}, err
		}
		in.dropped = dropped
		for _, o := range []client.Object{ServiceAccount(ar), Role(ar), RoleBinding(ar, res)} {
			if err := r.apply(ctx, o); err != nil {
				return ctrl.Result{}, err
			}
		}
		if err := r.apply(ctx, Service(ar)); err != nil {
			return ctrl.Result{}, err
		}
		in.serviceApplied = true
		if err := r.apply(ctx, d); err != nil {
			return ctrl.Result{}, err
		}
		in.deployment = d
	}

	updated := computeStatus(ar, in)
	if equality.Semantic.DeepEqual(updated, ar.Status) {
		return ctrl.Result{}, nil
	}
	base := ar.DeepCopy()
	ar.Status = updated
	if err := r.client.Status().Patch(ctx, ar, client.MergeFrom(base)); err != nil {
		return ctrl.Result{}, fmt.Errorf("writing status: %w", err)
	}
	return ctrl.Result{}, nil
}

// apply server-side applies obj unless the live object (from the cache)
// carries the same applied hash; obj is left as the API server has it.
func (r *Reconciler) apply(ctx context.Context, obj client.Object) error {
	raw, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(raw)
	hash := hex.EncodeToString(sum[:])
	live := obj.DeepCopyObject().(client.Object)
	err = r.client.Get(ctx, client.ObjectKeyFromObject(obj), live)
	switch {
	case err == nil && live.GetAnnotations()[AppliedHashAnnotation] == hash:
		// Unchanged: keep the live object's status (a Deployment's replicas).
		if d, ok := live.(*appsv1.Deployment); ok {
			*obj.(*appsv1.Deployment) = *d
		}
		return nil
	case err != nil && !apierrors.IsNotFound(err):
		return fmt.Errorf("reading %s: %w", obj.GetName(), err)
	}
	ann := map[string]string{}
	for k, v := range obj.GetAnnotations() {
		ann[k] = v
	}
	ann[AppliedHashAnnotation] = hash
	obj.SetAnnotations(ann)
	//lint:ignore SA1019 client.Client.Apply takes apply configurations; the builders return typed objects
	if err := r.client.Patch(ctx, obj, client.Apply, client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying %s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
	}
	return nil
}

// pickPack chooses the pack the ref resolves to: the exact version, else
// the highest (string order; semver ordering is a follow-up) on the track.
func pickPack(packs []v1alpha1.PromptPack, ref *v1alpha1.AgentRuntimePromptPackRef) *v1alpha1.PromptPack {
	var best *v1alpha1.PromptPack
	for i := range packs {
		p := &packs[i]
		if ref.Version != "" {
			if p.Spec.Version == ref.Version {
				return p
			}
			continue
		}
		if best == nil || p.Spec.Version > best.Spec.Version {
			best = p
		}
	}
	return best
}

// Field indexes on AgentRuntimes: the Providers and pack names they
// reference, so an edited Provider or PromptPack re-reconciles its agents.
const (
	indexProvider   = "spec.providers.providerRef.name"
	indexPromptPack = "spec.promptPackRef.name"
)

func providerNames(o client.Object) []string {
	ar := o.(*v1alpha1.AgentRuntime)
	out := make([]string, 0, len(ar.Spec.Providers))
	for _, e := range ar.Spec.Providers {
		out = append(out, e.ProviderRef.Name)
	}
	return out
}

func packNames(o client.Object) []string {
	ar := o.(*v1alpha1.AgentRuntime)
	if ar.Spec.PromptPackRef == nil {
		return nil
	}
	return []string{ar.Spec.PromptPackRef.Name}
}

// agentsBy maps an object to the AgentRuntimes in its namespace whose
// index entry equals key(obj).
func (r *Reconciler) agentsBy(index string, key func(client.Object) string) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		k := key(o)
		if k == "" {
			return nil
		}
		return enqueue.Listed(ctx, r.client, &v1alpha1.AgentRuntimeList{}, "listing AgentRuntimes referencing "+o.GetName(),
			client.InNamespace(o.GetNamespace()), client.MatchingFields{index: k})
	}
}
