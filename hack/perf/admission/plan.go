package main

import "fmt"

// mode is whether the webhooks are registered with the API server.
type mode string

const (
	withWebhooks    mode = "with webhooks"
	withoutWebhooks mode = "without webhooks"
)

// block is a run of creates in one mode at one concurrency.
type block struct {
	mode        mode
	concurrency int
	// count creates, numbered from first (unique names across the run).
	first, count int
}

// plan interleaves the two modes in blocks of blockSize creates, perMode
// creates per mode at each concurrency, so that drift on a shared machine
// (other processes, the operator's growing cache, etcd's growing database)
// falls on both modes alike. Within a concurrency the order alternates
// ABBA (with, without, without, with, …): each mode goes first as often as
// the other, so neither always follows a mode switch of the same kind.
func plan(concurrencies []int, perMode, blockSize int) ([]block, error) {
	if perMode <= 0 || blockSize <= 0 || len(concurrencies) == 0 {
		return nil, fmt.Errorf("admission: plan needs creates, a block size and a concurrency")
	}
	var out []block
	next := 0
	for _, c := range concurrencies {
		if c <= 0 {
			return nil, fmt.Errorf("admission: concurrency %d", c)
		}
		for round, done := 0, 0; done < perMode; round++ {
			n := min(blockSize, perMode-done)
			order := []mode{withWebhooks, withoutWebhooks}
			if round%2 == 1 {
				order = []mode{withoutWebhooks, withWebhooks}
			}
			for _, m := range order {
				out = append(out, block{mode: m, concurrency: c, first: next, count: n})
				next += n
			}
			done += n
		}
	}
	return out, nil
}
