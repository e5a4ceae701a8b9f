package policies

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// evalInput is one object as both languages read it: the JSON maps of the
// object, its old version (nil on create) and its Namespace (nil for a
// cluster-scoped object), plus its kind.
type evalInput struct {
	kind      string
	object    map[string]any
	oldObject map[string]any
	namespace map[string]any
	// scratch is the evaluation's (rules.Input.Scratch): where a policy's
	// Rego budget is kept.
	scratch *rules.Scratch
}

// newEvalInput converts in's typed objects to the JSON maps the API server
// would hand a ValidatingAdmissionPolicy.
func (e *Env) newEvalInput(in rules.Input) (*evalInput, error) {
	kind, obj, err := e.toMap(in.Object)
	if err != nil {
		return nil, err
	}
	out := &evalInput{kind: kind, object: obj, scratch: in.Scratch()}
	if !isNil(in.Old) {
		if _, out.oldObject, err = e.toMap(in.Old); err != nil {
			return nil, fmt.Errorf("old object: %w", err)
		}
	}
	ns, _, _ := unstructuredNamespace(obj)
	if nsObj := rules.NamespaceOf(in.Facts, ns); nsObj != nil {
		// The same fields ValidatingAdmissionPolicy exposes (no managed
		// fields, no owner references).
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(namespaceObject(nsObj))
		if err != nil {
			return nil, fmt.Errorf("namespace: %w", err)
		}
		dropNulls(m)
		out.namespace = m
	}
	return out, nil
}

// toMap returns obj's kind and JSON map, with apiVersion and kind set (a
// typed object built in Go often has an empty TypeMeta).
func (e *Env) toMap(obj runtime.Object) (string, map[string]any, error) {
	if isNil(obj) {
		return "", nil, fmt.Errorf("no object")
	}
	var m map[string]any
	if u, ok := obj.(runtime.Unstructured); ok {
		m = runtime.DeepCopyJSON(u.UnstructuredContent())
	} else {
		var err error
		if m, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
			return "", nil, err
		}
	}
	kind, _ := m["kind"].(string)
	if kind == "" {
		gvks, _, err := e.scheme.ObjectKinds(obj)
		if err != nil || len(gvks) == 0 {
			return "", nil, fmt.Errorf("%T is not an Omnia kind", obj)
		}
		kind = gvks[0].Kind
		m["kind"] = kind
		m["apiVersion"] = v1alpha1.GroupVersion.String()
	}
	dropNulls(m)
	return kind, m, nil
}

// dropNulls removes null map entries, at any depth, as the API server's
// stored JSON has none where Go's converter writes a zero timestamp as
// null: `has(object.metadata.creationTimestamp)` then means what it says.
func dropNulls(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if x == nil {
				delete(t, k)
				continue
			}
			dropNulls(x)
		}
	case []any:
		for _, x := range t {
			dropNulls(x)
		}
	}
}

func unstructuredNamespace(obj map[string]any) (string, map[string]string, bool) {
	meta, _ := obj["metadata"].(map[string]any)
	ns, _ := meta["namespace"].(string)
	labels := map[string]string{}
	l, _ := meta["labels"].(map[string]any)
	for k, v := range l {
		if s, ok := v.(string); ok {
			labels[k] = s
		}
	}
	return ns, labels, meta != nil
}

// isNil reports whether o is nil or a typed nil pointer (an Input's Old on
// create may be either).
func isNil(o runtime.Object) bool {
	if o == nil {
		return true
	}
	v := reflect.ValueOf(o)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
