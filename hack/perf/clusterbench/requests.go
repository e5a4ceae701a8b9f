package clusterbench

import (
	"fmt"
	"sort"

	"github.com/altairalabs/omnia/hack/perf/perfreport"
)

// RequestStat is a count of API requests and the seconds the API server
// spent serving them.
type RequestStat struct{ Count, Seconds float64 }

// RequestsByResource reads apiserver_request_duration_seconds (_count and
// _sum) by "resource[/subresource] VERB", every verb (reads too: a Secret
// GET the operator cannot serve from its cache shows here). Long-running
// WATCH requests are left out.
func RequestsByResource(body string) (map[string]RequestStat, error) {
	out := map[string]RequestStat{}
	for _, m := range []struct {
		suffix string
		add    func(s *RequestStat, v float64)
	}{
		{"_count", func(s *RequestStat, v float64) { s.Count += v }},
		{"_sum", func(s *RequestStat, v float64) { s.Seconds += v }},
	} {
		samples, err := perfreport.Samples(body, "apiserver_request_duration_seconds"+m.suffix)
		if err != nil {
			return nil, err
		}
		for _, s := range samples {
			verb := s.Labels["verb"]
			if verb == "WATCH" || verb == "CONNECT" {
				continue
			}
			k := resourceOf(s.Labels) + " " + verb
			st := out[k]
			m.add(&st, s.Value)
			out[k] = st
		}
	}
	return out, nil
}

// RequestDelta is after minus before, keeping what changed.
func RequestDelta(before, after map[string]RequestStat) map[string]RequestStat {
	out := map[string]RequestStat{}
	for k, a := range after {
		b := before[k]
		if d := (RequestStat{a.Count - b.Count, a.Seconds - b.Seconds}); d.Count != 0 {
			out[k] = d
		}
	}
	return out
}

// RequestLines prints the stats with more than min requests, most requests
// first: "resource VERB: n (mean ms)".
func RequestLines(m map[string]RequestStat, min float64) []string {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if v.Count >= min {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]].Count != m[keys[j]].Count {
			return m[keys[i]].Count > m[keys[j]].Count
		}
		return keys[i] < keys[j]
	})
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%s: %.0f (%.1f ms mean)", k, m[k].Count, 1000*m[k].Seconds/m[k].Count))
	}
	return out
}

// ClusterIPAllocations is the IPAddress creates among the requests, with
// the API server's time for them. Kubernetes 1.37 allocates a dynamic
// ClusterIP under one lock held across the create of its IPAddress object
// (pkg/registry/core/service/ipallocator: MetaAllocator.AllocateNextService),
// so these creates run one at a time: their summed time is a lower bound on
// how long the cluster takes to give that many Services their ClusterIPs,
// whoever creates the Services.
func ClusterIPAllocations(m map[string]RequestStat) RequestStat {
	return m["ipaddresses POST"]
}

// ClusterIPLine reports ClusterIPAllocations for a results block.
func ClusterIPLine(m map[string]RequestStat) string {
	a := ClusterIPAllocations(m)
	return fmt.Sprintf("%.0f IPAddress creates, %.1fs of API server time one after another (kube-apiserver allocates ClusterIPs under one lock): no fewer seconds for that many Services", a.Count, a.Seconds)
}
