package apply

import (
	"context"
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/deploy/merge"
	"github.com/altairalabs/omnia/deploy/translate"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
)

// pack applies the ConfigMap and the PromptPack, both create-only, then
// makes the PromptPack the ConfigMap's owner. Results in the spec's order.
func (a *applier) pack(ctx context.Context, tr *translate.Objects) []intent.ResourceResult {
	cm := tr.ConfigMap.DeepCopy()
	cmRes := a.createOnly(ctx, translate.KindConfigMap, cm)
	pp := tr.PromptPack.DeepCopy()
	ppRes := a.createOnly(ctx, translate.KindPromptPack, pp)
	if cmRes.Action == intent.ActionFailed {
		return []intent.ResourceResult{cmRes, ppRes}
	}
	if ppRes.Action == intent.ActionFailed {
		cmRes.Error = "owner reference to PromptPack " + pp.Name + " not established: the PromptPack did not apply"
		return []intent.ResourceResult{cmRes, ppRes}
	}
	uid := pp.UID
	if uid == "" {
		cmRes.Error = "owner reference to PromptPack " + pp.Name + " not established: its UID could not be read"
		return []intent.ResourceResult{cmRes, ppRes}
	}
	// A ConfigMap this deploy did not create is adopted only when it is
	// this pack's (its pack label), as an earlier deploy whose owner
	// reference failed left it: someone else's object of the same name is
	// not made collectable with the pack.
	created := cmRes.Action == intent.ActionCreated
	ours := func(o client.Object) error {
		if created || o.GetLabels()[rules.PromptPackLabel] == tr.PromptPack.Spec.PackName {
			return nil
		}
		return fmt.Errorf("the ConfigMap existed without the label %s=%s, so it is not adopted", rules.PromptPackLabel, tr.PromptPack.Spec.PackName)
	}
	if err := a.ensureOwner(ctx, &corev1.ConfigMap{}, client.ObjectKeyFromObject(cm),
		ownerRef(translate.KindPromptPack, pp.Name, uid), ours); err != nil {
		cmRes.Error = "owner reference to PromptPack " + pp.Name + " not established: " + err.Error()
	}
	return []intent.ResourceResult{cmRes, ppRes}
}

// createOnly creates obj unless an object of its name exists, which is
// unchanged, never rewritten (read fresh first, so a redeploy sends no
// write). Either way obj ends up carrying the object's UID.
func (a *applier) createOnly(ctx context.Context, kind string, obj client.Object) intent.ResourceResult {
	name := obj.GetName()
	live := obj.DeepCopyObject().(client.Object)
	err := a.r.Get(ctx, client.ObjectKeyFromObject(obj), live)
	if err == nil {
		obj.SetUID(live.GetUID())
		return result(kind, name, intent.ActionUnchanged)
	}
	if !apierrors.IsNotFound(err) {
		return failed(kind, name, apiError("reading", kind, name, err))
	}
	if msg := a.denied(ctx, kind, obj, nil); msg != "" {
		return failed(kind, name, msg)
	}
	err = a.create(ctx, obj)
	switch {
	case err == nil:
		return result(kind, name, intent.ActionCreated)
	case apierrors.IsAlreadyExists(err): // created meanwhile
		if err := a.r.Get(ctx, client.ObjectKeyFromObject(obj), live); err == nil {
			obj.SetUID(live.GetUID())
		}
		return result(kind, name, intent.ActionUnchanged)
	default:
		return failed(kind, name, apiError("creating", kind, name, err))
	}
}

func ownerRef(kind, name string, uid types.UID) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: v1alpha1.GroupVersion.String(), Kind: kind, Name: name, UID: uid}
}

func hasOwner(refs []metav1.OwnerReference, uid types.UID) bool {
	for _, r := range refs {
		if r.UID == uid {
			return true
		}
	}
	return false
}

// ensureOwner adds ref to the object at key, read fresh; no write when it
// is there already.
// may says whether the object may be given the reference.
func (a *applier) ensureOwner(ctx context.Context, obj client.Object, key client.ObjectKey, ref metav1.OwnerReference,
	may func(client.Object) error) error {
	if err := a.r.Get(ctx, key, obj); err != nil {
		return err
	}
	if hasOwner(obj.GetOwnerReferences(), ref.UID) {
		return nil
	}
	if err := may(obj); err != nil {
		return err
	}
	base := obj.DeepCopyObject().(client.Object)
	obj.SetOwnerReferences(append(obj.GetOwnerReferences(), ref))
	// An optimistic lock: an owner list changed meanwhile is not overwritten.
	return a.c.Patch(ctx, obj, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}), client.FieldOwner(a.owner))
}

