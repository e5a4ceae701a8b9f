package deployapi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
)

// intentKinds are the resources a published intent writes.
var intentKinds = map[string]bool{
	"configmaps": true, "secrets": true, "promptpacks": true,
	"toolregistries": true, "toolpolicies": true, "agentruntimes": true,
}

// writeVerbs are the mutating verbs as apiserver_request_total labels them.
var writeVerbs = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "APPLY": true, "DELETE": true}

// intentWrites reads the API server's apiserver_request_total (its
// /metrics, as the admin) and sums the write requests to the objects of
// the kinds a published intent writes (not their status subresources,
// which controllers write), by "<resource> <verb>". The counter has no
// user label, but at rest nothing but a deploy writes these objects, so a
// change during a redeploy is the deploy's (hack/bench-agents counts the
// operator's writes the same way).
func intentWrites(ctx context.Context) map[string]float64 {
	GinkgoHelper()
	hc, err := rest.HTTPClientFor(suite.Env.Config)
	Expect(err).NotTo(HaveOccurred())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(suite.Env.Config.Host, "/")+"/metrics", nil)
	Expect(err).NotTo(HaveOccurred())
	resp, err := hc.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	Expect(resp.StatusCode).To(Equal(http.StatusOK))
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())

	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") {
			continue
		}
		end := strings.LastIndex(line, "}")
		labels := parseLabels(line[len("apiserver_request_total{"):end])
		if !writeVerbs[labels["verb"]] || !intentKinds[labels["resource"]] || labels["subresource"] != "" {
			continue
		}
		var v float64
		_, err := fmt.Sscan(strings.TrimSpace(line[end+1:]), &v)
		Expect(err).NotTo(HaveOccurred(), line)
		out[labels["resource"]+" "+labels["verb"]] += v
	}
	Expect(sc.Err()).NotTo(HaveOccurred())
	return out
}

// parseLabels parses `a="x",b="y"` (the API server's label values carry no
// escaped quotes).
func parseLabels(s string) map[string]string {
	out := map[string]string{}
	for s != "" {
		eq := strings.IndexByte(s, '=')
		if eq < 0 || eq+1 >= len(s) || s[eq+1] != '"' {
			break
		}
		key := s[:eq]
		rest := s[eq+2:]
		q := strings.IndexByte(rest, '"')
		if q < 0 {
			break
		}
		out[key] = rest[:q]
		s = strings.TrimPrefix(rest[q+1:], ",")
	}
	return out
}
