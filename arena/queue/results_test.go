package queue_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/altairalabs/omnia/arena/queue"
	testredis "github.com/altairalabs/omnia/test/redis"
)

// reportN reports n passing generated results s|p|<i> on q.
func reportN(t *testing.T, q *queue.Queue, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		r := queue.Result{ItemID: "s|p|" + strconv.Itoa(i), Scenario: "s", Provider: "p", Passed: true, DurationMs: 1}
		if _, err := q.ReportGenerated(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
}

// The results list is read in pages, in report order, up to the cap: the
// entries past it are counted as unread, not read.
func TestResultsAreReadInPagesUpToTheCap(t *testing.T) {
	ctx := context.Background()
	q := newQueue(t, "paged")
	n := 2*queue.ResultsPageSize + 17
	reportN(t, q, n)
	cases := []struct {
		name      string
		cap       int64
		read      int64
		unread    int64
		lastIndex int
	}{
		{"no-cap", 0, int64(n), 0, n - 1},
		{"cap-inside-a-page", queue.ResultsPageSize + 3, queue.ResultsPageSize + 3, int64(n) - queue.ResultsPageSize - 3, queue.ResultsPageSize + 2},
		{"cap-over-the-list", int64(n) + 50, int64(n), 0, n - 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, read, err := q.Results(ctx, c.cap)
			if err != nil {
				t.Fatal(err)
			}
			if read.Listed != int64(n) || read.Read != c.read || read.Unread != c.unread || read.Unreadable != 0 || int64(len(res)) != c.read {
				t.Fatalf("read %+v with %d results, want %d read and %d unread of %d", read, len(res), c.read, c.unread, n)
			}
			for i, r := range res {
				if r.ItemID != "s|p|"+strconv.Itoa(i) {
					t.Fatalf("result %d is %s: out of report order", i, r.ItemID)
				}
			}
			if res[len(res)-1].ItemID != "s|p|"+strconv.Itoa(c.lastIndex) {
				t.Fatalf("last result %s, want s|p|%d", res[len(res)-1].ItemID, c.lastIndex)
			}
		})
	}
}

// A worker's result entry over MaxResultBytes never crosses the wire (the
// page script sends its length instead), so even one over the whole reply
// limit does not stop the read: it becomes a failed result saying why, as
// does an entry that is not a result's JSON, and the entries around them
// read as usual.
func TestOversizedAndGarbageResultsCountAsFailed(t *testing.T) {
	ctx := context.Background()
	srv := testredis.Start(t)
	rdb, err := queue.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rdb.Close() }()
	q := queue.New(rdb, "ns", "hostile")
	key := queue.KeyPrefix("ns", "hostile") + "results"
	reportN(t, q, 1)
	entries := []string{
		`{"itemId":"big","passed":true,"error":"` + strings.Repeat("x", queue.MaxReplyBytes+1) + `"}`,
		`{"itemId":"just-over","passed":true,"error":"` + strings.Repeat("x", queue.MaxResultBytes) + `"}`,
		"not json",
	}
	for _, e := range entries {
		if err := rdb.RPush(ctx, key, e).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.ReportGenerated(ctx, queue.Result{ItemID: "after", Scenario: "s", Provider: "p", Passed: true}); err != nil {
		t.Fatal(err)
	}
	res, read, err := q.Results(ctx, 0)
	if err != nil {
		t.Fatalf("reading results with an oversized entry: %v", err)
	}
	if read.Read != 5 || read.Unreadable != 3 || len(res) != 5 {
		t.Fatalf("read %+v, want 5 read, 3 unreadable", read)
	}
	if res[0].ItemID != "s|p|0" || !res[0].Passed || res[4].ItemID != "after" || !res[4].Passed {
		t.Fatalf("the readable results around them: %+v, %+v", res[0], res[4])
	}
	for _, r := range res[1:4] {
		if r.Passed || r.ItemID != "" || r.Scenario != "" || r.Error == "" || len(r.Error) > 200 {
			t.Fatalf("unreadable entry read as %+v, want a failed result with a short error", r)
		}
	}
	s := queue.Summarize(res, queue.Counters{})
	if s[queue.KeyTotalItems] != "5" || s[queue.KeyFailedItems] != "3" {
		t.Fatalf("summary %v: the unreadable entries count as failed items", s)
	}
	var d queue.Details
	if err := json.Unmarshal([]byte(s[queue.KeyDetails]), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Scenarios) != 1 || d.Scenarios["s"].Passed != 2 || len(d.Errors) != 3 {
		t.Fatalf("details %+v: unreadable entries belong to no scenario, and say why in errors", d)
	}
}

