package perfreport

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSummarise(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	got := Summarise(d)
	want := Latencies{Count: 100, P50: 50 * time.Millisecond, P95: 95 * time.Millisecond, P99: 99 * time.Millisecond, Max: 100 * time.Millisecond, Mean: 50500 * time.Microsecond}
	if got != want {
		t.Fatalf("Summarise = %+v, want %+v", got, want)
	}
	if d[0] != 100*time.Millisecond {
		t.Fatal("Summarise sorted its input in place")
	}
	if (Summarise(nil) != Latencies{}) {
		t.Fatal("Summarise(nil) is not zero")
	}
}

func TestSamples(t *testing.T) {
	body := "# HELP x\n" +
		`rest_client_requests_total{code="200",method="GET"} 12` + "\n" +
		`rest_client_requests_total{code="201",method="POST",host="a\"b"} 3` + "\n" +
		"rest_client_requests_total_other 9\n" +
		"process_resident_memory_bytes 1.5e+07\n"
	got, err := Samples(body, "rest_client_requests_total")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].Labels["method"] != "POST" || got[1].Labels["host"] != `a"b` || got[1].Value != 3 {
		t.Fatalf("Samples = %+v", got)
	}
	if g, err := Samples(body, "process_resident_memory_bytes"); err != nil || len(g) != 1 || g[0].Value != 1.5e7 {
		t.Fatalf("Samples(unlabelled) = %+v, %v", g, err)
	}
	if _, err := Samples(`m{a="x" 1`+"\n", "m"); err == nil {
		t.Fatal("an unterminated label set was accepted")
	}
}

func TestProcessFiguresOfThisProcess(t *testing.T) {
	peak, rss, err := Memory(os.Getpid())
	if err != nil || peak <= 0 || rss <= 0 || rss > peak {
		t.Fatalf("Memory = %d, %d, %v", peak, rss, err)
	}
	cpu, err := CPUSeconds(os.Getpid())
	if err != nil || cpu < 0 {
		t.Fatalf("CPUSeconds = %v, %v", cpu, err)
	}
	if _, _, err := Memory(-1); err == nil {
		t.Fatal("Memory of no process succeeded")
	}
}

func TestWriteReadRender(t *testing.T) {
	dir := t.TempDir()
	sections := []Section{
		{ID: "b", Order: 2, Title: "Second", Command: "make b", Targets: []Target{{Name: "p99", Goal: "<= 2 ms", Measured: "3 ms"}}},
		{ID: "a", Order: 1, Title: "First", Command: "make a", Targets: []Target{{Name: "rss", Goal: "<= 1", Measured: "1", Met: true}},
			Tables: []Table{{Caption: "c", Header: []string{"x", "y|z"}, Rows: [][]string{{"1", "2"}}}}, Notes: []string{"n"}},
	}
	for _, s := range sections {
		if err := s.Write(dir); err != nil {
			t.Fatal(err)
		}
	}
	if err := (Section{ID: "../x"}).Write(dir); err == nil {
		t.Fatal("a section id with a path was written")
	}
	got, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "a" || got[0].Machine == "" || got[0].Measured.IsZero() {
		t.Fatalf("ReadDir = %+v", got)
	}
	var page bytes.Buffer
	if err := Render(&page, got); err != nil {
		t.Fatal(err)
	}
	s := page.String()
	for _, want := range []string{"| [First](#a) | rss | <= 1 | 1 | met |", "| [Second](#b) | p99 | <= 2 ms | 3 ms | **missed** |", "## 1. First", "Command: `make a`", `| x | y\|z |`, "- n"} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q:\n%s", want, s)
		}
	}
	if strings.Index(s, "## 1. First") > strings.Index(s, "## 2. Second") {
		t.Error("sections are not in report order")
	}
	if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(`{"id":"d"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadDir(dir); err == nil {
		t.Fatal("a section whose id differs from its file name was read")
	}
}

// TestPerformancePageIsCurrent holds the committed docs/performance.md to
// the committed section JSON: edit neither by hand; `make perf` (or one
// harness, then `go run ./hack/perf/report`) rewrites both.
func TestPerformancePageIsCurrent(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	sections, err := ReadDir(filepath.Join(root, "docs", "performance"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sections) == 0 {
		t.Fatal("docs/performance/ holds no sections")
	}
	var page bytes.Buffer
	if err := Render(&page, sections); err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join(root, "docs", "performance.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, page.Bytes()) {
		t.Fatal("docs/performance.md is stale: run `go run ./hack/perf/report`")
	}
}

func TestResidentOfThisProcess(t *testing.T) {
	anon, file, err := Resident(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	_, rss, err := Memory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// A Go test binary has both heap (anonymous) and text (file) pages
	// resident, and VmRSS is their sum plus shared memory.
	if anon <= 0 || file <= 0 {
		t.Fatalf("RssAnon %d KiB, RssFile %d KiB: want both > 0", anon, file)
	}
	if anon+file > rss+1024 {
		t.Errorf("RssAnon %d + RssFile %d KiB exceed VmRSS %d KiB", anon, file, rss)
	}
}

func TestStatusKiBMissingField(t *testing.T) {
	if _, err := statusKiB(os.Getpid(), "VmRSS", "NoSuchField"); err == nil || !strings.Contains(err.Error(), "NoSuchField") {
		t.Fatalf("err = %v, want one naming NoSuchField", err)
	}
}
