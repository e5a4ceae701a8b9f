// Package perfreport is the shared vocabulary of `make perf`: each harness
// under hack/perf writes one Section as JSON into docs/performance/, and
// hack/perf/report renders every section into docs/performance.md. A figure
// is never written without the command that produced it (Section.Command),
// the machine it ran on and when.
//
// The package also holds what the harnesses measure with: exact latency
// percentiles (latency.go), a process's CPU time and peak RSS from /proc
// (proc.go), and a reader of Prometheus text metrics (promtext.go).
package perfreport

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Section is one harness's part of the report.
type Section struct {
	// ID names the JSON file (docs/performance/<ID>.json) and the anchor.
	ID string `json:"id"`
	// Order is the section's position: the numbering (1 webhook
	// load, 2 admission overhead, 3 offline check, 4 reconcile at scale,
	// 5 faults, 6 fuzzing).
	Order int    `json:"order"`
	Title string `json:"title"`
	// Command reproduces every figure of the section, from the repository
	// root (e.g. "make perf-webhook" or "go run ./hack/perf/webhookload").
	Command string `json:"command"`
	// Measured is when the harness ran; Machine what it ran on (see
	// ThisMachine).
	Measured time.Time `json:"measured"`
	Machine  string    `json:"machine"`
	// Summary is a paragraph saying what was measured and how.
	Summary string   `json:"summary"`
	Targets []Target `json:"targets,omitempty"`
	Tables  []Table  `json:"tables,omitempty"`
	// Notes are what limits a figure, what a missed target would take, and
	// anything a reader must know to trust the numbers.
	Notes []string `json:"notes,omitempty"`
}

// Target is one of the targets beside what was measured.
type Target struct {
	Name     string `json:"name"`
	Goal     string `json:"goal"`
	Measured string `json:"measured"`
	Met      bool   `json:"met"`
}

// Table is a figure table: a caption, a header row and rows of cells.
type Table struct {
	Caption string     `json:"caption"`
	Header  []string   `json:"header"`
	Rows    [][]string `json:"rows"`
}

// ThisMachine describes the machine a harness runs on: CPU count and model,
// memory, OS and Go version.
func ThisMachine() string {
	model := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		if f := strings.Fields(strings.SplitN(string(data), "\n", 2)[0]); len(f) >= 2 {
			if kib, err := strconv.ParseFloat(f[1], 64); err == nil {
				mem = fmt.Sprintf(", %.0f GiB", kib/(1<<20))
			}
		}
	}
	return fmt.Sprintf("%d CPUs (%s)%s, %s/%s, %s", runtime.NumCPU(), model, mem, runtime.GOOS, runtime.GOARCH, runtime.Version())
}

// Write stores the section as dir/<ID>.json, filling Measured and Machine
// when they are empty.
func (s Section) Write(dir string) error {
	if s.ID == "" || strings.ContainsAny(s.ID, `/\.`) {
		return fmt.Errorf("perfreport: section id %q must be a plain name", s.ID)
	}
	if s.Measured.IsZero() {
		s.Measured = time.Now().UTC().Truncate(time.Second)
	}
	if s.Machine == "" {
		s.Machine = ThisMachine()
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, s.ID+".json"), append(data, '\n'), 0o644)
}

// ReadDir reads every section JSON in dir, in report order.
func ReadDir(dir string) ([]Section, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Section
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var s Section
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if want := strings.TrimSuffix(filepath.Base(p), ".json"); s.ID != want {
			return nil, fmt.Errorf("%s: id %q, want %q", p, s.ID, want)
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b Section) int {
		if a.Order != b.Order {
			return a.Order - b.Order
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// formatFloat formats f with prec decimals.
func formatFloat(f float64, prec int) string { return strconv.FormatFloat(f, 'f', prec, 64) }
