// Package clusterbench is what the benchmarks that run the operator on the
// local cluster share (hack/bench-agents, hack/perf/scale): reading the API
// server's and the operator's request counters, attributing writes to the
// operator, the controllers' work from the operator's metrics, and CPU and
// heap profiles of the operator taken over net/http/pprof.
package clusterbench
