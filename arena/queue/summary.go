package queue

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
)

// Summary keys of an evaluation run (arenajob.md § result).
const (
	KeyPassRate      = "passRate"
	KeyTotalItems    = "totalItems"
	KeyPassedItems   = "passedItems"
	KeyFailedItems   = "failedItems"
	KeyAvgDurationMs = "avgDurationMs"
	KeyTotalTokens   = "totalTokens"
	KeyTotalCost     = "totalCost"
	KeyDetails       = "details"
	// Budget stop keys (arenajob.md § budgetLimit).
	KeyBudgetBreached = "budgetBreached"
	KeyDrainedItems   = "drainedItems"
)

// maxDetailErrors bounds details.errors so the summary stays small.
const maxDetailErrors = 20

// Tally counts passed and failed items of one breakdown bucket.
type Tally struct {
	Passed int64 `json:"passed"`
	Failed int64 `json:"failed"`
}

// Cell is one scenario × provider pair.
type Cell struct {
	Scenario string `json:"scenario"`
	Provider string `json:"provider"`
	Tally
}

// ItemError is one failed item's error text.
type ItemError struct {
	ItemID string `json:"itemId"`
	Error  string `json:"error"`
}

// Details is the JSON of the summary's details key.
type Details struct {
	Scenarios  map[string]Tally `json:"scenarios"`
	Providers  map[string]Tally `json:"providers"`
	Cells      []Cell           `json:"cells"`
	Assertions map[string]Tally `json:"assertions"`
	Errors     []ItemError      `json:"errors"`
}

// Summarize aggregates results (and the queue's counters, for the cost and
// tokens the results may not all carry) into the run's status.result.summary:
// every value a string, passRate to one decimal, totalCost to four, and
// totalTokens / totalCost only when above zero.
func Summarize(results []Result, c Counters) map[string]string {
	var passed, failed int64
	var durSum float64
	var tokens int64
	var cost float64
	d := Details{
		Scenarios:  map[string]Tally{},
		Providers:  map[string]Tally{},
		Assertions: map[string]Tally{},
		Cells:      []Cell{},
		Errors:     []ItemError{},
	}
	cells := map[[2]string]*Tally{}
	add := func(t Tally, ok bool) Tally {
		if ok {
			t.Passed++
		} else {
			t.Failed++
		}
		return t
	}
	for _, r := range results {
		if r.Passed {
			passed++
		} else {
			failed++
		}
		durSum += r.DurationMs
		tokens += r.Tokens
		cost += r.Cost
		d.Scenarios[r.Scenario] = add(d.Scenarios[r.Scenario], r.Passed)
		d.Providers[r.Provider] = add(d.Providers[r.Provider], r.Passed)
		k := [2]string{r.Scenario, r.Provider}
		if cells[k] == nil {
			cells[k] = &Tally{}
		}
		*cells[k] = add(*cells[k], r.Passed)
		for name, ok := range r.Assertions {
			d.Assertions[name] = add(d.Assertions[name], ok)
		}
		if r.Error != "" && len(d.Errors) < maxDetailErrors {
			d.Errors = append(d.Errors, ItemError{ItemID: r.ItemID, Error: r.Error})
		}
	}
	for k, t := range cells {
		d.Cells = append(d.Cells, Cell{Scenario: k[0], Provider: k[1], Tally: *t})
	}
	sort.Slice(d.Cells, func(i, j int) bool {
		if d.Cells[i].Scenario != d.Cells[j].Scenario {
			return d.Cells[i].Scenario < d.Cells[j].Scenario
		}
		return d.Cells[i].Provider < d.Cells[j].Provider
	})
	// The counters are the accumulator the budget is enforced on: prefer them.
	if c.Tokens > tokens {
		tokens = c.Tokens
	}
	if c.Cost > cost {
		cost = c.Cost
	}
	total := passed + failed
	s := map[string]string{
		KeyTotalItems:    strconv.FormatInt(total, 10),
		KeyPassedItems:   strconv.FormatInt(passed, 10),
		KeyFailedItems:   strconv.FormatInt(failed, 10),
		KeyPassRate:      FormatPassRate(passed, total),
		KeyAvgDurationMs: "0",
	}
	if total > 0 {
		s[KeyAvgDurationMs] = strconv.FormatInt(int64(math.Round(durSum/float64(total))), 10)
	}
	if tokens > 0 {
		s[KeyTotalTokens] = strconv.FormatInt(tokens, 10)
	}
	if cost > 0 {
		s[KeyTotalCost] = FormatCost(cost)
	}
	b, _ := json.Marshal(d)
	s[KeyDetails] = string(b)
	return s
}

// FormatPassRate is passed/total as a percentage to one decimal ("100.0");
// "0.0" for no items.
func FormatPassRate(passed, total int64) string {
	if total <= 0 {
		return "0.0"
	}
	return strconv.FormatFloat(float64(passed)*100/float64(total), 'f', 1, 64)
}

// FormatCost is a cost to four decimals ("0.0123").
func FormatCost(cost float64) string {
	return strconv.FormatFloat(cost, 'f', 4, 64)
}
