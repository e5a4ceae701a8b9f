package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
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

// series is one sample: its label set and value.
type series struct {
	labels map[string]string
	value  float64
}

// parseCounter returns the samples of the metric name in a Prometheus text
// exposition.
func parseCounter(body, name string) ([]series, error) {
	var out []series
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		rest := strings.TrimPrefix(line, name)
		labels := map[string]string{}
		if strings.HasPrefix(rest, "{") {
			end := strings.LastIndex(rest, "}")
			if end < 0 {
				return nil, fmt.Errorf("metrics: unterminated labels: %q", line)
			}
			var err error
			if labels, err = parseLabels(rest[1:end]); err != nil {
				return nil, fmt.Errorf("metrics: %q: %w", line, err)
			}
			rest = rest[end+1:]
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return nil, fmt.Errorf("metrics: no value: %q", line)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil, fmt.Errorf("metrics: value of %q: %w", line, err)
		}
		out = append(out, series{labels: labels, value: v})
	}
	return out, sc.Err()
}

// parseLabels parses `a="x",b="y"` (values are quoted, with \" \\ \n
// escapes).
func parseLabels(s string) (map[string]string, error) {
	out := map[string]string{}
	for len(s) > 0 {
		eq := strings.IndexByte(s, '=')
		if eq < 0 || eq+1 >= len(s) || s[eq+1] != '"' {
			return nil, fmt.Errorf("bad label set %q", s)
		}
		key := strings.TrimSpace(s[:eq])
		var val strings.Builder
		i := eq + 2
		for ; i < len(s) && s[i] != '"'; i++ {
			if s[i] == '\\' && i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					val.WriteByte('\n')
				default:
					val.WriteByte(s[i])
				}
				continue
			}
			val.WriteByte(s[i])
		}
		if i >= len(s) {
			return nil, fmt.Errorf("unterminated value in %q", s)
		}
		out[key] = val.String()
		s = strings.TrimPrefix(s[i+1:], ",")
	}
	return out, nil
}

// writeVerbs are the mutating verbs as the API server labels them (APPLY is
// a server-side apply PATCH).
var writeVerbs = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "APPLY": true, "DELETE": true, "DELETECOLLECTION": true}

// writesByResource sums apiserver_request_total of the write verbs by
// "resource[/subresource] VERB".
func writesByResource(body string) (map[string]float64, error) {
	samples, err := parseCounter(body, "apiserver_request_total")
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, s := range samples {
		if !writeVerbs[s.labels["verb"]] {
			continue
		}
		res := s.labels["resource"]
		if sub := s.labels["subresource"]; sub != "" {
			res += "/" + sub
		}
		out[res+" "+s.labels["verb"]] += s.value
	}
	return out, nil
}

// clientWrites sums the operator's rest_client_requests_total of the write
// methods by method.
func clientWrites(body string) (map[string]float64, error) {
	samples, err := parseCounter(body, "rest_client_requests_total")
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, s := range samples {
		if m := s.labels["method"]; m != "GET" && m != "" {
			out[m] += s.value
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

// peakRSS reads VmHWM (peak resident set size) and VmRSS of a process from
// /proc/<pid>/status, in KiB.
func peakRSS(pid int) (hwm, rss int64, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		name, val, ok := strings.Cut(line, ":")
		if !ok || (name != "VmHWM" && name != "VmRSS") {
			continue
		}
		f := strings.Fields(val) // "123456 kB"
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/%d/status %s: %w", pid, name, err)
		}
		if name == "VmHWM" {
			hwm = n
		} else {
			rss = n
		}
	}
	if hwm == 0 {
		return 0, 0, fmt.Errorf("/proc/%d/status has no VmHWM", pid)
	}
	return hwm, rss, nil
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
		samples, err := parseCounter(body, m.metric)
		if err != nil {
			return nil, err
		}
		for _, s := range samples {
			m.add(get(s.labels["controller"]), s.value)
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
		samples, err := parseCounter(body, "apiserver_request_duration_seconds"+m.suffix)
		if err != nil {
			return nil, err
		}
		for _, s := range samples {
			verb := s.labels["verb"]
			if verb == "WATCH" || verb == "CONNECT" {
				continue
			}
			res := s.labels["resource"]
			if sub := s.labels["subresource"]; sub != "" {
				res += "/" + sub
			}
			k := res + " " + verb
			st := out[k]
			m.add(&st, s.value)
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
