// Package ctrlopts holds the options every controller of the operator takes
// (its clock, the licence its rules see, its workers, and the switch tests
// need to register it more than once), so each controller's Options embeds
// them instead of declaring and defaulting its own copy.
package ctrlopts

import (
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	"github.com/altairalabs/omnia/rules"
)

// Common are the options every controller takes.
type Common struct {
	// Clock stamps condition transitions and times the controller's
	// requeues. Default: the real clock.
	Clock clock.PassiveClock
	// License is the licence handed to the rules as a fact (the operator's
	// licensing.Store, so a licence reload takes effect; nil: open-core).
	License rules.LicenseSource
	// MaxConcurrentReconciles bounds parallel reconciles. Default: the
	// controller's own (the argument of WithDefaults).
	MaxConcurrentReconciles int
	// SkipNameValidation lets tests register the controller in several
	// managers of one process.
	SkipNameValidation bool
}

// WithDefaults fills what c leaves empty: the real clock, and workers
// parallel reconciles.
func (c Common) WithDefaults(workers int) Common {
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	if c.MaxConcurrentReconciles <= 0 {
		c.MaxConcurrentReconciles = workers
	}
	return c
}

// Controller is the controller-runtime options c asks for (call it on the
// defaulted options).
func (c Common) Controller() controller.Options {
	o := controller.Options{MaxConcurrentReconciles: c.MaxConcurrentReconciles}
	if c.SkipNameValidation {
		o.SkipNameValidation = ptr.To(true)
	}
	return o
}

// Default sets *v to d when it is zero or negative: the defaulting every
// controller's withDefaults does for its counts and durations.
func Default[T ~int | ~int64 | ~int32](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}
