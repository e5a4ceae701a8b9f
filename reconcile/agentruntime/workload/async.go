package workload

import (
	"github.com/altairalabs/omnia/api/v1alpha1"
)

// AsyncQueueHashAnnotation is on the pod template of an agent whose async
// queue URL comes from the operator's Secret copy, and on the copy: a
// digest of the URL salted with the agent's UID (never the URL), so that a
// rewritten copy rolls the pods and an unchanged copy is not rewritten.
const AsyncQueueHashAnnotation = "omnia.altairalabs.ai/async-queue-hash"

// AsyncEnabled reports whether a facade of the agent sets async.enabled.
func AsyncEnabled(ar *v1alpha1.AgentRuntime) bool {
	for i := range ar.Spec.Facades {
		if a := ar.Spec.Facades[i].Async; a != nil && a.Enabled {
			return true
		}
	}
	return false
}

// asyncQueueHash is the pod template's AsyncQueueHashAnnotation: the
// digest of the copied URL, on an agent with async on whose URL comes from
// the operator's Secret copy; "" otherwise (no annotation).
func asyncQueueHash(ar *v1alpha1.AgentRuntime, r *Resolved) string {
	if r.AsyncQueue == nil || r.AsyncQueue.SecretName == "" || !AsyncEnabled(ar) {
		return ""
	}
	return r.AsyncQueue.Hash
}
