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
