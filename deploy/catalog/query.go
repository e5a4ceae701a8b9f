package catalog

import (
	"slices"
)

// DescriptionLimit is how many characters of a description search returns.
const DescriptionLimit = 200

// OverviewResult is overview's answer.
type OverviewResult struct {
	// Kinds counts every valid kind's listed (not hidden) entries; a kind
	// with none is 0, never absent.
	Kinds  map[Kind]int   `json:"kinds"`
	Groups []GroupSummary `json:"groups"`
	// Truncated: the workspace holds more than the catalog indexes
	// (MaxEntries entries, MaxGroups groups).
	Truncated bool `json:"truncated"`
}

// GroupSummary is one group in overview.
type GroupSummary struct {
	ID    string    `json:"id"`
	Kind  GroupKind `json:"kind"`
	Name  string    `json:"name"`
	Count int       `json:"count"`
	Ready bool      `json:"ready"`
}

// Overview counts the listed entries per kind and lists the listed groups.
func (ix *Index) Overview() OverviewResult {
	r := OverviewResult{Kinds: make(map[Kind]int, len(Kinds)), Groups: []GroupSummary{}, Truncated: ix.Truncated}
	for _, k := range Kinds {
		r.Kinds[k] = 0
	}
	for i := range ix.Entries {
		if !ix.Entries[i].Hidden {
			r.Kinds[ix.Entries[i].Kind]++
		}
	}
	for _, g := range ix.Groups {
		if !g.Hidden {
			r.Groups = append(r.Groups, GroupSummary{ID: g.ID, Kind: g.Kind, Name: g.Name, Count: g.Count, Ready: g.Ready})
		}
	}
	return r
}

// SearchResult is search's answer.
type SearchResult struct {
	Results []Compact `json:"results"`
	// Total is how many entries match, over every page.
	Total int `json:"total"`
	// NextCursor is set while more results remain.
	NextCursor string `json:"nextCursor,omitempty"`
}

// Compact is one search result.
type Compact struct {
	ID          string `json:"id"`
	Kind        Kind   `json:"kind"`
	Name        string `json:"name"`
	Group       string `json:"group,omitempty"`
	Description string `json:"description"`
	Ready       bool   `json:"ready"`
}

// Search answers one page: the listed entries that pass the filters and,
// with a query, score (rank.go), best first; without a query every such
// entry in id order. A cursor made for other filters is a *BadRequest.
func (ix *Index) Search(p SearchParams) (SearchResult, error) {
	hash := filterHash(p)
	offset := 0
	if p.Cursor != "" {
		o, err := decodeCursor(p.Cursor, hash)
		if err != nil {
			return SearchResult{}, &BadRequest{Msg: err.Error()}
		}
		offset = o
	}
	q := newQuery(p.Query)
	type hit struct {
		i int
		s score
	}
	var hits []hit
	for i := range ix.Entries {
		e := &ix.Entries[i]
		if e.Hidden || (len(p.Kinds) > 0 && !slices.Contains(p.Kinds, e.Kind)) ||
			(p.Group != "" && e.Group != p.Group) || (p.ReadyOnly && !e.Ready) {
			continue
		}
		var s score
		if q.text != "" {
			if s = q.scoreEntry(e); s.zero() {
				continue
			}
		}
		hits = append(hits, hit{i, s})
	}
	if q.text != "" {
		// Entries are in id order already: a stable sort keeps ties by id.
		slices.SortStableFunc(hits, func(a, b hit) int { return a.s.compare(b.s) })
	}
	r := SearchResult{Results: []Compact{}, Total: len(hits)}
	limit := p.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	end := min(offset+limit, len(hits))
	for _, h := range hits[min(offset, len(hits)):end] {
		e := &ix.Entries[h.i]
		r.Results = append(r.Results, Compact{ID: e.ID, Kind: e.Kind, Name: e.Name, Group: e.Group,
			Description: Truncate(e.Description, DescriptionLimit), Ready: e.Ready})
	}
	if end < len(hits) {
		r.NextCursor = encodeCursor(end, hash)
	}
	return r, nil
}

// Truncate cuts s to at most n characters (runes, never splitting one).
func Truncate(s string, n int) string {
	if len(s) <= n { // bytes ≥ runes: short enough already
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// GetResult is get's answer.
type GetResult struct {
	Items   []Item    `json:"items"`
	Missing []Missing `json:"missing"`
}

// Item is one found entry in full.
type Item struct {
	ID          string `json:"id"`
	Kind        Kind   `json:"kind"`
	Name        string `json:"name"`
	Group       string `json:"group,omitempty"`
	Description string `json:"description"`
	Ready       bool   `json:"ready"`
	Detail      any    `json:"detail"`
}

// Missing is an id get could not answer, and why.
type Missing struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// Reasons of Missing besides a malformed id's.
const ReasonNotFound = "not found: no such entry in this workspace's catalog"

// Get answers ids in the order given (a repeated id once). A hidden entry
// is answered: hidden means not listed, never not reachable.
func (ix *Index) Get(ids []string) GetResult {
	r := GetResult{Items: []Item{}, Missing: []Missing{}}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		if _, err := ParseID(id); err != nil {
			r.Missing = append(r.Missing, Missing{ID: id, Reason: err.Error()})
			continue
		}
		e, ok := ix.Lookup(id)
		if !ok {
			r.Missing = append(r.Missing, Missing{ID: id, Reason: ReasonNotFound})
			continue
		}
		r.Items = append(r.Items, Item{ID: e.ID, Kind: e.Kind, Name: e.Name, Group: e.Group, Description: e.Description,
			Ready: e.Ready, Detail: e.Detail})
	}
	return r
}
