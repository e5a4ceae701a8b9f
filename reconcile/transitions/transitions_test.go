package transitions

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func cond(typ string, s metav1.ConditionStatus, reason string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: s, Reason: reason, Message: "m"}
}

func TestOf(t *testing.T) {
	cases := []struct {
		name     string
		old, cur []metav1.Condition
		want     []Event
	}{
		{"new False warns", nil, []metav1.Condition{cond("A", metav1.ConditionFalse, "Bad")},
			[]Event{{Type: corev1.EventTypeWarning, Reason: "Bad", Action: "A", Note: "A is False: m"}}},
		{"True to False warns", []metav1.Condition{cond("A", metav1.ConditionTrue, "Ok")}, []metav1.Condition{cond("A", metav1.ConditionFalse, "Bad")},
			[]Event{{Type: corev1.EventTypeWarning, Reason: "Bad", Action: "A", Note: "A is False: m"}}},
		{"False to True recovers", []metav1.Condition{cond("A", metav1.ConditionFalse, "Bad")}, []metav1.Condition{cond("A", metav1.ConditionTrue, "Ok")},
			[]Event{{Type: corev1.EventTypeNormal, Reason: "Ok", Action: "A", Note: "A is True: m"}}},
		{"steady False is silent", []metav1.Condition{cond("A", metav1.ConditionFalse, "Bad")}, []metav1.Condition{cond("A", metav1.ConditionFalse, "Worse")}, nil},
		{"new True is silent", nil, []metav1.Condition{cond("A", metav1.ConditionTrue, "Ok")}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Of(tc.old, tc.cur)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("event %d: got %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestNoteBounded(t *testing.T) {
	c := metav1.Condition{Type: "A", Status: metav1.ConditionFalse, Reason: "Bad", Message: strings.Repeat("x", 5000)}
	got := Of(nil, []metav1.Condition{c})
	if len(got) != 1 || len(got[0].Note) > MaxNote {
		t.Fatalf("note not bounded: %d bytes", len(got[0].Note))
	}
}

// The waiting policy: a start is silent until Ready, a regression warns.
func TestOfPolicy(t *testing.T) {
	p := Policy{Waiting: func(r string) bool { return r == "Wait" }, ReadyType: "Ready"}
	none := []metav1.Condition(nil)
	cases := []struct {
		name     string
		old, cur []metav1.Condition
		want     []Event
	}{
		{"first wait is silent", none, []metav1.Condition{cond("A", metav1.ConditionFalse, "Wait")}, nil},
		{"first fault still warns", none, []metav1.Condition{cond("A", metav1.ConditionFalse, "Bad")},
			[]Event{{Type: corev1.EventTypeWarning, Reason: "Bad", Action: "A", Note: "A is False: m"}}},
		{"a regression into a wait warns", []metav1.Condition{cond("A", metav1.ConditionTrue, "Ok")}, []metav1.Condition{cond("A", metav1.ConditionFalse, "Wait")},
			[]Event{{Type: corev1.EventTypeWarning, Reason: "Wait", Action: "A", Note: "A is False: m"}}},
		{"the end of a wait is silent", []metav1.Condition{cond("A", metav1.ConditionFalse, "Wait")}, []metav1.Condition{cond("A", metav1.ConditionTrue, "Ok")}, nil},
		{"recovery from a fault is reported", []metav1.Condition{cond("A", metav1.ConditionFalse, "Bad")}, []metav1.Condition{cond("A", metav1.ConditionTrue, "Ok")},
			[]Event{{Type: corev1.EventTypeNormal, Reason: "Ok", Action: "A", Note: "A is True: m"}}},
		{"Ready after a silent wait is reported", []metav1.Condition{cond("Ready", metav1.ConditionFalse, "Wait")}, []metav1.Condition{cond("Ready", metav1.ConditionTrue, "Ok")},
			[]Event{{Type: corev1.EventTypeNormal, Reason: "Ok", Action: "Ready", Note: "Ready is True: m"}}},
		{"Ready on first sight is reported", none, []metav1.Condition{cond("Ready", metav1.ConditionTrue, "Ok")},
			[]Event{{Type: corev1.EventTypeNormal, Reason: "Ok", Action: "Ready", Note: "Ready is True: m"}}},
		{"Ready staying True is silent", []metav1.Condition{cond("Ready", metav1.ConditionTrue, "Ok")}, []metav1.Condition{cond("Ready", metav1.ConditionTrue, "Ok")}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := OfPolicy(tc.old, tc.cur, p)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("event %d: got %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
	// The zero Policy is Of: a first wait warns there.
	if got := OfPolicy(none, []metav1.Condition{cond("A", metav1.ConditionFalse, "Wait")}, Policy{}); len(got) != 1 {
		t.Errorf("zero policy: got %v, want one Warning", got)
	}
}
