package catalog

import (
	"strings"
	"unicode"
)

// The ranking: a small scoring function over an entry's name and
// description, compared field by field (not summed), so each tier always
// outranks the ones below it whatever the counts:
//
//  1. the name equals the query (case-insensitive);
//  2. the name starts with the query;
//  3. how many of the query's words match a word of the name;
//  4. how many of the query's words match a word of the description.
//
// Words are runs of letters and digits, lower-cased ("get_invoice" is
// "get", "invoice"); a query word matches a word it is a prefix of, so
// "inv" finds "invoice". An entry that scores nothing is not a result. Ties
// go to the smaller id, so a page is deterministic. Nothing else (a skill's
// allowedTools, a tool's schema) is scored.

// score is an entry's rank for a query; the zero score is no match.
type score struct {
	exact, prefix bool
	nameW, descW  int
}

// zero reports whether s is no match.
func (s score) zero() bool { return !s.exact && !s.prefix && s.nameW == 0 && s.descW == 0 }

// compare orders scores, best first (negative when a ranks above b).
func (a score) compare(b score) int {
	switch {
	case a.exact != b.exact:
		return boolFirst(a.exact)
	case a.prefix != b.prefix:
		return boolFirst(a.prefix)
	case a.nameW != b.nameW:
		return b.nameW - a.nameW
	default:
		return b.descW - a.descW
	}
}

func boolFirst(a bool) int {
	if a {
		return -1
	}
	return 1
}

// query is a search query made ready for scoring.
type query struct {
	text  string
	words []string
}

func newQuery(q string) query {
	q = strings.ToLower(strings.TrimSpace(q))
	return query{text: q, words: words(q)}
}

// words splits s into lower-cased runs of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// scoreEntry scores one entry's name and description.
func (q query) scoreEntry(e *Entry) score {
	s := score{exact: e.lowerName == q.text, prefix: strings.HasPrefix(e.lowerName, q.text)}
	for _, w := range q.words {
		if anyPrefixed(e.nameWords, w) {
			s.nameW++
		}
		if anyPrefixed(e.descWords, w) {
			s.descW++
		}
	}
	return s
}

// anyPrefixed reports whether some word starts with w.
func anyPrefixed(ws []string, w string) bool {
	for _, x := range ws {
		if strings.HasPrefix(x, w) {
			return true
		}
	}
	return false
}
