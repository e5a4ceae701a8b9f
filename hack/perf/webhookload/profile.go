package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/altairalabs/omnia/hack/perf/clusterbench"
	"github.com/altairalabs/omnia/hack/perf/loadgen"
	"github.com/altairalabs/omnia/hack/perf/perfreport"
)

// profileTopLines bounds the pprof -top entries copied into the notes.
const profileTopLines = 12

// profileStep repeats a step (the first 2,000/s one that missed the target) while
// the operator takes a CPU profile of it (--pprof-bind-address), and
// returns the header and top entries of `go tool pprof -top`. The measured
// steps are never profiled: profiling costs the operator CPU.
func (b *bench) profileStep(ctx context.Context, missed *stepFigures) ([]string, error) {
	step := missed.result.Step
	seconds := int(step.Duration.Seconds())
	path := filepath.Join(b.dir, "cpu.pprof")
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(ctx, time.Duration(seconds)*time.Second+time.Minute)
		defer cancel()
		done <- clusterbench.SaveProfile(ctx, b.pprofAddr, "profile", fmt.Sprintf("seconds=%d", seconds), filepath.Dir(path), filepath.Base(path))
	}()
	res, err := loadgen.Run(ctx, loadgen.RealClock{}, step, b.sender(missed.protocol, false))
	if err != nil {
		return nil, err
	}
	if err := <-done; err != nil {
		return nil, err
	}
	lat := perfreport.Summarise(res.Latencies)
	out, err := exec.CommandContext(ctx, "go", "tool", "pprof", "-top", fmt.Sprintf("-nodecount=%d", profileTopLines), path).Output()
	if err != nil {
		return nil, fmt.Errorf("go tool pprof: %w", err)
	}
	lines := []string{starvation(missed)}
	lines = append(lines, fmt.Sprintf("CPU profile of the operator during a repeat of the %.0f/s step over %s (p99 %s in that repeat), `go tool pprof -top`:", step.Rate, missed.protocol, perfreport.Ms(lat.P99)))
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "File:") || strings.HasPrefix(l, "Type:") || strings.HasPrefix(l, "Time:") || strings.HasPrefix(l, "Build ID:") {
			continue
		}
		lines = append(lines, "`"+l+"`")
	}
	return lines, nil
}

// starvation says what the operator's CPU use during the missed step
// shows. An operator saturated by its own work uses nearly all the cores; one
// that used far fewer while reviews queued was waiting: for CPU other
// processes held when the machine was loaded (the load average is in the
// notes), otherwise on scheduling, GC and syscalls, which the profile shows.
// It states the figures and leaves the cause to them and the profile.
func starvation(f *stepFigures) string {
	cores := runtime.NumCPU()
	if f.operatorCores < 0.5*float64(cores) {
		return fmt.Sprintf("During the missed %.0f/s step over %s the operator used %.2f of this machine's %d cores: it was not saturated by its own work. "+
			"The tail is time spent waiting — for CPU other processes held when the load average is high, otherwise on scheduling, garbage collection and syscalls (the profile below).",
			f.result.Step.Rate, f.protocol, f.operatorCores, cores)
	}
	return fmt.Sprintf("During the missed %.0f/s step over %s the operator used %.2f of this machine's %d cores: it was saturated by its own work; "+
		"the profile below says where it went.", f.result.Step.Rate, f.protocol, f.operatorCores, cores)
}
