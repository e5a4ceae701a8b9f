package catalog

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func resultIDs(r SearchResult) []string {
	out := make([]string, len(r.Results))
	for i, c := range r.Results {
		out[i] = c.ID
	}
	return out
}

func search(t *testing.T, ix *Index, p SearchParams) SearchResult {
	t.Helper()
	if p.Limit == 0 {
		p.Limit = DefaultLimit
	}
	r, err := ix.Search(p)
	if err != nil {
		t.Fatalf("search %+v: %v", p, err)
	}
	return r
}

// TestSearchRanking: exact name > name prefix > words in the name > words
// in the description; ties by id; no match, no result; hidden left out.
func TestSearchRanking(t *testing.T) {
	ix := Build(fixture())
	got := resultIDs(search(t, ix, SearchParams{Query: "invoice"}))
	want := []string{
		"tool:billing/invoice",     // exact name
		"tool:billing/get_invoice", // a word of the name
		"agent:support",            // the description (ties by id: agent < tool)
		"tool:billing/refund",      // the description
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("invoice ranks %v, want %v (tool:internal/wipe is hidden)", got, want)
	}
	// "GET_inv" is a prefix of get_invoice's name (any case); its words
	// "get" and "inv" also prefix words elsewhere, which rank below.
	if got := resultIDs(search(t, ix, SearchParams{Query: "GET_inv"})); len(got) == 0 || got[0] != "tool:billing/get_invoice" {
		t.Errorf("a name prefix, any case: %v", got)
	}
	if got := search(t, ix, SearchParams{Query: "zebra"}); len(got.Results) != 0 || got.Total != 0 || got.NextCursor != "" {
		t.Errorf("no match: %+v", got)
	}
	// Two description words outrank one, below any name word.
	cmp := []struct{ a, b score }{
		{score{exact: true}, score{prefix: true, nameW: 5, descW: 5}},
		{score{prefix: true}, score{nameW: 9}},
		{score{nameW: 1}, score{descW: 9}},
		{score{descW: 2}, score{descW: 1}},
	}
	for _, c := range cmp {
		if c.a.compare(c.b) >= 0 || c.b.compare(c.a) <= 0 {
			t.Errorf("%+v should rank above %+v", c.a, c.b)
		}
	}
}

// TestSearchFilters: kinds, group, readyOnly; no query browses in id order.
func TestSearchFilters(t *testing.T) {
	ix := Build(fixture())
	cases := []struct {
		p    SearchParams
		want string
	}{
		{SearchParams{}, "agent:support promptPack:support-1.0.0 provider:claude skillSource:house-skills tool:billing/get_invoice tool:billing/invoice tool:billing/refund"},
		{SearchParams{Kinds: []Kind{KindProvider, KindAgent}}, "agent:support provider:claude"},
		{SearchParams{Kinds: []Kind{KindConnection}}, ""},
		{SearchParams{Group: "toolRegistry:billing", ReadyOnly: true}, "tool:billing/get_invoice tool:billing/invoice"},
		{SearchParams{Group: "toolRegistry:internal"}, ""},
		{SearchParams{Group: "skillSource:house-skills"}, ""},
	}
	for _, c := range cases {
		if got := strings.Join(resultIDs(search(t, ix, c.p)), " "); got != c.want {
			t.Errorf("%+v = %q, want %q", c.p, got, c.want)
		}
	}
}

// TestSearchPaging: cursors walk every result exactly once to the end; a
// cursor with another query or filter, or a malformed one, is a 400.
func TestSearchPaging(t *testing.T) {
	ix := Build(manyTools(123))
	p := SearchParams{Query: "invoice", Limit: 7}
	seen := map[string]bool{}
	pages := 0
	for {
		r := search(t, ix, p)
		pages++
		if r.Total != 31 {
			t.Fatalf("total = %d, want 31", r.Total)
		}
		for _, id := range resultIDs(r) {
			if seen[id] {
				t.Fatalf("%s on two pages", id)
			}
			seen[id] = true
		}
		if r.NextCursor == "" {
			break
		}
		p.Cursor = r.NextCursor
		if pages == 3 {
			p.Limit = 50 // a cursor may change the page size
		}
	}
	if len(seen) != 31 || pages != 4 {
		t.Errorf("%d results over %d pages, want 31 over 4", len(seen), pages)
	}

	first := search(t, ix, SearchParams{Query: "invoice", Limit: 5})
	bad := map[string]SearchParams{
		"cursor: it belongs to another search":    {Query: "order", Limit: 5, Cursor: first.NextCursor},
		"cursor: it belongs to another search ":   {Query: "invoice", ReadyOnly: true, Limit: 5, Cursor: first.NextCursor},
		"cursor: it belongs to another search  ":  {Query: "invoice", Kinds: []Kind{KindTool}, Limit: 5, Cursor: first.NextCursor},
		"cursor: it belongs to another search   ": {Query: "invoice", Group: "toolRegistry:reg-000", Limit: 5, Cursor: first.NextCursor},
		"cursor: malformed":                       {Query: "invoice", Limit: 5, Cursor: "not-a-cursor!"},
		"cursor: malformed ":                      {Query: "invoice", Limit: 5, Cursor: encodeCursor(-3, filterHash(SearchParams{Query: "invoice"}))},
	}
	for want, p := range bad {
		_, err := ix.Search(p)
		var br *BadRequest
		if !errors.As(err, &br) || !strings.HasPrefix(br.Msg, strings.TrimSpace(want)) {
			t.Errorf("%+v: err = %v, want %q", p, err, want)
		}
	}
	// The query is compared as searched: spacing and case do not matter.
	if _, err := ix.Search(SearchParams{Query: "  INVOICE ", Limit: 5, Cursor: first.NextCursor}); err != nil {
		t.Errorf("the same query respelt: %v", err)
	}
}

// TestSearchTruncation: 200 characters (not bytes) of a description; get
// returns it whole.
func TestSearchTruncation(t *testing.T) {
	objs := fixture()
	long := strings.Repeat("ü", 150) + strings.Repeat("b", 100)
	objs.ToolRegistries[0].Status.DiscoveredTools[0].Description = long
	ix := Build(objs)
	r := search(t, ix, SearchParams{Kinds: []Kind{KindTool}, Limit: 1})
	d := r.Results[0].Description
	if utf8.RuneCountInString(d) != DescriptionLimit || !utf8.ValidString(d) || d != long[:len(strings.Repeat("ü", 150))+50] {
		t.Errorf("truncated to %d characters (%q)", utf8.RuneCountInString(d), d)
	}
	if g := ix.Get([]string{r.Results[0].ID}); g.Items[0].Description != long {
		t.Error("get returns the whole description")
	}
	for _, s := range []string{"", "short", strings.Repeat("x", 200)} {
		if Truncate(s, DescriptionLimit) != s {
			t.Errorf("%q truncated", s)
		}
	}
}
