package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/altairalabs/omnia/hack/perf/clusterbench"
)

func sized(n int, peakKiB int64, objectWrites float64) *result {
	return &result{n: n, plan: NewPlan(n), peak: peakKiB, peakAtConverged: peakKiB, steady: time.Minute,
		requests: map[string]float64{"GET": float64(3 * n), "PATCH": float64(2 * n)},
		writes: clusterbench.Writes{Objects: map[string]float64{"toolregistries/status PATCH": objectWrites},
			Leases: map[string]float64{"leases PUT": 30}}}
}

func TestRSSTargetNeedsTheTargetSize(t *testing.T) {
	t1 := rssTarget([]*result{sized(1000, 100*1024, 0)})
	if t1.Met || !strings.Contains(t1.Measured, "not measured at 10,000") {
		t.Errorf("a run without 10,000 objects: %+v", t1)
	}
	t2 := rssTarget([]*result{sized(1000, 100*1024, 0), sized(10000, 150*1024, 0)})
	if !t2.Met || t2.Measured != "150.0 MiB" {
		t.Errorf("150 MiB at 10,000: %+v", t2)
	}
	t3 := rssTarget([]*result{sized(10000, 201*1024, 0)})
	if t3.Met {
		t.Errorf("201 MiB at 10,000 met the target: %+v", t3)
	}
}

func TestSteadyTargetCountsObjectWritesOnly(t *testing.T) {
	// Lease writes (30 in each) do not count.
	if !steadyTargetMet([]*result{sized(100, 1, 0), sized(1000, 1, 0)}) {
		t.Error("no object writes, target missed")
	}
	if steadyTargetMet([]*result{sized(100, 1, 0), sized(1000, 1, 3)}) {
		t.Error("3 object writes met the target")
	}
}

func TestSectionFigures(t *testing.T) {
	r := sized(1000, 120*1024, 0)
	s := section(context.Background(), config{steady: time.Minute}, []*result{r}, nil)
	if s.ID != "reconcile-scale" || s.Order != 4 || s.Command != "make perf-scale" {
		t.Errorf("section %s/%d/%q", s.ID, s.Order, s.Command)
	}
	row := s.Tables[0].Rows[0]
	if len(row) != len(s.Tables[0].Header) {
		t.Fatalf("row %d cells, header %d", len(row), len(s.Tables[0].Header))
	}
	// 5,000 requests over 1,000 objects, 2,000 of them writes.
	if row[9] != "5.00" || row[10] != "2.00" {
		t.Errorf("requests per object %q, writes %q", row[9], row[10])
	}
	verbs := s.Tables[1].Rows[0]
	if verbs[1] != "3.00" || verbs[4] != "2.00" || verbs[len(verbs)-1] != "5.00" {
		t.Errorf("per-verb row %q", verbs)
	}
}

func TestGaugeReadsOneSample(t *testing.T) {
	body := "# TYPE go_memstats_heap_inuse_bytes gauge\ngo_memstats_heap_inuse_bytes 1.8350080e+07\ngo_memstats_heap_sys_bytes 4e+07\n"
	v, err := gauge(body, "go_memstats_heap_inuse_bytes")
	if err != nil || v != 18350080 {
		t.Errorf("gauge: %v, %v", v, err)
	}
	if _, err := gauge(body, "go_memstats_missing"); err == nil {
		t.Error("a missing gauge read as a value")
	}
}

func TestProbeWritesNote(t *testing.T) {
	r := sized(1000, 1, 150)
	r.steady = 5 * time.Minute
	note := probeWritesNote(r)
	if !strings.Contains(note, "(150) come from the 30 probing ToolRegistries, 5.0 each in 5m0s") {
		t.Errorf("note %q", note)
	}
	if probeWritesNote(sized(1000, 1, 0)) != "" {
		t.Error("a note with no probe writes")
	}
}
