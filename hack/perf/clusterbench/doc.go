// Package clusterbench is what the benchmarks that run the operator on the
// local cluster share (hack/bench-agents, hack/perf/scale, and the Arena
// set-up of test/faults for perf-faults): reading the API
// server's and the operator's request counters, attributing writes to the
// operator, the controllers' work from the operator's metrics, and CPU and
// heap profiles of the operator taken over net/http/pprof, and what the
// Arena controllers need (Redis, the content volume, a hosted ArenaProject,
// a licence, workers playing the worker pods).
package clusterbench
