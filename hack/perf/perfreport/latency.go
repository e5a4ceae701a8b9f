package perfreport

import (
	"slices"
	"time"
)

// Latencies summarises a set of measured durations exactly (sorted, no
// estimation): a benchmark's few hundred thousand samples fit in memory.
type Latencies struct {
	Count              int
	P50, P95, P99, Max time.Duration
	Mean               time.Duration
}

// Summarise sorts a copy of d and reads its percentiles (nearest rank).
func Summarise(d []time.Duration) Latencies {
	if len(d) == 0 {
		return Latencies{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	var sum time.Duration
	for _, v := range s {
		sum += v
	}
	return Latencies{
		Count: len(s),
		P50:   rank(s, 0.50),
		P95:   rank(s, 0.95),
		P99:   rank(s, 0.99),
		Max:   s[len(s)-1],
		Mean:  sum / time.Duration(len(s)),
	}
}

// rank is the nearest-rank percentile q of sorted s.
func rank(s []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(s))+0.999999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// Ms formats a duration in milliseconds with two decimals, the unit of every
// latency in the report.
func Ms(d time.Duration) string {
	return formatFloat(float64(d)/float64(time.Millisecond), 2) + " ms"
}
