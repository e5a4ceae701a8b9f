// Package loadgen is the small, bounded open-loop load generator of the
// webhook and admission harnesses (hack/perf/webhookload,
// hack/perf/admission), and the AdmissionReviews they send: the spec's
// examples, which must be admitted, and the webhook-only rejected cases of
// cmd/omniactl/testdata/webhook-rejects.yaml, each refused by a known rule.
//
// Why not a load-testing library: the report needs latency measured from
// each request's scheduled send time (so a stalled server cannot hide
// behind a stalled client: coordinated omission), a hard bound on requests
// in flight where an arrival that finds it full is counted as dropped rather
// than queued, and every sample kept for exact percentiles
// (perfreport.Summarise). That is a hundred lines here, each of them
// unit-tested with a fake clock.
package loadgen