// The summary's details stop growing at their bounds, whatever names the
// workers report, and say so; the totals still count every result.
func TestSummaryDetailsAreBounded(t *testing.T) {
	long := strings.Repeat("é", queue.MaxDetailNameBytes) // 2 bytes each
	cases := []struct {
		name      string
		results   int
		result    func(i int) queue.Result
		truncated bool
		check     func(t *testing.T, d queue.Details)
	}{
		{"few-names", 10, func(i int) queue.Result {
			return queue.Result{Scenario: "s" + strconv.Itoa(i%2), Provider: "p", Passed: true, Assertions: map[string]bool{"a": true}}
		}, false, func(t *testing.T, d queue.Details) {
			if len(d.Scenarios) != 2 || len(d.Cells) != 2 || d.Assertions["a"].Passed != 10 {
				t.Fatalf("details %+v", d)
			}
		}},
		{"distinct-names", 3 * queue.MaxDetailKeys, func(i int) queue.Result {
			n := strconv.Itoa(i)
			return queue.Result{Scenario: "s" + n, Provider: "p" + n, Assertions: map[string]bool{"a" + n: true}, Error: "e"}
		}, true, func(t *testing.T, d queue.Details) {
			if len(d.Scenarios) != queue.MaxDetailKeys || len(d.Providers) != queue.MaxDetailKeys ||
				len(d.Cells) != queue.MaxDetailKeys || len(d.Assertions) != queue.MaxDetailKeys || len(d.Errors) != 20 {
				t.Fatalf("breakdowns %d %d %d %d errors %d, want %d each and 20 errors",
					len(d.Scenarios), len(d.Providers), len(d.Cells), len(d.Assertions), len(d.Errors), queue.MaxDetailKeys)
			}
		}},
		{"long-names", 2000, func(i int) queue.Result {
			return queue.Result{Scenario: strconv.Itoa(i) + long, Provider: "p", Error: strings.Repeat("x", 10000)}
		}, true, func(t *testing.T, d queue.Details) {
			total := 0
			for name := range d.Scenarios {
				if len(name) > queue.MaxDetailNameBytes || !strings.HasSuffix(name, "é") {
					t.Fatalf("name of %d bytes, cut badly", len(name))
				}
				total += len(name)
			}
			if total > queue.MaxDetailNamesBytes || len(d.Errors[0].Error) > 512 {
				t.Fatalf("names take %d bytes, an error %d", total, len(d.Errors[0].Error))
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var rs []queue.Result
			for i := 0; i < c.results; i++ {
				rs = append(rs, c.result(i))
			}
			s := queue.Summarize(rs, queue.Counters{})
			if s[queue.KeyTotalItems] != strconv.Itoa(c.results) {
				t.Fatalf("totalItems %s, want %d", s[queue.KeyTotalItems], c.results)
			}
			var d queue.Details
			if err := json.Unmarshal([]byte(s[queue.KeyDetails]), &d); err != nil {
				t.Fatal(err)
			}
			if d.Truncated != c.truncated {
				t.Fatalf("truncated %v, want %v", d.Truncated, c.truncated)
			}
			c.check(t, d)
		})
	}
}
