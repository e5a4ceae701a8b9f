package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/altairalabs/omnia/hack/perf/perfreport"
)

// section renders the measurement as the report's "admission-overhead"
// section: per concurrency, both modes' percentiles and their difference.
func section(cfg config, m *measurement, loadAvg string) perfreport.Section {
	var tables []perfreport.Table
	var targets []perfreport.Target
	for _, c := range concurrencies {
		with := perfreport.Summarise(m.durations[key{withWebhooks, c}])
		without := perfreport.Summarise(m.durations[key{withoutWebhooks, c}])
		t := perfreport.Table{
			Caption: fmt.Sprintf("Create latency through client-go, %s", inFlight(c)),
			Header:  []string{"mode", "creates", "p50", "p95", "p99", "max", "mean"},
			Rows: [][]string{
				latencyRow(string(withWebhooks), with),
				latencyRow(string(withoutWebhooks), without),
				{"added (with − without)", "", added(with.P50, without.P50), added(with.P95, without.P95), added(with.P99, without.P99), added(with.Max, without.Max), added(with.Mean, without.Mean)},
			},
		}
		tables = append(tables, t)
		targets = append(targets, perfreport.Target{
			Name:     "Admission overhead at p99, " + inFlight(c),
			Goal:     "≤ 2 ms added",
			Measured: added(with.P99, without.P99),
			Met:      with.P99-without.P99 <= targetAddedP99,
		})
	}
	sec := perfreport.Section{
		ID:      "admission-overhead",
		Order:   2,
		Title:   "Admission overhead on the real API server",
		Command: "make perf-admission",
		Summary: fmt.Sprintf("Creates of the %d spec examples (config/samples, round-robin, unique names) through client-go "+
			"(controller-runtime's client, client-side rate limit off) against the local kube-apiserver and etcd, timed from the call to its return, "+
			"with the operator's ValidatingWebhookConfigurations registered (failurePolicy Fail, TLS to the operator binary on loopback) and with them "+
			"deleted; the operator runs, with an enterprise licence, in both modes, so the only difference is the admission call. %d creates per mode, "+
			"sequential and at 8 in flight. The modes are interleaved in blocks of %d creates (with, without, without, with, …) so drift on a "+
			"shared machine falls on both alike; each switch is proved effective by a dry-run create of an object only the webhook refuses, and each block "+
			"runs in a fresh namespace whose objects are deleted afterwards (untimed). A warm-up of %d creates per mode is not counted.",
			m.examples, cfg.perMode, cfg.blockSize, warmupCreates),
		Targets: targets,
		Tables:  tables,
		Notes: []string{
			fmt.Sprintf("kube-apiserver, etcd, the operator (which reconciles what is created, in both modes) and this client share this machine's CPUs. "+
				"The 1-minute load average was %s when the run began: on a shared machine the figures include other processes' contention.", loadAvg),
			"A negative difference means the mode without webhooks was slower at that percentile: noise larger than the webhook's cost.",
			webhookCallsNote(m.calls),
		},
	}
	if cfg.quick {
		sec.Notes = append(sec.Notes, fmt.Sprintf("This was a -quick smoke run (%d creates per mode and concurrency): its figures validate the harness, not the target.", cfg.perMode))
	}
	return sec
}

// latencyRow is one mode's percentiles.
func latencyRow(name string, l perfreport.Latencies) []string {
	return []string{name, strconv.Itoa(l.Count), perfreport.Ms(l.P50), perfreport.Ms(l.P95), perfreport.Ms(l.P99), perfreport.Ms(l.Max), perfreport.Ms(l.Mean)}
}

// added formats with − without, signed.
func added(with, without time.Duration) string {
	d := with - without
	if d >= 0 {
		return "+" + perfreport.Ms(d)
	}
	return "−" + perfreport.Ms(-d)
}

// inFlight names a concurrency.
func inFlight(c int) string {
	if c == 1 {
		return "sequential"
	}
	return fmt.Sprintf("%d in flight", c)
}

// webhookCallsNote reports the API server's own measure of its calls to
// the webhooks: the part of the added latency spent in the call itself.
func webhookCallsNote(c webhookCalls) string {
	if c.count == 0 {
		return "The API server recorded no call to the Omnia webhooks during the measured blocks (" + webhookMetric + "): the with-webhooks mode did not reach them."
	}
	mean := time.Duration(c.seconds / c.count * float64(time.Second))
	return fmt.Sprintf("The API server's own measure of its calls to the Omnia webhooks during the measured blocks (%s, Δsum/Δcount): "+
		"%.0f calls, mean %s per call (request over TLS, the operator's review, the answer); the rest of the added latency is the API server's own admission work around the call and the machine's contention.",
		webhookMetric, c.count, perfreport.Ms(mean))
}
