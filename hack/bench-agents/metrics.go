package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/altairalabs/omnia/hack/perf/perfreport"
)

// Counting API writes. The API server's apiserver_request_total has no user
// label, so the operator's writes are counted from two sides:
//
//   - the operator's own client counter rest_client_requests_total (from its
//     /metrics): every request it sent, by method, so exactly its writes,
//     leader-election Lease renewals included;
//   - the API server's apiserver_request_total by verb, resource and
//     subresource: which objects were written. No other component writes
//     the Omnia kinds or the agent's children (Deployment spec, Service,
//     ServiceAccount, Role, RoleBinding, autoscalers), so the writes to those
//     are the operator's. The controller-manager writes deployments/status
//     and replicasets, kwok pods/status and nodes/status: listed, but not
//     the operator's.

// writeVerbs are the mutating verbs as the API server labels them (APPLY is
// a server-side apply PATCH).
var writeVerbs = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "APPLY": true, "DELETE": true, "DELETECOLLECTION": true}

// writesByResource sums apiserver_request_total of the write verbs by
// "resource[/subresource] VERB".
func writesByResource(body string) (map[string]float64, error) {
	samples, err := perfreport.Samples(body, "apiserver_request_total")
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, s := range samples {
		if !writeVerbs[s.Labels["verb"]] {
			continue
		}
		res := s.Labels["resource"]
		if sub := s.Labels["subresource"]; sub != "" {
			res += "/" + sub
		}
		out[res+" "+s.Labels["verb"]] += s.Value
	}
	return out, nil
}

// clientWrites sums the operator's rest_client_requests_total of the write
// methods by method.
func clientWrites(body string) (map[string]float64, error) {
	samples, err := perfreport.Samples(body, "rest_client_requests_total")
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, s := range samples {
		if m := s.Labels["method"]; m != "GET" && m != "" {
			out[m] += s.Value
		}
	}
	return out, nil
}

// delta is after minus before, keeping only what changed.
func delta(before, after map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// operatorOnly are the resources only the operator writes (see above).
var operatorOnly = map[string]bool{
	"agentruntimes": true, "agentruntimes/status": true,
	"providers": true, "providers/status": true,
	"promptpacks": true, "promptpacks/status": true,
	"toolregistries": true, "toolregistries/status": true,
	"deployments": true, "services": true, "serviceaccounts": true,
	"roles": true, "rolebindings": true,
	"horizontalpodautoscalers": true, "scaledobjects": true,
}

// operatorObjectWrites sums the writes to the operator-only resources.
func operatorObjectWrites(d map[string]float64) float64 {
	var n float64
	for k, v := range d {
		res, _, _ := strings.Cut(k, " ")
		if operatorOnly[res] {
			n += v
		}
	}
	return n
}

// sortedLines prints a count map one "key: n" per line, sorted.
func sortedLines(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%s: %.0f", k, m[k]))
	}
	return out
}

// controllerLoad is, per controller, what the operator's own metrics say
// about its work so far: reconciles, seconds spent reconciling, and the
// number of workers (max concurrent reconciles). Seconds over workers is
// the least wall time that work could take.
type controllerLoad struct {
	reconciles, seconds, workers float64
}

// controllerLoads reads controller_runtime_reconcile_total,
// controller_runtime_reconcile_time_seconds_sum and
// controller_runtime_max_concurrent_reconciles by controller.
func controllerLoads(body string) (map[string]*controllerLoad, error) {
	out := map[string]*controllerLoad{}
	get := func(name string) *controllerLoad {
		if out[name] == nil {
			out[name] = &controllerLoad{}
		}
		return out[name]
	}
	for _, m := range []struct {
		metric string
		add    func(l *controllerLoad, v float64)
	}{
		{"controller_runtime_reconcile_total", func(l *controllerLoad, v float64) { l.reconciles += v }},
		{"controller_runtime_reconcile_time_seconds_sum", func(l *controllerLoad, v float64) { l.seconds += v }},
		{"controller_runtime_max_concurrent_reconciles", func(l *controllerLoad, v float64) { l.workers = v }},
	} {
		samples, err := perfreport.Samples(body, m.metric)
		if err != nil {
			return nil, err
		}
		for _, s := range samples {
			m.add(get(s.Labels["controller"]), s.Value)
		}
	}
	return out, nil
}

// requestStat is a count of API requests and the seconds the API server
// spent serving them.
type requestStat struct{ count, seconds float64 }

// requestsByResource reads apiserver_request_duration_seconds (_count and
// _sum) by "resource[/subresource] VERB", every verb (reads too: a Secret
// GET the operator cannot serve from its cache shows here). Long-running
// WATCH requests are left out.
func requestsByResource(body string) (map[string]requestStat, error) {
	out := map[string]requestStat{}
	for _, m := range []struct {
		suffix string
		add    func(s *requestStat, v float64)
	}{
		{"_count", func(s *requestStat, v float64) { s.count += v }},
		{"_sum", func(s *requestStat, v float64) { s.seconds += v }},
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
			res := s.Labels["resource"]
			if sub := s.Labels["subresource"]; sub != "" {
				res += "/" + sub
			}
			k := res + " " + verb
			st := out[k]
			m.add(&st, s.Value)
			out[k] = st
		}
	}
	return out, nil
}

// requestDelta is after minus before, keeping what changed.
func requestDelta(before, after map[string]requestStat) map[string]requestStat {
	out := map[string]requestStat{}
	for k, a := range after {
		b := before[k]
		if d := (requestStat{a.count - b.count, a.seconds - b.seconds}); d.count != 0 {
			out[k] = d
		}
	}
	return out
}

// requestLines prints the stats with more than min requests, most requests
// first: "resource VERB: n (mean ms)".
func requestLines(m map[string]requestStat, min float64) []string {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if v.count >= min {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]].count != m[keys[j]].count {
			return m[keys[i]].count > m[keys[j]].count
		}
		return keys[i] < keys[j]
	})
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%s: %.0f (%.1f ms mean)", k, m[k].count, 1000*m[k].seconds/m[k].count))
	}
	return out
}
