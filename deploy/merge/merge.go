// Package merge is the field merge of an AgentRuntime on a redeploy
// (deploy-intent.md § What a redeploy preserves, § Rollout interaction):
// a deploy applies only what the intent can express, and every other field
// belongs to whoever set it. Which field is whose is data (classification
// in tiers.go), checked against the Go types by a drift test.
//
// The package is pure: no client, no clock. The translation of an intent
// into the desired AgentRuntime lives elsewhere; Merge takes its result.
package merge

import (
	"context"
	"reflect"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
)

// FacadeHandler is the handler every deployed facade gets: the spec forces
// it to runtime whatever the live object had.
const FacadeHandler = v1alpha1.AgentRuntimeFacadeHandler("runtime")

// IdleTimeoutAnnotation is the intent-owned annotation agents[].idleTimeout
// sets (rules owns its validity).
const IdleTimeoutAnnotation = rules.AgentRuntimeIdleTimeoutAnnotation

// Options carries what the intent says and an AgentRuntime cannot.
type Options struct {
	// PreserveUnset is agents[].preserveUnset: memory, evals and
	// externalAuth the desired object leaves nil keep the live values
	// instead of being cleared.
	PreserveUnset bool
	// RolloutBlock says the intent carried a rollout block. Without one the
	// live rollout is left untouched (a manually driven canary included),
	// whatever desired.Spec.Rollout holds. With one, desired.Spec.Rollout
	// (nil counts as an empty block) supplies the intent's sub-fields.
	RolloutBlock bool
	// IdleTimeout is agents[].idleTimeout, already validated as a positive
	// Go duration; "" means the intent has none, and the annotation is
	// removed so the agent is never reaped.
	IdleTimeout string
}

// Merge computes the AgentRuntime a deploy writes over live. desired is
// the intent translated into an AgentRuntime: its intent-expressible fields
// are set (promptPackRef name and version, providers, runtime replicas and
// resources, facades with type and planes in the intent's order, never
// empty, toolRegistryRef, externalAuth, memory, evals, rollout trigger and
// steps); whatever else it holds is ignored on an update. live nil means the
// agent does not exist: the result is desired under the same rules (with
// desired's metadata), and changed is true.
//
// changed is false when the merged object equals live once the API
// server's defaults are applied to both (Equivalent): the deploy then
// writes nothing, and the agent keeps its generation.
//
// Neither argument is modified; merged shares no memory with them.
func Merge(live, desired *v1alpha1.AgentRuntime, opts Options) (merged *v1alpha1.AgentRuntime, changed bool) {
	des := desired.DeepCopy()
	base := live
	if base == nil {
		base = &v1alpha1.AgentRuntime{TypeMeta: des.TypeMeta, ObjectMeta: *des.ObjectMeta.DeepCopy()}
	}
	merged = base.DeepCopy()
	mergeSpec(&merged.Spec, &base.Spec, &des.Spec, opts)
	setIdleTimeout(&merged.ObjectMeta.Annotations, opts.IdleTimeout)
	if live == nil {
		return merged, true
	}
	return merged, !Equivalent(live, merged)
}

// fieldMerged are the handlers of the FieldMerged parents, in the order
// they run: the rollout is merged before the pack ref, so pin ownership is
// decided from the rollout the deploy leaves behind. The drift test checks
// that this list and the classification's FieldMerged paths agree.
var fieldMerged = []struct {
	path  string
	merge func(out, live, des *v1alpha1.AgentRuntimeSpec, opts Options)
}{
	{"rollout", mergeRollout},
	{"promptPackRef", mergePromptPackRef},
	{"runtime", mergeRuntime},
	{"facades", mergeFacades},
}

// mergeSpec merges des into out (a copy of live).
func mergeSpec(out, live, des *v1alpha1.AgentRuntimeSpec, opts Options) {
	keep := func(path string, v reflect.Value) bool {
		return opts.PreserveUnset && preserveUnsetPaths[path] && v.IsZero()
	}
	mergeChildren(reflect.ValueOf(out).Elem(), reflect.ValueOf(des).Elem(), "", keep)
	for _, fm := range fieldMerged {
		fm.merge(out, live, des, opts)
	}
}

