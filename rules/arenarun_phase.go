package rules

import "github.com/altairalabs/omnia/api/v1alpha1"

// ArenaRunPhaseFinal reports whether an ArenaRun phase is final:
// Succeeded, Failed or Cancelled (arenajob.md#phase). The ArenaJob
// controller counts the other phases as active runs (concurrency policy,
// history limits); the ArenaRun controller stops working on a run in a
// final phase and no longer counts it against the workspace quota.
func ArenaRunPhaseFinal(p v1alpha1.ArenaRunPhase) bool {
	switch p {
	case v1alpha1.ArenaRunPhaseSucceeded, v1alpha1.ArenaRunPhaseFailed, v1alpha1.ArenaRunPhaseCancelled:
		return true
	}
	return false
}
