package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/hack/perf/loadgen"
	"github.com/altairalabs/omnia/hack/perf/perfreport"
	"github.com/altairalabs/omnia/test/controlplane"
)

// namespace is where the reviewed objects claim to live. It exists, as it
// would in a cluster: the webhook reads a namespace's mode label.
const namespace = "perf-webhook"

// bench is a started environment and the prepared requests.
type bench struct {
	cfg config
	env *loadgen.Environment
	// clients and mixes are per protocol (HTTP/1.1, HTTP/2), each client
	// with its own connections.
	clients   map[string]*loadgen.WebhookClient
	mixes     map[string]loadgen.Mix[loadgen.Request]
	valid     int
	invalid   int
	pprofAddr string
	dir       string
	// reasons keeps the first few error reasons, for the notes.
	reasonsMu sync.Mutex
	reasons   []string
}

// maxReasons bounds the error reasons kept for the notes.
const maxReasons = 5

// The protocols measured, as net/http names them in Response.Proto: the
// operator's default (HTTP/2 is off unless --enable-http2) first.
const (
	http1 = "HTTP/1.1"
	http2 = "HTTP/2.0"
)

var protocols = []string{http1, http2}

// stepFigures is one rate's result with the processes' resources.
type stepFigures struct {
	protocol string
	result   loadgen.Result
	// operatorCores and generatorCores are CPU seconds per wall second.
	operatorCores, generatorCores float64
	peakKiB, rssKiB               int64
}

// startBench starts the licensed environment with the operator serving
// pprof, loads and prepares the cases, and waits until every one gets its
// expected verdict.
func startBench(ctx context.Context, cfg config, dir string) (*bench, error) {
	pprofPort, err := controlplane.FreePort()
	if err != nil {
		return nil, err
	}
	b := &bench{cfg: cfg, dir: dir, pprofAddr: fmt.Sprintf("127.0.0.1:%d", pprofPort)}
	// --enable-http2 lets the same operator be measured over both
	// protocols: a client that offers only HTTP/1.1 gets the server it gets
	// without the flag.
	args := []string{"--pprof-bind-address=" + b.pprofAddr, "--enable-http2"}
	start := time.Now()
	if b.env, err = loadgen.StartLicensed(dir, args...); err != nil {
		return nil, err
	}
	fmt.Printf("API server and operator up in %s (operator pid %d, webhook %s)\n", time.Since(start).Round(time.Millisecond), b.env.Operator.Pid(), b.env.Operator.WebhookAddr)
	if err := b.prepare(ctx); err != nil {
		b.stop()
		return nil, err
	}
	return b, nil
}

// prepare creates the namespace, renders the reviews and checks their
// verdicts once each.
func (b *bench) prepare(ctx context.Context) error {
	if err := b.env.Admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
		return err
	}
	root, err := controlplane.RepoRoot()
	if err != nil {
		return err
	}
	valid, invalid, err := loadgen.LoadCases(root, namespace)
	if err != nil {
		return err
	}
	routes, err := loadgen.WebhookRoutes()
	if err != nil {
		return err
	}
	b.valid, b.invalid = len(valid), len(invalid)
	fmt.Printf("%d admitted and %d refused cases\n", len(valid), len(invalid))
	b.clients, b.mixes = map[string]*loadgen.WebhookClient{}, map[string]loadgen.Mix[loadgen.Request]{}
	for _, proto := range protocols {
		c, err := loadgen.NewWebhookClient(b.env.Operator.WebhookAddr, b.env.Env.WebhookInstallOptions.LocalServingCAData, b.cfg.maxInFlight, proto == http2)
		if err != nil {
			return err
		}
		b.clients[proto] = c
		var m loadgen.Mix[loadgen.Request]
		if m.Valid, err = c.Prepare(valid, routes); err != nil {
			return err
		}
		if m.Invalid, err = c.Prepare(invalid, routes); err != nil {
			return err
		}
		b.mixes[proto] = m
		all := append(append([]loadgen.Request{}, m.Valid...), m.Invalid...)
		if err := loadgen.WaitVerdicts(ctx, c, all, verdictTimeout); err != nil {
			return err
		}
	}
	return nil
}

