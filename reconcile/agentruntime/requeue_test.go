package agentruntime

import (
	"testing"
	"time"
)

func TestRequeueAtKeepsTheEarliest(t *testing.T) {
	for _, tc := range []struct {
		name string
		asks []time.Duration
		want time.Duration
	}{
		{"none", nil, 0},
		{"one", []time.Duration{time.Minute}, time.Minute},
		{"earliest wins", []time.Duration{time.Hour, 5 * time.Second, time.Minute}, 5 * time.Second},
		{"non-positive ignored", []time.Duration{0, -time.Second, time.Minute}, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var q requeueAt
			for _, d := range tc.asks {
				q.after(d)
			}
			if got := q.result().RequeueAfter; got != tc.want {
				t.Fatalf("RequeueAfter = %v, want %v", got, tc.want)
			}
		})
	}
}
