package main

import (
	"context"
	"strings"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/altairalabs/omnia/hack/perf/perfreport"
)

// webhookMetric is the API server's histogram of its calls to admission
// webhooks, by webhook name: the time a create spent in our webhooks as the
// API server itself measured it (request, TLS, the operator's answer).
const webhookMetric = "apiserver_admission_webhook_admission_duration_seconds"

// webhookCalls is the sum (seconds) and count of the API server's calls to
// the Omnia webhooks so far.
type webhookCalls struct {
	seconds, count float64
}

// readWebhookCalls scrapes the API server's /metrics as the admin.
func readWebhookCalls(ctx context.Context, cfg *rest.Config) (webhookCalls, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return webhookCalls{}, err
	}
	body, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return webhookCalls{}, err
	}
	var out webhookCalls
	for _, part := range []struct {
		suffix string
		into   *float64
	}{{"_sum", &out.seconds}, {"_count", &out.count}} {
		samples, err := perfreport.Samples(string(body), webhookMetric+part.suffix)
		if err != nil {
			return webhookCalls{}, err
		}
		for _, s := range samples {
			if strings.HasSuffix(s.Labels["name"], ".omnia.altairalabs.ai") {
				*part.into += s.Value
			}
		}
	}
	return out, nil
}
