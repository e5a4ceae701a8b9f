package clusterbench

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
//     the Omnia kinds or the operator's children (an agent's Deployment
//     spec, Service, ServiceAccount, Role, RoleBinding, autoscalers; an
//     Arena run's worker Job), so the writes to those are the operator's.
//     The controller-manager writes deployments/status, replicasets and
//     jobs/status, kwok pods/status and nodes/status: listed, but not the
//     operator's.

// WriteVerbs are the mutating verbs as the API server labels them (APPLY is
// a server-side apply PATCH).
var WriteVerbs = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "APPLY": true, "DELETE": true, "DELETECOLLECTION": true}

// WritesByResource sums apiserver_request_total of the write verbs by
// "resource[/subresource] VERB".
func WritesByResource(body string) (map[string]float64, error) {
	samples, err := perfreport.Samples(body, "apiserver_request_total")
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, s := range samples {
		if !WriteVerbs[s.Labels["verb"]] {
			continue
		}
		out[resourceOf(s.Labels)+" "+s.Labels["verb"]] += s.Value
	}
	return out, nil
}

// resourceOf is "resource[/subresource]" of an API server sample.
func resourceOf(labels map[string]string) string {
	res := labels["resource"]
	if sub := labels["subresource"]; sub != "" {
		res += "/" + sub
	}
	return res
}

// ClientRequests sums the operator's rest_client_requests_total by method,
// reads included: every request its client sent.
func ClientRequests(body string) (map[string]float64, error) {
	samples, err := perfreport.Samples(body, "rest_client_requests_total")
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, s := range samples {
		if m := s.Labels["method"]; m != "" {
			out[m] += s.Value
		}
	}
	return out, nil
}

// ClientWrites is ClientRequests without the reads (GET): the operator's
// write requests by method.
func ClientWrites(body string) (map[string]float64, error) {
	all, err := ClientRequests(body)
	if err != nil {
		return nil, err
	}
	delete(all, "GET")
	return all, nil
}

// Delta is after minus before, keeping only what changed.
func Delta(before, after map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// Sum adds every count of m.
func Sum(m map[string]float64) float64 {
	var n float64
	for _, v := range m {
		n += v
	}
	return n
}

// OperatorOnly are the resources only the operator writes (see above).
var OperatorOnly = map[string]bool{
	"agentruntimes": true, "agentruntimes/status": true,
	"providers": true, "providers/status": true,
	"promptpacks": true, "promptpacks/status": true,
	"toolregistries": true, "toolregistries/status": true,
	"arenaprojects/status": true, "arenajobs/status": true,
	"arenaruns": true, "arenaruns/status": true,
	"deployments": true, "services": true, "serviceaccounts": true,
	"roles": true, "rolebindings": true,
	"horizontalpodautoscalers": true, "scaledobjects": true,
	"jobs": true,
}

// OperatorObjectWrites sums the writes to the operator-only resources.
func OperatorObjectWrites(d map[string]float64) float64 {
	return Attribute(d).ObjectTotal()
}

// Writes is a delta of the API server's writes by "resource VERB", split by
// who made them.
type Writes struct {
	// Objects are the operator's writes to its kinds and their children
	// (OperatorOnly): what a steady state should not have.
	Objects map[string]float64
	// Leases are the writes to coordination Leases: leader election (the
	// operator's) and the API server's own identity leases, by verb.
	Leases map[string]float64
	// Others are every other client's writes (the controller-manager,
	// kwok, events, the benchmark itself).
	Others map[string]float64
}

// Attribute splits a write delta (WritesByResource after minus before).
func Attribute(d map[string]float64) Writes {
	w := Writes{Objects: map[string]float64{}, Leases: map[string]float64{}, Others: map[string]float64{}}
	for k, v := range d {
		res, _, _ := strings.Cut(k, " ")
		switch {
		case OperatorOnly[res]:
			w.Objects[k] += v
		case res == "leases":
			w.Leases[k] += v
		default:
			w.Others[k] += v
		}
	}
	return w
}

// ObjectTotal is the number of the operator's writes to its objects.
func (w Writes) ObjectTotal() float64 { return Sum(w.Objects) }

// SortedLines prints a count map one "key: n" per line, sorted.
func SortedLines(m map[string]float64) []string {
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
