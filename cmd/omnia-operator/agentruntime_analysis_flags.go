package main

import (
	"flag"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/reconcile/agentruntime"
	"github.com/altairalabs/omnia/reconcile/prober"
)

// analysisFlags are the rollout analysis step's flags (agentruntime.md §
// rollout.steps[].analysis).
type analysisFlags struct {
	queryTimeout time.Duration
}

func (f *analysisFlags) bind(fs *flag.FlagSet) {
	fs.DurationVar(&f.queryTimeout, "analysis-query-timeout", agentruntime.DefaultAnalysisQueryTimeout,
		"bound on one Prometheus query of a RolloutAnalysis measurement (run by the shared prober, capped by --probe-max-timeout)")
}

// apply sets the analysis options. Measurements run on the operator's
// shared prober (proberFor), outside the reconcile workers.
func (f analysisFlags) apply(o *agentruntime.Options, proberFor func(ctrl.Manager) (*prober.Prober, error)) {
	o.Analysis.ProberFor = proberFor
	o.Analysis.QueryTimeout = f.queryTimeout
}
