package policies

import (
	"github.com/google/cel-go/checker"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// sizeEstimator gives CEL's cost estimator the worst-case size of what an
// expression iterates, so a policy's cost is estimated as a CRD rule's is:
// object and oldObject from the kind's schema (maxItems, maxLength, or what
// fits in a request), namespaceObject from what fits in a request, params
// from the policy's own params (known at compile time). Without it every
// comprehension would be estimated over an unbounded list and refused.
type sizeEstimator struct {
	object *kindEnv
	params paramsValue
}

func (s *sizeEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	path := element.Path()
	if len(path) == 0 {
		return nil
	}
	switch path[0] {
	case varObject, varOldObject:
		if metadataMapKey(path[1:]) {
			return &checker.SizeEstimate{Min: 0, Max: maxQualifiedNameLength}
		}
		return declTypeSize(s.object.declType, path[1:])
	case varParams:
		// No value inside params is larger than params' JSON.
		return &checker.SizeEstimate{Min: 0, Max: uint64(s.params.size)}
	case varNamespace:
		return namespaceSize(path[1:])
	}
	return nil
}

func (s *sizeEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	return nil
}

// declTypeSize walks a path of field names (and CEL's @items, @values,
// @keys) down a DeclType and returns the MaxElements where it ends.
func declTypeSize(t *apiservercel.DeclType, path []string) *checker.SizeEstimate {
	cur := t
	for _, name := range path {
		if cur == nil {
			return nil
		}
		switch name {
		case "@items", "@values":
			cur = cur.ElemType
		case "@keys":
			cur = cur.KeyType
		default:
			f, ok := cur.Fields[name]
			if !ok {
				return nil
			}
			cur = f.Type
		}
	}
	if cur == nil || cur.MaxElements < 0 {
		return &checker.SizeEstimate{Min: 0, Max: uint64(celconfig.MaxRequestSizeBytes)}
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(cur.MaxElements)}
}

// maxQualifiedNameLength bounds a label or annotation key: a 253-character
// DNS prefix, a slash and a 63-character name.
const maxQualifiedNameLength = 253 + 1 + 63

// minMapEntryBytes is the least a JSON map entry takes ("":"",), so no map
// in a request has more entries than the request's size over it.
const minMapEntryBytes = 6

// metadataMapKey reports whether path is the keys of metadata.labels or
// metadata.annotations.
func metadataMapKey(path []string) bool {
	return len(path) == 3 && path[0] == "metadata" && (path[1] == "labels" || path[1] == "annotations") && path[2] == "@keys"
}

// namespaceSize bounds what a rule reads of namespaceObject. Its DeclType
// (ValidatingAdmissionPolicy's) bounds nothing, which would price every
// look at its labels as a walk over a whole request.
func namespaceSize(path []string) *checker.SizeEstimate {
	est := func(n uint64) *checker.SizeEstimate { return &checker.SizeEstimate{Min: 0, Max: n} }
	switch {
	case metadataMapKey(path):
		return est(maxQualifiedNameLength)
	case len(path) == 2 && path[0] == "metadata" && (path[1] == "labels" || path[1] == "annotations"):
		return est(uint64(celconfig.MaxRequestSizeBytes) / minMapEntryBytes)
	case len(path) == 3 && path[0] == "metadata" && path[1] == "labels" && path[2] == "@values":
		return est(63)
	case len(path) == 2 && path[0] == "metadata" && path[1] == "name":
		return est(63)
	}
	return est(uint64(celconfig.MaxRequestSizeBytes))
}