// toolRegistry creates the registry; an existing one is unchanged with the
// migration caveat. It returns the registry's UID when it exists.
func (a *applier) toolRegistry(ctx context.Context, tr *translate.Objects) (intent.ResourceResult, types.UID) {
	name := tr.ToolRegistryName
	if tr.ToolRegistryErr != nil {
		return failed(translate.KindToolRegistry, name, tr.ToolRegistryErr.Error()), ""
	}
	reg := tr.ToolRegistry.DeepCopy()
	res := a.createOnly(ctx, translate.KindToolRegistry, reg)
	switch res.Action {
	case intent.ActionCreated:
		return res, reg.UID
	case intent.ActionUnchanged:
		res.Error = MigrationCaveat
		return res, reg.UID
	}
	return res, ""
}

// secret upserts the credential Secret, owned by the registry (registryUID
// empty: the registry did not apply, and the Secret is written unowned with
// an error saying so). Its data is the intent's, exactly; labels are laid
// over the live ones. Nothing is written when the live Secret already says
// the same.
func (a *applier) secret(ctx context.Context, tr *translate.Objects, registryUID types.UID) intent.ResourceResult {
	desired := tr.Secret.DeepCopy()
	ownerErr := ""
	if registryUID != "" {
		desired.OwnerReferences = []metav1.OwnerReference{ownerRef(translate.KindToolRegistry, tr.ToolRegistryName, registryUID)}
	} else {
		ownerErr = "owner reference to ToolRegistry " + tr.ToolRegistryName + " not established: the ToolRegistry did not apply"
	}
	res := a.upsertGuarded(ctx, translate.KindSecret, desired, &corev1.Secret{}, notMadeByDeploy, func(live client.Object) (client.Object, bool) {
		l := live.(*corev1.Secret)
		out := l.DeepCopy()
		out.Data = desired.Data
		out.StringData = nil
		if out.Type == "" {
			out.Type = corev1.SecretTypeOpaque
		}
		overlay(out, desired)
		same := sameData(l.Data, desired.Data) && reflect.DeepEqual(l.Labels, out.Labels) &&
			reflect.DeepEqual(l.OwnerReferences, out.OwnerReferences) && secretType(l.Type) == secretType(out.Type)
		return out, !same
	})
	if res.Action != intent.ActionFailed && ownerErr != "" {
		res.Error = ownerErr
	}
	return res
}

func secretType(t corev1.SecretType) corev1.SecretType {
	if t == "" {
		return corev1.SecretTypeOpaque
	}
	return t
}

func sameData(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || string(v) != string(w) {
			return false
		}
	}
	return true
}

// overlay lays desired's labels and annotations over out's and adds
// desired's owner references out lacks.
func overlay(out, desired client.Object) {
	out.SetLabels(mergeMaps(out.GetLabels(), desired.GetLabels()))
	out.SetAnnotations(mergeMaps(out.GetAnnotations(), desired.GetAnnotations()))
	refs := out.GetOwnerReferences()
	for _, r := range desired.GetOwnerReferences() {
		if !hasOwner(refs, r.UID) {
			refs = append(refs, r)
		}
	}
	out.SetOwnerReferences(refs)
}

func mergeMaps(live, desired map[string]string) map[string]string {
	if len(desired) == 0 {
		return live
	}
	out := make(map[string]string, len(live)+len(desired))
	for k, v := range live {
		out[k] = v
	}
	for k, v := range desired {
		out[k] = v
	}
	return out
}

// toolPolicy upserts the policy: spec is the intent's, labels and the
// blocklist annotation laid over the live ones. Nothing is written when the
// live policy, with the API server's defaults, already says the same.
func (a *applier) toolPolicy(ctx context.Context, desired *v1alpha1.ToolPolicy) intent.ResourceResult {
	desired = desired.DeepCopy()
	return a.upsertGuarded(ctx, translate.KindToolPolicy, desired, &v1alpha1.ToolPolicy{}, notMadeByDeploy, func(live client.Object) (client.Object, bool) {
		l := live.(*v1alpha1.ToolPolicy)
		out := l.DeepCopy()
		out.Spec = desired.Spec
		overlay(out, desired)
		same := sameStoredSpec(translate.KindToolPolicy, l, out) &&
			reflect.DeepEqual(l.Labels, out.Labels) && reflect.DeepEqual(l.Annotations, out.Annotations)
		return out, !same
	})
}

// sameStoredSpec compares two objects' specs as the API server stores them:
// defaulted by the embedded CRD schema. Without a schema they are compared
// as written (which can only report a change that is not one).
func sameStoredSpec(kind string, a, b runtime.Object) bool {
	da, errA := storedSpec(kind, a)
	db, errB := storedSpec(kind, b)
	if errA != nil || errB != nil {
		return apiequality.Semantic.DeepEqual(a, b)
	}
	return reflect.DeepEqual(da, db)
}

func storedSpec(kind string, obj runtime.Object) (any, error) {
	sv, err := schema.Default()
	if err != nil {
		return nil, err
	}
	m, err := manifest(kind, obj)
	if err != nil {
		return nil, err
	}
	res, err := sv.ValidateCreate(context.Background(), m)
	if err != nil {
		return nil, err
	}
	return res.Object["spec"], nil
}

// notMadeByDeploy refuses to update an object a deploy did not make
// (translate.MadeByDeploy): the credential Secret and the ToolPolicy are
// upserted under names an intent chooses, and the operator may write
// Secrets and policies, so without the mark an editor's intent could
// overwrite a Secret or loosen a policy it has no right to touch.
func notMadeByDeploy(live client.Object) string {
	if translate.MadeByDeploy(live) {
		return ""
	}
	return "exists and was not made by a deploy (no label " + translate.LabelManagedBy + "=" + translate.ManagedByDeployAPI +
		"): it is left alone; remove or rename it, then redeploy"
}

// upsertGuarded is upsert that first asks guard whether the live object may
// be updated: a non-empty answer fails the result with it, nothing written.
func (a *applier) upsertGuarded(ctx context.Context, kind string, desired, live client.Object,
	guard func(live client.Object) string, update func(live client.Object) (client.Object, bool)) intent.ResourceResult {
	refused := ""
	res := a.upsert(ctx, kind, desired, live, func(l client.Object) (client.Object, bool) {
		if refused = guard(l); refused != "" {
			return l, false
		}
		return update(l)
	})
	if refused != "" {
		return failed(kind, desired.GetName(), kind+" "+desired.GetName()+" "+refused)
	}
	return res
}

// upsert creates desired, or reads the live object fresh into live and asks
// update for the object to write and whether it differs; equal is
// unchanged, with no write.
func (a *applier) upsert(ctx context.Context, kind string, desired, live client.Object,
	update func(live client.Object) (client.Object, bool)) intent.ResourceResult {
	name := desired.GetName()
	for attempt := 0; ; attempt++ {
		err := a.r.Get(ctx, client.ObjectKeyFromObject(desired), live)
		if apierrors.IsNotFound(err) {
			if msg := a.denied(ctx, kind, desired, nil); msg != "" {
				return failed(kind, name, msg)
			}
			err = a.create(ctx, desired)
			if err == nil {
				return result(kind, name, intent.ActionCreated)
			}
			if apierrors.IsAlreadyExists(err) && attempt < conflictRetries {
				continue // created meanwhile: update it
			}
			return failed(kind, name, apiError("creating", kind, name, err))
		}
		if err != nil {
			return failed(kind, name, apiError("reading", kind, name, err))
		}
		out, changed := update(live)
		if !changed {
			return result(kind, name, intent.ActionUnchanged)
		}
		if msg := a.denied(ctx, kind, out, live); msg != "" {
			return failed(kind, name, msg)
		}
		err = a.update(ctx, out)
		if err == nil {
			return result(kind, name, intent.ActionUpdated)
		}
		if apierrors.IsConflict(err) && attempt < conflictRetries {
			continue
		}
		return failed(kind, name, apiError("updating", kind, name, err))
	}
}

// agent upserts one AgentRuntime: created from the desired object (merged
// over nothing), or merged over the live agent read fresh, and not written
// when the merge changes nothing. A create: true agent that appeared since
// the 409 check fails rather than being updated.
func (a *applier) agent(ctx context.Context, ag translate.Agent) intent.ResourceResult {
	kind := translate.KindAgentRuntime
	if ag.Err != nil {
		return failed(kind, ag.Name, ag.Err.Error())
	}
	for attempt := 0; ; attempt++ {
		live := &v1alpha1.AgentRuntime{}
		err := a.r.Get(ctx, client.ObjectKeyFromObject(ag.Desired), live)
		if apierrors.IsNotFound(err) {
			merged, _ := merge.Merge(nil, ag.Desired, ag.Options)
			if msg := a.denied(ctx, kind, merged, nil); msg != "" {
				return failed(kind, ag.Name, msg)
			}
			err = a.create(ctx, merged)
			if err == nil {
				return result(kind, ag.Name, intent.ActionCreated)
			}
			if apierrors.IsAlreadyExists(err) && !ag.Create && attempt < conflictRetries {
				continue
			}
			return failed(kind, ag.Name, apiError("creating", kind, ag.Name, err))
		}
		if err != nil {
			return failed(kind, ag.Name, apiError("reading", kind, ag.Name, err))
		}
		if ag.Create {
			return failed(kind, ag.Name, "AgentRuntime "+ag.Name+" appeared during the deploy and agents[].create is true: it was not updated")
		}
		merged, changed := merge.Merge(live, ag.Desired, ag.Options)
		if !changed {
			return result(kind, ag.Name, intent.ActionUnchanged)
		}
		if msg := a.denied(ctx, kind, merged, live); msg != "" {
			return failed(kind, ag.Name, msg)
		}
		err = a.update(ctx, merged)
		if err == nil {
			return result(kind, ag.Name, intent.ActionUpdated)
		}
		if apierrors.IsConflict(err) && attempt < conflictRetries {
			continue
		}
		return failed(kind, ag.Name, apiError("updating", kind, ag.Name, err))
	}
}