// mergeChildren assigns to dst every field of src whose path (prefix +
// its JSON name) is IntentOwned, unless keep says to leave it; Preserved
// and FieldMerged fields (and any path the classification lacks) are left
// as dst has them. dst and src are values of the same struct type.
func mergeChildren(dst, src reflect.Value, prefix string, keep func(path string, v reflect.Value) bool) {
	t := dst.Type()
	for i := 0; i < t.NumField(); i++ {
		name, inline := jsonName(t.Field(i))
		if inline {
			mergeChildren(dst.Field(i), src.Field(i), prefix, keep)
			continue
		}
		if name == "" {
			continue
		}
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		if tiers[path] != IntentOwned {
			continue
		}
		if keep != nil && keep(path, src.Field(i)) {
			continue
		}
		dst.Field(i).Set(src.Field(i))
	}
}

// mergeRollout: no rollout block leaves the live rollout untouched; a
// block's trigger and steps replace the live ones (no trigger clears the
// live trigger, exiting trigger mode), and candidate, stickySession,
// rollback and trafficRouting stay.
func mergeRollout(out, _, des *v1alpha1.AgentRuntimeSpec, opts Options) {
	if !opts.RolloutBlock {
		return
	}
	if out.Rollout == nil {
		out.Rollout = &v1alpha1.AgentRuntimeRollout{}
	}
	src := des.Rollout
	if src == nil {
		src = &v1alpha1.AgentRuntimeRollout{}
	}
	mergeChildren(reflect.ValueOf(out.Rollout).Elem(), reflect.ValueOf(src).Elem(), "rollout", nil)
}

// mergePromptPackRef runs after mergeRollout. The intent owns the pack
// name and, by default, the pin (version); the track is never written.
//   - the rollout left behind has a trigger and live had one: the agent is
//     in trigger mode, and the live pin stays with the version-triggered
//     rollout controller;
//   - the rollout left behind has a trigger and live had none: entering
//     trigger mode, the pin comes from the intent and the track is cleared;
//   - no trigger left behind and live follows a track: the track follower
//     keeps following, and gets no version (version and track are mutually
//     exclusive under the CRD's own validation);
//   - otherwise the pin comes from the intent.
//
// A desired object without a promptPackRef leaves the live one alone: an
// intent always names its pack, so there is nothing to say.
func mergePromptPackRef(out, live, des *v1alpha1.AgentRuntimeSpec, _ Options) {
	if des.PromptPackRef == nil {
		return
	}
	if out.PromptPackRef == nil {
		out.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{}
	}
	ref := out.PromptPackRef
	mergeChildren(reflect.ValueOf(ref).Elem(), reflect.ValueOf(des.PromptPackRef).Elem(), "promptPackRef", nil)
	liveTrigger := live.Rollout != nil && live.Rollout.Trigger != nil
	leftTrigger := out.Rollout != nil && out.Rollout.Trigger != nil
	switch {
	case leftTrigger && liveTrigger:
		if live.PromptPackRef != nil {
			ref.Version = live.PromptPackRef.Version
		}
	case leftTrigger:
		ref.Track = ""
	case ref.Track != "":
		ref.Version = ""
	}
}

// mergeRuntime: replicas and resources are the intent's (unset means the
// API server's default); scheduling, volumes, extraEnv, events and
// autoscaling stay.
func mergeRuntime(out, _, des *v1alpha1.AgentRuntimeSpec, _ Options) {
	if out.Runtime == nil && des.Runtime == nil {
		return
	}
	if out.Runtime == nil {
		out.Runtime = &v1alpha1.AgentRuntimeRuntime{}
	}
	src := des.Runtime
	if src == nil {
		src = &v1alpha1.AgentRuntimeRuntime{}
	}
	mergeChildren(reflect.ValueOf(out.Runtime).Elem(), reflect.ValueOf(src).Elem(), "runtime", nil)
}

