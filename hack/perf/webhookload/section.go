package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/altairalabs/omnia/hack/perf/loadgen"
	"github.com/altairalabs/omnia/hack/perf/perfreport"
)

// section renders the measured steps as the report's "webhook-load"
// section.
func section(cfg config, b *bench, steps []stepFigures, profile []string, loadAvg string) perfreport.Section {
	latency := perfreport.Table{
		Caption: "Latency from each review's scheduled send time to its answer, and errors by kind",
		Header:  []string{"protocol", "rate (reviews/s)", "sent", "p50", "p95", "p99", "max", "mean", "answered/s", "transport", "non-200", "wrong verdict", "dropped"},
	}
	resources := perfreport.Table{
		Caption: "CPU (cores = CPU seconds / wall seconds over the step) and memory",
		Header:  []string{"protocol", "rate (reviews/s)", "operator CPU (cores)", "operator peak RSS", "operator RSS after", "generator CPU (cores)"},
	}
	for _, f := range steps {
		r := f.result
		l := perfreport.Summarise(r.Latencies)
		row := []string{f.protocol, rate(r.Step.Rate), strconv.Itoa(r.Sent), perfreport.Ms(l.P50), perfreport.Ms(l.P95), perfreport.Ms(l.P99), perfreport.Ms(l.Max), perfreport.Ms(l.Mean), fmt.Sprintf("%.0f", r.Throughput())}
		for _, k := range loadgen.ErrorKinds {
			row = append(row, strconv.Itoa(r.Errors[k]))
		}
		latency.Rows = append(latency.Rows, row)
		resources.Rows = append(resources.Rows, []string{f.protocol, rate(r.Step.Rate), fmt.Sprintf("%.2f", f.operatorCores), mib(f.peakKiB), mib(f.rssKiB), fmt.Sprintf("%.2f", f.generatorCores)})
	}
	var targets []perfreport.Target
	for _, f := range targetSteps(steps) {
		l := perfreport.Summarise(f.result.Latencies)
		targets = append(targets,
			perfreport.Target{Name: "Webhook p99 at 2,000 reviews/s, " + f.protocol, Goal: "≤ 5 ms", Measured: perfreport.Ms(l.P99), Met: l.P99 <= targetP99},
			perfreport.Target{Name: "Webhook errors at 2,000 reviews/s, " + f.protocol, Goal: "0", Measured: strconv.Itoa(f.result.TotalErrors()), Met: f.result.TotalErrors() == 0})
	}
	sec := perfreport.Section{
		ID:      "webhook-load",
		Order:   1,
		Title:   "Webhook under load",
		Command: "make perf-webhook",
		Summary: fmt.Sprintf("The operator binary (as `make run` runs it, with an enterprise licence) serves its webhooks on loopback over TLS, "+
			"verified with the CA the local API server's environment generated. A bounded open-loop generator (hack/perf/loadgen) sends "+
			"admission.k8s.io/v1 AdmissionReviews (CREATE, the object as the API server sends it: defaulted and pruned by the CRD schema) "+
			"straight to the paths config/webhook/manifests.yaml registers: the %d spec examples (config/samples), which must be "+
			"admitted, and, as every fifth review, the %d refused rows of cmd/omniactl/testdata/webhook-rejects.yaml, each of which must be denied "+
			"naming its rule. Arrivals are scheduled at fixed times; latency runs from the scheduled time, so a stall on either side is not "+
			"hidden (no coordinated omission); at most %d reviews are in flight and an arrival finding them all busy is dropped and counted. "+
			"Each rate runs %s, after a %s warm-up at %.0f/s, over keep-alive connections, first over HTTP/1.1 (the operator's default: "+
			"one review per connection at a time, up to %d connections) and then over HTTP/2 (served with --enable-http2, multiplexed). "+
			"For scale: Kyverno publishes an average of 42.7 ms at 100 virtual users on a 32-core host.",
			b.valid, b.invalid, cfg.maxInFlight, cfg.stepLength, cfg.warmup, warmupRate, cfg.maxInFlight),
		Targets: targets,
		Tables:  []perfreport.Table{latency, resources},
		Notes: []string{
			fmt.Sprintf("The generator, the operator, kube-apiserver and etcd share this machine's CPUs; the generator's own CPU is in the second table. "+
				"The 1-minute load average was %s when the run began: on a shared machine the figures include other processes' contention.", loadAvg),
			"The operator serves HTTP/1.1 unless started with --enable-http2 (off by default: CVE-2023-44487), so the API server talks to a default deployment over HTTP/1.1; both are measured here, on the same operator process.",
			"Operator peak RSS is VmHWM reset (/proc/<pid>/clear_refs) at the start of each step, so it is that step's peak.",
		},
	}
	if cfg.quick {
		sec.Notes = append(sec.Notes, "This was a -quick smoke run ("+cfg.stepLength.String()+" per rate): its figures validate the harness, not the targets.")
	}
	if len(b.reasons) > 0 {
		sec.Notes = append(sec.Notes, "First errors: "+strings.Join(b.reasons, "; "))
	}
	sec.Notes = append(sec.Notes, profile...)
	return sec
}

// rate formats a rate with a thousands separator, as the issue writes it.
func rate(r float64) string {
	s := strconv.FormatFloat(r, 'f', 0, 64)
	if len(s) > 3 {
		s = s[:len(s)-3] + "," + s[len(s)-3:]
	}
	return s
}

// mib formats KiB as MiB.
func mib(kib int64) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }
