package conditions

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type finding struct{ id, field, reason, msg string }

func (f finding) GetReason() string { return f.reason }
func (f finding) String() string    { return "[" + f.id + "] " + f.field + ": " + f.msg }

func TestFromFindings(t *testing.T) {
	tests := []struct {
		name        string
		findings    []finding
		wantStatus  metav1.ConditionStatus
		wantReason  string
		wantMessage []string
	}{
		{name: "no findings is True", wantStatus: metav1.ConditionTrue, wantReason: "Valid", wantMessage: []string{"all good"}},
		{
			name:        "first finding's reason, every finding in the message",
			findings:    []finding{{"provider/credential-env-var", "spec.credential.envVar", "InvalidEnvVar", "not a variable name"}, {"provider/x", "spec.y", "Other", "bad"}},
			wantStatus:  metav1.ConditionFalse,
			wantReason:  "InvalidEnvVar",
			wantMessage: []string{"[provider/credential-env-var] spec.credential.envVar: not a variable name", "[provider/x] spec.y: bad"},
		},
		{
			name:        "rule without a reason uses the fallback",
			findings:    []finding{{"provider/x", "spec.y", "", "bad"}},
			wantStatus:  metav1.ConditionFalse,
			wantReason:  "Invalid",
			wantMessage: []string{"[provider/x] spec.y: bad"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := FromFindings("CredentialConfigured", tt.findings, "Valid", "all good", "Invalid", 7)
			if c.Status != tt.wantStatus || c.Reason != tt.wantReason || c.ObservedGeneration != 7 || c.Type != "CredentialConfigured" {
				t.Fatalf("got %+v", c)
			}
			for _, m := range tt.wantMessage {
				if !strings.Contains(c.Message, m) {
					t.Errorf("message %q lacks %q", c.Message, m)
				}
			}
		})
	}
}

func TestFromFindingsTruncatesLongMessages(t *testing.T) {
	var fs []finding
	for range 200 {
		fs = append(fs, finding{"k/r", "spec.a", "R", strings.Repeat("x", 100)})
	}
	c := FromFindings("T", fs, "", "", "", 1)
	if len(c.Message) > maxMessage || !strings.HasSuffix(c.Message, "...") {
		t.Fatalf("message of %d bytes not truncated to %d", len(c.Message), maxMessage)
	}
}

func TestSet(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	ready := func(s metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: "Ready", Status: s, Reason: reason, Message: "m"}
	}
	var conds []metav1.Condition
	if !Set(&conds, ready(metav1.ConditionTrue, "A"), t0) || !conds[0].LastTransitionTime.Equal(&t0) {
		t.Fatalf("new condition: %+v", conds)
	}
	if Set(&conds, ready(metav1.ConditionTrue, "A"), t1) {
		t.Fatal("identical condition reported a change")
	}
	if !Set(&conds, ready(metav1.ConditionTrue, "B"), t1) || !conds[0].LastTransitionTime.Equal(&t0) || conds[0].Reason != "B" {
		t.Fatalf("reason change without flip must keep lastTransitionTime: %+v", conds[0])
	}
	if !Set(&conds, ready(metav1.ConditionFalse, "C"), t1) || !conds[0].LastTransitionTime.Equal(&t1) {
		t.Fatalf("flip must move lastTransitionTime: %+v", conds[0])
	}
	if len(conds) != 1 {
		t.Fatalf("want one condition, got %d", len(conds))
	}
	if !Remove(&conds, "Ready") || len(conds) != 0 || Remove(&conds, "Ready") {
		t.Fatal("remove")
	}
}

func TestRollUp(t *testing.T) {
	ok := func(typ string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: "OK"}
	}
	bad := metav1.Condition{Type: "SecretFound", Status: metav1.ConditionFalse, Reason: "SecretNotFound", Message: "secret x missing"}
	tests := []struct {
		name       string
		conds      []metav1.Condition
		wantStatus metav1.ConditionStatus
		wantReason string
	}{
		{"all true", []metav1.Condition{ok("SecretFound"), ok("ModelValid")}, metav1.ConditionTrue, "AllChecksPassed"},
		{"first failing wins", []metav1.Condition{ok("ModelValid"), bad}, metav1.ConditionFalse, "SecretNotFound"},
		{"missing is unknown", []metav1.Condition{ok("SecretFound")}, metav1.ConditionUnknown, "AwaitingModelValid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := RollUp(tt.conds, "Ready", []string{"SecretFound", "ModelValid"}, "AllChecksPassed", "ready", 3)
			if c.Status != tt.wantStatus || c.Reason != tt.wantReason || c.Type != "Ready" || c.ObservedGeneration != 3 {
				t.Fatalf("got %+v", c)
			}
		})
	}
}

// TestTruncateOnRuneBoundary: a message cut to the bound stays valid UTF-8,
// as the API server requires of a condition message.
func TestTruncateOnRuneBoundary(t *testing.T) {
	cases := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"short enough", "héllo", 6, "héllo"},
		{"ascii cut", "abcdefghij", 8, "abcde..."},
		// "é" is 2 bytes: a byte cut at 5 would split it.
		{"cut inside a two-byte rune", "abcdéfgh", 8, "abcd..."},
		// "世" is 3 bytes at 2..4: cutting at 3 or 4 would split it.
		{"cut inside a three-byte rune", "ab世界cdef", 7, "ab..."},
		{"emoji", "a🙂🙂🙂", 9, "a🙂..."},
		{"bound below the ellipsis", "abcdef", 2, ".."},
	}
	for _, c := range cases {
		got := Truncate(c.in, c.max)
		if got != c.want || len(got) > c.max || !utf8.ValidString(got) {
			t.Errorf("%s: Truncate(%q, %d) = %q (valid UTF-8 %v), want %q", c.name, c.in, c.max, got, utf8.ValidString(got), c.want)
		}
	}
	// A condition message of many non-ASCII findings is cut to maxMessage
	// bytes and stays valid.
	var fs []finding
	for i := 0; i < 2000; i++ {
		fs = append(fs, finding{"provider/x", "spec.y", "R", "é"})
	}
	c := FromFindings("Ready", fs, "", "", "R", 1)
	if len(c.Message) > maxMessage || !utf8.ValidString(c.Message) {
		t.Errorf("condition message: %d bytes, valid UTF-8 %v", len(c.Message), utf8.ValidString(c.Message))
	}
}