// mergeFacades: the intent's list decides which facades exist and their
// order. Each is matched to the live facade of the same type (unset type
// is websocket, the CRD default); it takes type, managementPlane and
// dataPlane from the intent, handler runtime, and the live facade's
// port, drainTimeout, image, extraEnv, clientToolTimeout, a2a, mcp, expose
// and async. A live facade whose type the intent no longer lists is
// removed with its settings: the facade type is intent-owned.
func mergeFacades(out, _, des *v1alpha1.AgentRuntimeSpec, _ Options) {
	liveByType := map[v1alpha1.AgentRuntimeFacadeType]*v1alpha1.AgentRuntimeFacade{}
	for i := range out.Facades {
		if _, seen := liveByType[facadeType(out.Facades[i])]; !seen {
			liveByType[facadeType(out.Facades[i])] = &out.Facades[i]
		}
	}
	facades := make([]v1alpha1.AgentRuntimeFacade, 0, len(des.Facades))
	for i := range des.Facades {
		var f v1alpha1.AgentRuntimeFacade
		if lf, ok := liveByType[facadeType(des.Facades[i])]; ok {
			lf.DeepCopyInto(&f)
		}
		src := des.Facades[i]
		src.Handler = FacadeHandler
		mergeChildren(reflect.ValueOf(&f).Elem(), reflect.ValueOf(&src).Elem(), "facades[]", nil)
		facades = append(facades, f)
	}
	out.Facades = facades
}

func facadeType(f v1alpha1.AgentRuntimeFacade) v1alpha1.AgentRuntimeFacadeType {
	if f.Type == "" {
		return v1alpha1.AgentRuntimeFacadeTypeWebSocket
	}
	return f.Type
}

// setIdleTimeout makes the idle-timeout annotation say v, removing it for
// "". Other annotations are untouched.
func setIdleTimeout(annotations *map[string]string, v string) {
	if v == "" {
		delete(*annotations, IdleTimeoutAnnotation)
		return
	}
	if *annotations == nil {
		*annotations = map[string]string{}
	}
	(*annotations)[IdleTimeoutAnnotation] = v
}

// Equivalent reports whether a and b have the same spec once the API
// server's defaults (the CRD's +kubebuilder:default markers, applied by the
// API server's own structural defaulting through schema.Default) fill
// both, and the same labels and annotations (nil and empty are the same).
// Status and the rest of metadata are not compared.
func Equivalent(a, b *v1alpha1.AgentRuntime) bool {
	if !sameMap(a.Annotations, b.Annotations) || !sameMap(a.Labels, b.Labels) {
		return false
	}
	da, errA := defaultedSpec(&a.Spec)
	db, errB := defaultedSpec(&b.Spec)
	if errA != nil || errB != nil {
		// No schema to default with: compare as written, which can only
		// report a change that is not one (a write, never a lost update).
		return apiequality.Semantic.DeepEqual(a.Spec, b.Spec)
	}
	return reflect.DeepEqual(da, db)
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// defaultedSpec is spec as the API server would store it: its JSON form,
// pruned and defaulted with the embedded CRD's structural schema.
func defaultedSpec(spec *v1alpha1.AgentRuntimeSpec) (any, error) {
	sv, err := schema.Default()
	if err != nil {
		return nil, err
	}
	ar := &v1alpha1.AgentRuntime{Spec: *spec}
	ar.Name, ar.Namespace = "merge", "merge"
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ar)
	if err != nil {
		return nil, err
	}
	u["apiVersion"] = v1alpha1.GroupVersion.String()
	u["kind"] = "AgentRuntime"
	res, err := sv.ValidateCreate(context.Background(), u)
	if err != nil {
		return nil, err
	}
	return res.Object["spec"], nil
}
