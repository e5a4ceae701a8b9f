package main

import "testing"

func TestPlanInterleavesModesEqually(t *testing.T) {
	blocks, err := plan([]int{1, 8}, 1000, 250)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 16 {
		t.Fatalf("%d blocks, want 16 (4 rounds × 2 modes × 2 concurrencies)", len(blocks))
	}
	type key struct {
		m mode
		c int
	}
	creates := map[key]int{}
	next := 0
	for i, b := range blocks {
		if b.first != next {
			t.Fatalf("block %d starts at %d, want %d: names would collide or skip", i, b.first, next)
		}
		next += b.count
		creates[key{b.mode, b.concurrency}] += b.count
		// Consecutive blocks of a concurrency alternate ABBA: with, without,
		// without, with, …
		if i%2 == 1 && b.mode == blocks[i-1].mode {
			t.Fatalf("blocks %d and %d are both %s", i-1, i, b.mode)
		}
	}
	for _, k := range []key{{withWebhooks, 1}, {withoutWebhooks, 1}, {withWebhooks, 8}, {withoutWebhooks, 8}} {
		if creates[k] != 1000 {
			t.Errorf("%s at %d in flight: %d creates, want 1000", k.m, k.c, creates[k])
		}
	}
	firsts := map[mode]int{}
	for i := 0; i < len(blocks); i += 2 {
		firsts[blocks[i].mode]++
	}
	if firsts[withWebhooks] != firsts[withoutWebhooks] {
		t.Fatalf("rounds started with each mode %v times: the order is not balanced", firsts)
	}
	if blocks[0].concurrency != 1 || blocks[len(blocks)-1].concurrency != 8 {
		t.Fatalf("the concurrencies are not run in order")
	}
}

func TestPlanSplitsARemainder(t *testing.T) {
	blocks, err := plan([]int{1}, 600, 250)
	if err != nil {
		t.Fatal(err)
	}
	var counts []int
	for _, b := range blocks {
		counts = append(counts, b.count)
	}
	want := []int{250, 250, 250, 250, 100, 100}
	if len(counts) != len(want) {
		t.Fatalf("block sizes %v, want %v", counts, want)
	}
	for i := range want {
		if counts[i] != want[i] {
			t.Fatalf("block sizes %v, want %v", counts, want)
		}
	}
}

func TestPlanRefusesAnEmptyPlan(t *testing.T) {
	for _, tc := range []struct {
		conc          []int
		perMode, size int
	}{{nil, 10, 5}, {[]int{1}, 0, 5}, {[]int{1}, 10, 0}, {[]int{0}, 10, 5}} {
		if _, err := plan(tc.conc, tc.perMode, tc.size); err == nil {
			t.Errorf("plan(%v, %d, %d) accepted", tc.conc, tc.perMode, tc.size)
		}
	}
}
