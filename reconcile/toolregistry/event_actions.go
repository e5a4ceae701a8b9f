package toolregistry

// Event actions (events.k8s.io/v1 Event.action).
const (
	// ActionReconcile is the action of every condition-transition event.
	ActionReconcile = "Reconcile"
)
