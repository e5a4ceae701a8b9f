package rules

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// The spec ties a facade's a2a block to type a2a and its mcp block to type
// mcp (agentruntime.md § facades: "only for type: a2a", "only for type:
// mcp"). A block on a facade of another type is ignored everywhere (pod,
// task store, A2A clients, durations), with an admission warning, so a
// websocket facade's stray a2a.taskStore never configures the facade.

// AgentRuntimeFacadeA2A is f's a2a block when f is an a2a facade; nil
// otherwise.
func AgentRuntimeFacadeA2A(f *v1alpha1.AgentRuntimeFacade) *v1alpha1.AgentRuntimeFacadeA2A {
	if agentRuntimeFacadeType(f) != v1alpha1.AgentRuntimeFacadeTypeA2A {
		return nil
	}
	return f.A2A
}

// AgentRuntimeFacadeMCP is f's mcp block when f is an mcp facade; nil
// otherwise.
func AgentRuntimeFacadeMCP(f *v1alpha1.AgentRuntimeFacade) *v1alpha1.AgentRuntimeFacadeMCP {
	if agentRuntimeFacadeType(f) != v1alpha1.AgentRuntimeFacadeTypeMCP {
		return nil
	}
	return f.MCP
}

func init() {
	Default.Register(Rule{
		ID:       "agentruntime/facade-block-type",
		Kinds:    agentRuntimeKinds,
		Stage:    StageAdmission,
		Severity: SeverityWarn,
		Doc: "A facade's a2a block is read only on an a2a facade and its mcp block only on an mcp facade; on a facade of another type " +
			"the block is ignored, with this warning.",
		Spec:  "agentruntime.md#facades",
		Check: checkAgentRuntimeFacadeBlockType,
	})
}

func checkAgentRuntimeFacadeBlockType(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	var errs field.ErrorList
	for i := range ar.Spec.Facades {
		f := &ar.Spec.Facades[i]
		fp := field.NewPath("spec", "facades").Index(i)
		t := agentRuntimeFacadeType(f)
		if f.A2A != nil && t != v1alpha1.AgentRuntimeFacadeTypeA2A {
			errs = append(errs, field.Invalid(fp.Child("a2a"), string(t),
				"a2a is read only on a facade of type a2a and is ignored on a "+string(t)+" facade: move it to an a2a facade or remove it"))
		}
		if f.MCP != nil && t != v1alpha1.AgentRuntimeFacadeTypeMCP {
			errs = append(errs, field.Invalid(fp.Child("mcp"), string(t),
				"mcp is read only on a facade of type mcp and is ignored on a "+string(t)+" facade: move it to an mcp facade or remove it"))
		}
	}
	return errs
}
