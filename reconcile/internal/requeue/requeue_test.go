package requeue

import (
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
)

func TestEarliestKeepsTheShortestDelay(t *testing.T) {
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
			var q Earliest
			for _, d := range tc.asks {
				q.After(d)
			}
			if got := q.Result().RequeueAfter; got != tc.want {
				t.Fatalf("RequeueAfter = %v, want %v", got, tc.want)
			}
			if got := q.Duration(); got != tc.want {
				t.Fatalf("Duration = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMergeTakesTheEarlierResult(t *testing.T) {
	for _, tc := range []struct {
		name        string
		have, merge time.Duration
		want        time.Duration
	}{
		{"result sooner", time.Minute, time.Second, time.Second},
		{"result later", time.Second, time.Minute, time.Second},
		{"result asks nothing", time.Second, 0, time.Second},
		{"nothing before", 0, time.Minute, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var q Earliest
			q.After(tc.have)
			q.Merge(ctrl.Result{RequeueAfter: tc.merge})
			if got := q.Duration(); got != tc.want {
				t.Fatalf("Duration = %v, want %v", got, tc.want)
			}
		})
	}
}
