package rules

import (
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The update ratchet: the semantics of Kubernetes' own CRD validation
// ratcheting, applied to the catalog's findings so every surface that judges
// an update (the webhook, the deploy API) refuses the same updates.
//
//   - On update, only a deny finding the old object does not already have
//     (same rule ID and same field) may refuse. An object admitted in audit or
//     warn mode, or before a rule existed or became deny, can still be
//     edited; what the edit adds is judged.
//   - An update that leaves spec unchanged (labels, annotations, finalizers,
//     owner references, status on a kind without a status subresource), or
//     one made to an object whose deletion has begun, is never refused: such
//     an update cannot make the spec worse, and refusing it would keep a
//     Terminating object's finalizer in place forever.
//
// Findings the ratchet lets through are not dropped. They stay in the result
// with severity warn and Ratcheted set, so the caller still reports them (the
// webhook as admission warnings, the deploy API as diagnostics) and the user
// learns the stored object is wrong. Dropping them would hide a violation
// exactly when someone is editing the object and could fix it.

// Ratchet returns findings (the new object's, evaluated with the old object
// in Input.Old) with every deny finding that oldFindings (the old object's,
// evaluated as a create, with the same catalog and options) already holds at
// the same rule ID and field turned into a ratcheted warning. Findings the old
// object did not have are returned unchanged. The input slice is not
// modified.
func Ratchet(findings, oldFindings []Finding) []Finding {
	present := make(map[findingKey]bool, len(oldFindings))
	for _, f := range oldFindings {
		present[keyOf(f)] = true
	}
	out := make([]Finding, len(findings))
	for i, f := range findings {
		if f.Severity == SeverityDeny && present[keyOf(f)] {
			f = ratcheted(f)
		}
		out[i] = f
	}
	return out
}

// RatchetAll turns every deny finding into a ratcheted warning: the answer
// for an update UpdateNeverRefused exempts.
func RatchetAll(findings []Finding) []Finding {
	out := make([]Finding, len(findings))
	for i, f := range findings {
		if f.Severity == SeverityDeny {
			f = ratcheted(f)
		}
		out[i] = f
	}
	return out
}

// RatchetUpdate is the whole ratchet for one update: RatchetAll when
// UpdateNeverRefused exempts it, else Ratchet against the old object's
// findings. oldFindings evaluates the old object as a create with the same
// catalog and options; it is called only when needed (not for an exempt
// update, nor when the new object has no finding).
func RatchetUpdate(obj, old runtime.Object, findings []Finding, oldFindings func() []Finding) []Finding {
	if len(findings) == 0 {
		return findings
	}
	if UpdateNeverRefused(obj, old) {
		return RatchetAll(findings)
	}
	return Ratchet(findings, oldFindings())
}

// UpdateNeverRefused reports whether an update from old to obj may not be
// refused whatever it finds: the object is being deleted (its
// metadata.deletionTimestamp is set, on either version), or its spec is
// unchanged. Objects are typed (e.g. *v1alpha1.Provider) or
// *unstructured.Unstructured; both must have gone through the same
// defaulting, as the API server's old and new objects have. An object whose
// spec cannot be read is not exempt (fail towards judging the update).
func UpdateNeverRefused(obj, old runtime.Object) bool {
	if obj == nil || old == nil {
		return false
	}
	if deleting(obj) || deleting(old) {
		return true
	}
	spec, ok := specOf(obj)
	if !ok {
		return false
	}
	oldSpec, ok := specOf(old)
	if !ok {
		return false
	}
	// Semantic equality: a nil and an empty list or map are the same spec.
	return equality.Semantic.DeepEqual(spec, oldSpec)
}

// findingKey identifies a finding across the old and new object.
type findingKey struct{ rule, field string }

func keyOf(f Finding) findingKey { return findingKey{f.RuleID, f.Field} }

func ratcheted(f Finding) Finding {
	f.Severity = SeverityWarn
	f.Ratcheted = true
	return f
}

func deleting(obj runtime.Object) bool {
	m, err := meta.Accessor(obj)
	return err == nil && m.GetDeletionTimestamp() != nil
}

// specOf returns the object's spec as JSON-shaped data, so a typed object and
// an unstructured one compare alike. ok is false when the object cannot be
// converted; an object without a spec has a nil spec.
func specOf(obj runtime.Object) (any, bool) {
	if u, isU := obj.(*unstructured.Unstructured); isU {
		return u.Object["spec"], true
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, false
	}
	return m["spec"], true
}
