package clusterbench

import (
	"reflect"
	"testing"
)

// A steady state's write delta, as WritesByResource reads it from two
// scrapes of the API server, split by who wrote.
const apiBefore = `# HELP apiserver_request_total Counter of apiserver requests
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="coordination.k8s.io",resource="leases",scope="resource",subresource="",verb="PUT",version="v1"} 100
apiserver_request_total{code="200",component="apiserver",dry_run="",group="omnia.altairalabs.ai",resource="toolregistries",scope="resource",subresource="status",verb="PATCH",version="v1alpha1"} 40
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PATCH",version="v1"} 7
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 3
apiserver_request_total{code="201",component="apiserver",dry_run="",group="batch",resource="jobs",scope="resource",subresource="",verb="POST",version="v1"} 10
`

const apiAfter = `apiserver_request_total{code="200",component="apiserver",dry_run="",group="coordination.k8s.io",resource="leases",scope="resource",subresource="",verb="PUT",version="v1"} 250
apiserver_request_total{code="200",component="apiserver",dry_run="",group="omnia.altairalabs.ai",resource="toolregistries",scope="resource",subresource="status",verb="PATCH",version="v1alpha1"} 70
apiserver_request_total{code="409",component="apiserver",dry_run="",group="omnia.altairalabs.ai",resource="toolregistries",scope="resource",subresource="status",verb="PATCH",version="v1alpha1"} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PATCH",version="v1"} 9
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 50
apiserver_request_total{code="201",component="apiserver",dry_run="",group="batch",resource="jobs",scope="resource",subresource="",verb="POST",version="v1"} 10
apiserver_request_total{code="200",component="apiserver",dry_run="",group="batch",resource="jobs",scope="resource",subresource="status",verb="PUT",version="v1"} 4
`

func TestAttributeSteadyWrites(t *testing.T) {
	before, err := WritesByResource(apiBefore)
	if err != nil {
		t.Fatal(err)
	}
	after, err := WritesByResource(apiAfter)
	if err != nil {
		t.Fatal(err)
	}
	w := Attribute(Delta(before, after))
	// Every response code counts: a refused write (409) is still a write
	// the operator sent. Reads (LIST) are never writes; an unchanged
	// counter (jobs POST) is not in the delta.
	if want := map[string]float64{"toolregistries/status PATCH": 32}; !reflect.DeepEqual(w.Objects, want) {
		t.Errorf("objects %v, want %v", w.Objects, want)
	}
	if want := map[string]float64{"leases PUT": 150}; !reflect.DeepEqual(w.Leases, want) {
		t.Errorf("leases %v, want %v", w.Leases, want)
	}
	// The controller-manager's jobs/status and kwok's pods/status are
	// other clients', though jobs themselves are the operator's.
	if want := map[string]float64{"pods/status PATCH": 2, "jobs/status PUT": 4}; !reflect.DeepEqual(w.Others, want) {
		t.Errorf("others %v, want %v", w.Others, want)
	}
	if w.ObjectTotal() != 32 || OperatorObjectWrites(Delta(before, after)) != 32 {
		t.Errorf("object total %v", w.ObjectTotal())
	}
}

const operatorMetrics = `# TYPE rest_client_requests_total counter
rest_client_requests_total{code="200",host="127.0.0.1:6443",method="GET"} 1200
rest_client_requests_total{code="200",host="127.0.0.1:6443",method="PUT"} 30
rest_client_requests_total{code="201",host="127.0.0.1:6443",method="POST"} 500
rest_client_requests_total{code="409",host="127.0.0.1:6443",method="POST"} 5
rest_client_requests_total{code="200",host="127.0.0.1:6443",method="PATCH"} 800
`

func TestClientRequestsByMethod(t *testing.T) {
	all, err := ClientRequests(operatorMetrics)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]float64{"GET": 1200, "PUT": 30, "POST": 505, "PATCH": 800}; !reflect.DeepEqual(all, want) {
		t.Errorf("requests %v, want %v", all, want)
	}
	writes, err := ClientWrites(operatorMetrics)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := writes["GET"]; ok || Sum(writes) != 1335 {
		t.Errorf("writes %v: want every method but GET, 1335 in all", writes)
	}
}

func TestRequestDeltaKeepsWhatChanged(t *testing.T) {
	d := RequestDelta(map[string]RequestStat{"pods GET": {10, 1}, "nodes GET": {5, 1}},
		map[string]RequestStat{"pods GET": {30, 3}, "nodes GET": {5, 1}, "leases PUT": {2, 0.5}})
	want := map[string]RequestStat{"pods GET": {20, 2}, "leases PUT": {2, 0.5}}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("delta %v, want %v", d, want)
	}
	lines := RequestLines(d, 2)
	if len(lines) != 2 || lines[0] != "pods GET: 20 (100.0 ms mean)" {
		t.Errorf("lines %q", lines)
	}
}
