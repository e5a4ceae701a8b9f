package queue

import "strconv"

// Matrix is the work of an enumerated run: every scenario against every
// provider, trials times (trials below 1 counts as 1). Item IDs are stable,
// so a matrix built twice is the same matrix.
func Matrix(scenarios, providers []string, trials int) []Item {
	if trials < 1 {
		trials = 1
	}
	items := make([]Item, 0, len(scenarios)*len(providers)*trials)
	for _, s := range scenarios {
		for _, p := range providers {
			for t := 1; t <= trials; t++ {
				items = append(items, Item{
					ID:       s + "|" + p + "|" + strconv.Itoa(t),
					Scenario: s,
					Provider: p,
					Trial:    t,
				})
			}
		}
	}
	return items
}

// MatrixSize is len(Matrix(...)) without building it, so an oversized
// matrix is refused before it is allocated.
func MatrixSize(scenarios, providers, trials int) int64 {
	if trials < 1 {
		trials = 1
	}
	return int64(scenarios) * int64(providers) * int64(trials)
}
