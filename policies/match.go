package policies

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/rules"
)

// matcher is a policy's namespaceSelector and objectSelector, parsed once.
type matcher struct {
	namespace labels.Selector // nil: every namespace (and cluster-scoped objects)
	object    labels.Selector // nil: every object
}

// newMatcher parses the selectors; a malformed one is a compile error of
// the field it sits at.
func newMatcher(ns, obj *metav1.LabelSelector) (*matcher, []fieldError) {
	m := &matcher{}
	var errs []fieldError
	var err error
	if ns != nil {
		if m.namespace, err = metav1.LabelSelectorAsSelector(ns); err != nil {
			errs = append(errs, fieldError{field: "spec.namespaceSelector", msg: err.Error()})
		}
	}
	if obj != nil {
		if m.object, err = metav1.LabelSelectorAsSelector(obj); err != nil {
			errs = append(errs, fieldError{field: "spec.objectSelector", msg: err.Error()})
		}
	}
	return m, errs
}

// matches says whether the policy selects in's object, as
// ValidatingAdmissionPolicy does: the namespaceSelector against the labels
// of the object's Namespace (a cluster-scoped object never matches a
// namespaceSelector that is set), the objectSelector against the object's
// labels or, on update, the old object's.
func (m *matcher) matches(in rules.Input) bool {
	if isNil(in.Object) {
		return false
	}
	obj, err := meta.Accessor(in.Object)
	if err != nil {
		return false
	}
	if m.namespace != nil {
		ns := rules.NamespaceOf(in.Facts, obj.GetNamespace())
		if ns == nil || !m.namespace.Matches(labels.Set(ns.Labels)) {
			return false
		}
	}
	if m.object == nil {
		return true
	}
	if m.object.Matches(labels.Set(obj.GetLabels())) {
		return true
	}
	return !isNil(in.Old) && labelsMatch(m.object, in.Old)
}

func labelsMatch(sel labels.Selector, o runtime.Object) bool {
	obj, err := meta.Accessor(o)
	return err == nil && sel.Matches(labels.Set(obj.GetLabels()))
}
