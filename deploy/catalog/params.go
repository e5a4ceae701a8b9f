package catalog

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of the request parameters.
const (
	DefaultLimit = 10
	MaxLimit     = 50
	// MaxGetIDs bounds get's ids.
	MaxGetIDs = 20
	// MaxQueryLength bounds search's query, in characters.
	MaxQueryLength = 256
)

// BadRequest is a 400: the message names the parameter and what is wrong.
type BadRequest struct{ Msg string }

func (e *BadRequest) Error() string { return e.Msg }

func badRequest(format string, args ...any) *BadRequest {
	return &BadRequest{Msg: fmt.Sprintf(format, args...)}
}

// SearchParams are search's arguments, checked and canonical.
type SearchParams struct {
	Query string
	// Kinds is sorted and de-duplicated; empty means every kind.
	Kinds     []Kind
	Group     string
	ReadyOnly bool
	Limit     int
	Cursor    string
}

// params reads a request's parameters: each at most once, none but the
// route's (a misspelt `kind=` is refused rather than silently ignored).
func params(v url.Values, allowed ...string) (map[string]string, error) {
	out := map[string]string{}
	for k, vs := range v {
		if !slices.Contains(allowed, k) {
			return nil, badRequest("%s: unknown parameter; this route takes: %s", k, strings.Join(allowed, ", "))
		}
		if len(vs) > 1 {
			return nil, badRequest("%s: given %d times; give it once (a list is comma-separated)", k, len(vs))
		}
		out[k] = vs[0]
	}
	return out, nil
}

// ParseOverview checks overview's parameters: it takes none.
func ParseOverview(v url.Values) error {
	_, err := params(v)
	return err
}

// ParseSearch checks search's parameters.
func ParseSearch(v url.Values) (SearchParams, error) {
	m, err := params(v, "query", "kinds", "group", "readyOnly", "limit", "cursor")
	if err != nil {
		return SearchParams{}, err
	}
	p := SearchParams{Query: strings.TrimSpace(m["query"]), Limit: DefaultLimit, Cursor: m["cursor"]}
	if n := utf8.RuneCountInString(p.Query); n > MaxQueryLength {
		return p, badRequest("query: %d characters; at most %d", n, MaxQueryLength)
	}
	if s, ok := m["kinds"]; ok {
		for _, k := range strings.Split(s, ",") {
			k = strings.TrimSpace(k)
			if k == "" {
				continue
			}
			if !validKind(Kind(k)) {
				return p, badRequest("kinds: unknown kind %q; valid kinds: %s", k, kindList())
			}
			p.Kinds = append(p.Kinds, Kind(k))
		}
		slices.Sort(p.Kinds)
		p.Kinds = slices.Compact(p.Kinds)
	}
	if g, ok := m["group"]; ok && g != "" {
		if _, _, err := ParseGroup(g); err != nil {
			return p, &BadRequest{Msg: err.Error()}
		}
		p.Group = g
	}
	switch r, ok := m["readyOnly"]; {
	case !ok || r == "false":
	case r == "true":
		p.ReadyOnly = true
	default:
		return p, badRequest(`readyOnly: %q; want the string "true" or "false"`, r)
	}
	if l, ok := m["limit"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(l))
		if err != nil || n < 1 || n > MaxLimit {
			return p, badRequest("limit: %q; want a whole number from 1 to %d (default %d)", l, MaxLimit, DefaultLimit)
		}
		p.Limit = n
	}
	return p, nil
}

// ParseGet checks get's parameters: ids, required, comma-separated, at
// most MaxGetIDs (counted before de-duplication, as sent). Each id's shape is
// not checked here: a malformed id is reported in `missing`.
func ParseGet(v url.Values) ([]string, error) {
	m, err := params(v, "ids")
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, id := range strings.Split(m["ids"], ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	switch {
	case len(ids) == 0:
		return nil, badRequest("ids: required; give the ids to look up, comma-separated, exactly as search returned them")
	case len(ids) > MaxGetIDs:
		return nil, badRequest("ids: %d ids; at most %d per call", len(ids), MaxGetIDs)
	}
	return ids, nil
}
