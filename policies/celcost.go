package policies

import (
	"github.com/google/cel-go/checker"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
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
	case plugincel.ObjectVarName, plugincel.OldObjectVarName:
		return declTypeSize(s.object.declType, path[1:])
	case plugincel.ParamsVarName:
		// No value inside params is larger than params' JSON.
		return &checker.SizeEstimate{Min: 0, Max: uint64(s.params.size)}
	case plugincel.NamespaceVarName:
		return &checker.SizeEstimate{Min: 0, Max: uint64(celconfig.MaxRequestSizeBytes)}
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
