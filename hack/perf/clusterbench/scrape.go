package clusterbench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"k8s.io/client-go/rest"

	"github.com/altairalabs/omnia/test/controlplane"
)

// maxMetricsBody bounds a /metrics body read: the API server's is a few
// MiB with every resource of a busy cluster.
const maxMetricsBody = 64 << 20

// APIServerMetrics is the API server's /metrics, read as the admin.
func APIServerMetrics(ctx context.Context, admin *rest.Config) (string, error) {
	hc, err := rest.HTTPClientFor(admin)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(admin.Host, "/")+"/metrics", nil)
	if err != nil {
		return "", err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetricsBody))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("API server /metrics: HTTP %d", resp.StatusCode)
	}
	return string(body), nil
}

// APIRequests reads the API server's request counts and times by resource
// and verb.
func APIRequests(ctx context.Context, admin *rest.Config) (map[string]RequestStat, error) {
	body, err := APIServerMetrics(ctx, admin)
	if err != nil {
		return nil, err
	}
	return RequestsByResource(body)
}

// OperatorMetrics is the operator's /metrics, read with a scraper's token.
func OperatorMetrics(op *controlplane.Operator, token string) (string, error) {
	code, body, err := op.Metrics(token)
	if err != nil {
		return "", err
	}
	if code != http.StatusOK {
		return "", fmt.Errorf("operator /metrics: HTTP %d", code)
	}
	return body, nil
}

// ScrapeWrites reads the API server's write counters by resource and the
// operator's own write requests by method.
func ScrapeWrites(ctx context.Context, admin *rest.Config, op *controlplane.Operator, token string) (api, operator map[string]float64, err error) {
	body, err := APIServerMetrics(ctx, admin)
	if err != nil {
		return nil, nil, err
	}
	if api, err = WritesByResource(body); err != nil {
		return nil, nil, err
	}
	obody, err := OperatorMetrics(op, token)
	if err != nil {
		return nil, nil, err
	}
	if operator, err = ClientWrites(obody); err != nil {
		return nil, nil, err
	}
	return api, operator, nil
}

// OperatorLoads reads the controllers' work from the operator's /metrics.
func OperatorLoads(op *controlplane.Operator, token string) (map[string]*ControllerLoad, error) {
	body, err := OperatorMetrics(op, token)
	if err != nil {
		return nil, err
	}
	return ControllerLoads(body)
}
