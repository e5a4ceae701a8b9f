// Package transitions turns condition changes into events. Every controller
// reports the same way: a Warning when a condition turns False, a Normal
// event when one recovers from False to True, and nothing while a condition
// holds its status (so a steady state writes no events).
package transitions

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"

	"github.com/altairalabs/omnia/conditions"
)

// MaxNote bounds an event's note: events.k8s.io allows 1 kB.
const MaxNote = 1000

// Event is one event a transition calls for.
type Event struct {
	// Type is corev1.EventTypeWarning or corev1.EventTypeNormal.
	Type string
	// Reason is the condition's reason.
	Reason string
	// Action is the condition type: events.k8s.io folds events of the same
	// object, type, reason and action into one series, so the action keeps
	// transitions of different conditions that share a reason apart.
	Action string
	// Note is "<type> is <status>: <message>", bounded by MaxNote. Condition
	// messages never hold a Secret value, so neither does the note.
	Note string
}

// Of returns the events for the change from old to cur, in cur's order.
func Of(old, cur []metav1.Condition) []Event {
	var out []Event
	for _, c := range cur {
		prev := meta.FindStatusCondition(old, c.Type)
		var typ string
		switch {
		case c.Status == metav1.ConditionFalse && (prev == nil || prev.Status != metav1.ConditionFalse):
			typ = corev1.EventTypeWarning
		case c.Status == metav1.ConditionTrue && prev != nil && prev.Status == metav1.ConditionFalse:
			typ = corev1.EventTypeNormal
		default:
			continue
		}
		out = append(out, Event{Type: typ, Reason: c.Reason, Action: c.Type,
			Note: conditions.Truncate(fmt.Sprintf("%s is %s: %s", c.Type, c.Status, c.Message), MaxNote)})
	}
	return out
}

// Emit records Of(old, cur) on obj. A nil recorder records nothing.
func Emit(recorder events.EventRecorder, obj runtime.Object, old, cur []metav1.Condition) {
	if recorder == nil {
		return
	}
	for _, e := range Of(old, cur) {
		recorder.Eventf(obj, nil, e.Type, e.Reason, e.Action, "%s", e.Note)
	}
}
