// Package transitions turns condition changes into events. Every controller
// reports the same way: a Warning when a condition turns False, a Normal
// event when one recovers from False to True, and nothing while a condition
// holds its status (so a steady state writes no events).
//
// A kind whose objects spend their first seconds waiting (an agent waits
// for its Provider and for a ready replica) names those waiting reasons in
// a Policy: an object still coming up is not at fault, so its first False
// with such a reason warns no one, and the end of that wait is reported
// once, as its Ready condition turning True, rather than as one Warning and
// one Normal per condition. A condition that was True and turns False warns
// whatever its reason: that is a regression, not a start.
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

// Policy tunes the events of one kind. The zero Policy is the default
// above.
type Policy struct {
	// Waiting reports whether a False reason means the object is still
	// coming up (waiting on a dependency or for a ready replica) rather than
	// a fault. Nil: no reason is a wait.
	Waiting func(reason string) bool
	// ReadyType, when set, is the roll-up condition whose turning True
	// from anything else is always reported (Normal), so a start whose
	// waits were silent still leaves one event.
	ReadyType string
}

func (p Policy) waiting(reason string) bool { return p.Waiting != nil && p.Waiting(reason) }

// Of returns the events for the change from old to cur under the default
// policy, in cur's order.
func Of(old, cur []metav1.Condition) []Event { return OfPolicy(old, cur, Policy{}) }

// OfPolicy returns the events for the change from old to cur under p, in
// cur's order.
func OfPolicy(old, cur []metav1.Condition, p Policy) []Event {
	var out []Event
	for _, c := range cur {
		prev := meta.FindStatusCondition(old, c.Type)
		wasTrue := prev != nil && prev.Status == metav1.ConditionTrue
		wasFalse := prev != nil && prev.Status == metav1.ConditionFalse
		var typ string
		switch {
		case c.Status == metav1.ConditionFalse && !wasFalse:
			// A first wait is silent; a regression from True always warns.
			if !wasTrue && p.waiting(c.Reason) {
				continue
			}
			typ = corev1.EventTypeWarning
		case c.Status == metav1.ConditionTrue && p.ReadyType != "" && c.Type == p.ReadyType && !wasTrue:
			typ = corev1.EventTypeNormal
		case c.Status == metav1.ConditionTrue && wasFalse:
			// The end of a wait is reported by ReadyType, not here.
			if p.waiting(prev.Reason) {
				continue
			}
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
	EmitPolicy(recorder, obj, old, cur, Policy{})
}

// EmitPolicy records OfPolicy(old, cur, p) on obj. A nil recorder records
// nothing.
func EmitPolicy(recorder events.EventRecorder, obj runtime.Object, old, cur []metav1.Condition, p Policy) {
	if recorder == nil {
		return
	}
	for _, e := range OfPolicy(old, cur, p) {
		recorder.Eventf(obj, nil, e.Type, e.Reason, e.Action, "%s", e.Note)
	}
}
