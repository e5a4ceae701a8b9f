package queue

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"
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
	// KeyResultsUnread counts the results past the controller's cap, left
	// out of the summary (docs/arena-queue.md § Reading the results); set
	// only when above zero.
	KeyResultsUnread = "resultsUnread"
)

// Bounds on the summary's details, which go into the run's status: the
// names in them come from the workers' results (the tenant's), so a run with
// many distinct scenario, provider or assertion names gets a details that
// stops growing, and says so (truncated).
const (
	// maxDetailErrors bounds details.errors.
	maxDetailErrors = 20
	// maxDetailErrorBytes bounds the text of one details.errors entry.
	maxDetailErrorBytes = 512
	// MaxDetailKeys bounds the entries of each breakdown (scenarios,
	// providers, cells, assertions).
	MaxDetailKeys = 1000
	// MaxDetailNameBytes bounds one name in a breakdown; a longer name is
	// cut at a character boundary.
	MaxDetailNameBytes = 256
	// MaxDetailNamesBytes bounds the names of every breakdown together.
	MaxDetailNamesBytes = 256 << 10
)

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
	// Truncated: a breakdown reached its bound (MaxDetailKeys entries, or
	// MaxDetailNamesBytes of names together) and results with further names
	// are counted in the totals but not in it.
	Truncated bool `json:"truncated,omitempty"`
}

// Summarize aggregates results (and the queue's counters, for the cost and
// tokens the results may not all carry) into the run's status.result.summary:
// every value a string, passRate to one decimal, totalCost to four, and
// totalTokens / totalCost only when above zero.
func Summarize(results []Result, c Counters) map[string]string {
	s := NewSummarizer()
	for _, r := range results {
		s.Add(r)
	}
	return s.Summary(c)
}

// Summarizer is Summarize one result at a time, so the controller never
// holds every result of a run: what it keeps is bounded by the details'
// bounds, not by the number of results.
type Summarizer struct {
	passed, failed int64
	durSum         float64
	tokens         int64
	cost           float64
	d              Details
	cells          map[[2]string]*Tally
	namesBytes     int
}

// NewSummarizer returns an empty Summarizer.
func NewSummarizer() *Summarizer {
	return &Summarizer{
		d: Details{
			Scenarios:  map[string]Tally{},
			Providers:  map[string]Tally{},
			Assertions: map[string]Tally{},
			Cells:      []Cell{},
			Errors:     []ItemError{},
		},
		cells: map[[2]string]*Tally{},
	}
}

// Add counts one result. A result with no scenario (or no provider) counts
// in the totals and not in that breakdown: an unreadable entry
// (EachResult) is one.
func (s *Summarizer) Add(r Result) {
	if r.Passed {
		s.passed++
	} else {
		s.failed++
	}
	s.durSum += r.DurationMs
	s.tokens += r.Tokens
	s.cost += r.Cost
	scenario, provider := detailName(r.Scenario), detailName(r.Provider)
	if scenario != "" {
		s.tally(s.d.Scenarios, scenario, r.Passed)
	}
	if provider != "" {
		s.tally(s.d.Providers, provider, r.Passed)
	}
	if scenario != "" && provider != "" {
		k := [2]string{scenario, provider}
		t := s.cells[k]
		if t == nil && s.room(len(s.cells), len(scenario)+len(provider)) {
			t = &Tally{}
			s.cells[k] = t
		}
		if t != nil {
			*t = addTally(*t, r.Passed)
		}
	}
	for name, ok := range r.Assertions {
		if name = detailName(name); name != "" {
			s.tally(s.d.Assertions, name, ok)
		}
	}
	if r.Error != "" && len(s.d.Errors) < maxDetailErrors {
		s.d.Errors = append(s.d.Errors, ItemError{ItemID: detailName(r.ItemID), Error: cut(r.Error, maxDetailErrorBytes)})
	}
}

// tally counts ok under name in m, unless name is new and the bounds are reached.
func (s *Summarizer) tally(m map[string]Tally, name string, ok bool) {
	t, seen := m[name]
	if !seen && !s.room(len(m), len(name)) {
		return
	}
	m[name] = addTally(t, ok)
}

// room reports whether a breakdown of n entries takes a new name of
// nameBytes, and counts it when it does.
func (s *Summarizer) room(n, nameBytes int) bool {
	if n >= MaxDetailKeys || s.namesBytes+nameBytes > MaxDetailNamesBytes {
		s.d.Truncated = true
		return false
	}
	s.namesBytes += nameBytes
	return true
}

func addTally(t Tally, ok bool) Tally {
	if ok {
		t.Passed++
	} else {
		t.Failed++
	}
	return t
}

// Summary is the summary of the results added so far.
func (s *Summarizer) Summary(c Counters) map[string]string {
	d := s.d
	d.Cells = make([]Cell, 0, len(s.cells))
	for k, t := range s.cells {
		d.Cells = append(d.Cells, Cell{Scenario: k[0], Provider: k[1], Tally: *t})
	}
	sort.Slice(d.Cells, func(i, j int) bool {
		if d.Cells[i].Scenario != d.Cells[j].Scenario {
			return d.Cells[i].Scenario < d.Cells[j].Scenario
		}
		return d.Cells[i].Provider < d.Cells[j].Provider
	})
	tokens, cost := s.tokens, s.cost
	// The counters are the accumulator the budget is enforced on: prefer them.
	if c.Tokens > tokens {
		tokens = c.Tokens
	}
	if c.Cost > cost {
		cost = c.Cost
	}
	total := s.passed + s.failed
	out := map[string]string{
		KeyTotalItems:    strconv.FormatInt(total, 10),
		KeyPassedItems:   strconv.FormatInt(s.passed, 10),
		KeyFailedItems:   strconv.FormatInt(s.failed, 10),
		KeyPassRate:      FormatPassRate(s.passed, total),
		KeyAvgDurationMs: "0",
	}
	if total > 0 {
		out[KeyAvgDurationMs] = strconv.FormatInt(int64(math.Round(s.durSum/float64(total))), 10)
	}
	if tokens > 0 {
		out[KeyTotalTokens] = strconv.FormatInt(tokens, 10)
	}
	if cost > 0 {
		out[KeyTotalCost] = FormatCost(cost)
	}
	b, _ := json.Marshal(d)
	out[KeyDetails] = string(b)
	return out
}

// detailName is name cut to MaxDetailNameBytes.
func detailName(name string) string { return cut(name, MaxDetailNameBytes) }

// cut is s shortened to at most n bytes, at a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
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