// sender is the generator's request function over protocol: request i
// of the mix. It checks the answer came over that protocol, and keeps the
// first error reasons of measured steps (not of warm-ups) for the notes.
func (b *bench) sender(protocol string, measured bool) loadgen.Send {
	c, mix := b.clients[protocol], b.mixes[protocol]
	return func(ctx context.Context, i int) loadgen.Outcome {
		out, why, proto := c.Do(ctx, mix.Pick(i))
		if proto != "" && proto != protocol {
			out, why = loadgen.WrongVerdict, "answered over "+proto+", not "+protocol
		}
		if out != loadgen.OK && measured {
			b.reasonsMu.Lock()
			if len(b.reasons) < maxReasons {
				b.reasons = append(b.reasons, fmt.Sprintf("%s %s (%s)", protocol, out, why))
			}
			b.reasonsMu.Unlock()
		}
		return out
	}
}

// measure runs, per protocol, a warm-up (not recorded) and then each rate,
// reading the operator's and the generator's CPU time around each step and
// the operator's peak RSS within it.
func (b *bench) measure(ctx context.Context) ([]stepFigures, error) {
	opPid, self := b.env.Operator.Pid(), os.Getpid()
	var out []stepFigures
	for _, proto := range protocols {
		warm := loadgen.Step{Rate: warmupRate, Duration: b.cfg.warmup, MaxInFlight: b.cfg.maxInFlight}
		if res, err := loadgen.Run(ctx, loadgen.RealClock{}, warm, b.sender(proto, false)); err != nil {
			return nil, err
		} else if res.TotalErrors() > 0 {
			fmt.Printf("warm-up over %s: errors %v\n", proto, res.Errors)
		}
		steps, err := b.measureRates(ctx, proto, opPid, self)
		if err != nil {
			return nil, err
		}
		out = append(out, steps...)
	}
	return out, nil
}

// measureRates runs each rate over protocol.
func (b *bench) measureRates(ctx context.Context, proto string, opPid, self int) ([]stepFigures, error) {
	var out []stepFigures
	for _, rate := range b.cfg.rates {
		step := loadgen.Step{Rate: rate, Duration: b.cfg.stepLength, MaxInFlight: b.cfg.maxInFlight}
		if err := loadgen.ResetPeakRSS(opPid); err != nil {
			return nil, fmt.Errorf("resetting the operator's peak RSS: %w", err)
		}
		opBefore, err1 := perfreport.CPUSeconds(opPid)
		selfBefore, err2 := perfreport.CPUSeconds(self)
		wallStart := time.Now()
		res, err := loadgen.Run(ctx, loadgen.RealClock{}, step, b.sender(proto, true))
		if err != nil {
			return nil, err
		}
		select {
		case err := <-b.env.Operator.Exited():
			return nil, fmt.Errorf("the operator exited during the %s %.0f/s step (log: %s): %v", proto, rate, b.env.Operator.LogPath, err)
		default:
		}
		wall := time.Since(wallStart).Seconds()
		opAfter, err3 := perfreport.CPUSeconds(opPid)
		selfAfter, err4 := perfreport.CPUSeconds(self)
		peak, rss, err5 := perfreport.Memory(opPid)
		for _, err := range []error{err1, err2, err3, err4, err5} {
			if err != nil {
				return nil, err
			}
		}
		f := stepFigures{protocol: proto, result: res, operatorCores: (opAfter - opBefore) / wall, generatorCores: (selfAfter - selfBefore) / wall, peakKiB: peak, rssKiB: rss}
		lat := perfreport.Summarise(res.Latencies)
		fmt.Printf("%s %5.0f/s: sent %d, p50 %s p99 %s max %s, %.0f answered/s, errors %v, operator %.2f cores, peak RSS %d MiB\n",
			proto, rate, res.Sent, perfreport.Ms(lat.P50), perfreport.Ms(lat.P99), perfreport.Ms(lat.Max), res.Throughput(), res.Errors, f.operatorCores, peak/1024)
		out = append(out, f)
	}
	return out, nil
}

// targetMet is the target at 2,000/s: p99 ≤ 5 ms and no error.
func targetMet(f stepFigures) bool {
	return perfreport.Summarise(f.result.Latencies).P99 <= targetP99 && f.result.TotalErrors() == 0
}

// targetSteps are the steps at the target rate, one per protocol.
func targetSteps(steps []stepFigures) []stepFigures {
	var out []stepFigures
	for _, f := range steps {
		if f.result.Step.Rate == targetRate {
			out = append(out, f)
		}
	}
	return out
}

// firstMissed is the first target-rate step that missed the target (the
// one to profile), or nil.
func firstMissed(steps []stepFigures) *stepFigures {
	for _, f := range targetSteps(steps) {
		if !targetMet(f) {
			return &f
		}
	}
	return nil
}

// stop stops the operator and the API server.
func (b *bench) stop() {
	for _, c := range b.clients {
		c.Close()
	}
	if err := b.env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "webhookload: stopping:", err)
	}
}
