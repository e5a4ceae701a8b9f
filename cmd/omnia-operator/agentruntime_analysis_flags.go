package main

import (
	"flag"

	"github.com/altairalabs/omnia/reconcile/agentruntime"
)

// The rollout analysis step's flags (agentruntime.md § rollout.steps[].analysis).
var analysisQueryTimeout = flag.Duration("analysis-query-timeout", agentruntime.DefaultAnalysisQueryTimeout,
	"bound on one Prometheus query of a RolloutAnalysis measurement (run by the shared prober, capped by --probe-max-timeout)")

func init() {
	agentRuntimeOptions = append(agentRuntimeOptions, func(o *agentruntime.Options) error {
		// Measurements run on the operator's shared prober, outside the
		// reconcile workers.
		o.Analysis.ProberFor = probeRunner
		o.Analysis.QueryTimeout = *analysisQueryTimeout
		return nil
	})
}
