package clusterbench

import (
	"strings"
	"testing"
)

// apiServerDurations is an excerpt of kube-apiserver's
// apiserver_request_duration_seconds: the IPAddress creates the ClusterIP
// allocator makes, and a Service apply.
const apiServerDurations = `# TYPE apiserver_request_duration_seconds histogram
apiserver_request_duration_seconds_sum{component="apiserver",dry_run="",group="networking.k8s.io",resource="ipaddresses",scope="resource",subresource="",verb="POST",version="v1"} 70.5
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="networking.k8s.io",resource="ipaddresses",scope="resource",subresource="",verb="POST",version="v1"} 1000
apiserver_request_duration_seconds_sum{component="apiserver",dry_run="",group="",resource="services",scope="resource",subresource="",verb="APPLY",version="v1"} 1500
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="",resource="services",scope="resource",subresource="",verb="APPLY",version="v1"} 1000
`

func TestClusterIPAllocations(t *testing.T) {
	m, err := RequestsByResource(apiServerDurations)
	if err != nil {
		t.Fatal(err)
	}
	if got := ClusterIPAllocations(m); got != (RequestStat{Count: 1000, Seconds: 70.5}) {
		t.Errorf("ClusterIPAllocations = %+v, want the 1000 IPAddress creates and their 70.5 s", got)
	}
	if line := ClusterIPLine(m); !strings.HasPrefix(line, "1000 IPAddress creates, 70.5s ") {
		t.Errorf("ClusterIPLine = %q", line)
	}
	// No Services created: nothing allocated, not an error.
	if got := ClusterIPAllocations(map[string]RequestStat{"services APPLY": {1, 1}}); got != (RequestStat{}) {
		t.Errorf("ClusterIPAllocations without IPAddress creates = %+v, want zero", got)
	}
}
