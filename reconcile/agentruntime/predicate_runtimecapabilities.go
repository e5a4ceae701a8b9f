package agentruntime

import (
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// runtimeCapabilitiesChanged passes an AgentRuntime update whose
// status.runtimeCapabilities changed. The runtime reports there, and a
// status write bumps no generation, so without it the controller would not
// see a report until the next spec edit: CapabilitiesSatisfied would stay
// stale and a Deployment that must be scaled to zero (or back up) would not
// be. It is ORed with the generation predicate on For(AgentRuntime); every
// other status write (the controller's own conditions, the facade's
// counters) still passes nothing.
func runtimeCapabilitiesChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, okOld := e.ObjectOld.(*v1alpha1.AgentRuntime)
			n, okNew := e.ObjectNew.(*v1alpha1.AgentRuntime)
			return okOld && okNew && !slices.Equal(o.Status.RuntimeCapabilities, n.Status.RuntimeCapabilities)
		},
		CreateFunc:  func(event.CreateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}
