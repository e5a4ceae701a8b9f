package main

import (
	"flag"

	"github.com/altairalabs/omnia/reconcile/agentruntime"
)

// workerFlags are the workers per controller. An agent needs its Provider
// and its PromptPack Ready before its workload is applied, so when many
// agents arrive at once (a GitOps sync, `make bench-agents N=1000`) the
// three controllers are one pipeline and the slowest stage sets the pace.
// Their reconciles are I/O-bound (API round trips, not CPU), so more
// workers than cores pay off; hack/bench-agents prints each controller's
// reconciles, time and workers to size these.
type workerFlags struct {
	agentRuntime int
	provider     int
	promptPack   int
}

func (f *workerFlags) bind(fs *flag.FlagSet) {
	fs.IntVar(&f.agentRuntime, "agentruntime-max-concurrent-reconciles", agentruntime.DefaultMaxConcurrentReconciles,
		"AgentRuntimes reconciled in parallel")
	fs.IntVar(&f.provider, "provider-max-concurrent-reconciles", 8,
		"Providers reconciled in parallel")
	fs.IntVar(&f.promptPack, "promptpack-max-concurrent-reconciles", 8,
		"PromptPacks reconciled in parallel")
}
