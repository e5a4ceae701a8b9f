package agentruntime

import (
	"context"
	"fmt"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// The analysis step of a rollout (agentruntime.md § rollout.steps[].analysis):
// run a RolloutAnalysis template and say whether the rollout may advance.
//
// Issue #12 skeleton: until the RolloutAnalysis kind lands, an analysis step
// reports an error.

// analysisPhase is where an analysis run stands.
type analysisPhase string

const (
	analysisRunning    analysisPhase = "Running"
	analysisSuccessful analysisPhase = "Successful"
	analysisFailed     analysisPhase = "Failed"
	// analysisError: the analysis could not be run (template missing,
	// provider unreachable past its limit); treated as Failed by rollback.
	analysisError analysisPhase = "Error"
)

// analysisVerdict is the state of the analysis step after one reconcile.
type analysisVerdict struct {
	Phase   analysisPhase
	Message string
}

// analyze advances the analysis step for the agent's current step; st is
// status.rollout.analysis, which it updates in place (nil on the step's
// first reconcile). It asks for a requeue through in.requeue when a
// measurement is due later.
func (r *Reconciler) analyze(_ context.Context, _ *v1alpha1.AgentRuntime, step *v1alpha1.AgentRuntimeRolloutAnalysis, _ **v1alpha1.AgentRuntimeRolloutAnalysisStatus, _ *statusInput) (analysisVerdict, error) {
	return analysisVerdict{Phase: analysisError, Message: fmt.Sprintf("RolloutAnalysis %q: analysis is not available", step.TemplateName)}, nil
}
