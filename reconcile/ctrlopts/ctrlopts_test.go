package ctrlopts

import (
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

func TestWithDefaults(t *testing.T) {
	fixed := clocktesting.NewFakePassiveClock(time.Unix(0, 0))
	tests := []struct {
		name        string
		in          Common
		wantWorkers int
		wantFixed   bool
	}{
		{name: "empty gets the real clock and the controller's workers", in: Common{}, wantWorkers: 4},
		{name: "set values are kept", in: Common{Clock: fixed, MaxConcurrentReconciles: 9}, wantWorkers: 9, wantFixed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in.WithDefaults(4)
			if got.MaxConcurrentReconciles != tt.wantWorkers {
				t.Errorf("workers = %d, want %d", got.MaxConcurrentReconciles, tt.wantWorkers)
			}
			if got.Clock == nil || (got.Clock == fixed) != tt.wantFixed {
				t.Errorf("clock = %T, want the fixed one: %v", got.Clock, tt.wantFixed)
			}
		})
	}
}

func TestController(t *testing.T) {
	if o := (Common{MaxConcurrentReconciles: 3}).Controller(); o.MaxConcurrentReconciles != 3 || o.SkipNameValidation != nil {
		t.Errorf("Controller() = %+v, want 3 workers and name validation on", o)
	}
	if o := (Common{SkipNameValidation: true}).Controller(); o.SkipNameValidation == nil || !*o.SkipNameValidation {
		t.Errorf("Controller() = %+v, want name validation skipped", o)
	}
}

func TestDefault(t *testing.T) {
	for _, tt := range []struct{ in, want time.Duration }{{0, 5 * time.Second}, {-1, 5 * time.Second}, {time.Second, time.Second}} {
		v := tt.in
		Default(&v, 5*time.Second)
		if v != tt.want {
			t.Errorf("Default(%v) = %v, want %v", tt.in, v, tt.want)
		}
	}
}
