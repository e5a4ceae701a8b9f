package catalog

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
)

// A cursor is opaque to the caller: base64url of {"o": offset, "h": hash},
// the hash being of the query and filters (query, kinds, group, readyOnly —
// not limit, which may change between pages). A cursor presented with a
// different query or filter is refused (400) rather than silently paging
// another result set. Pages are by offset into the ranked results: an
// object added or removed between two calls shifts later pages by one,
// which is acceptable for browsing and keeps the cursor stateless (any
// replica answers it).

type cursorData struct {
	Offset int    `json:"o"`
	Hash   string `json:"h"`
}

// filterHash is a short hash of the canonical search (kinds sorted and
// de-duplicated, readyOnly absent = false).
func filterHash(p SearchParams) string {
	sum := sha256.Sum256([]byte(strings.Join([]string{
		strings.ToLower(strings.TrimSpace(p.Query)), kindsKey(p.Kinds), p.Group, boolString(p.ReadyOnly),
	}, "\x00")))
	return hex.EncodeToString(sum[:8])
}

func kindsKey(ks []Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ",")
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func encodeCursor(offset int, hash string) string {
	data, _ := json.Marshal(cursorData{Offset: offset, Hash: hash}) // two plain fields always marshal
	return base64.RawURLEncoding.EncodeToString(data)
}

// errCursorMalformed and errCursorReused are the cursor's 400s.
var (
	errCursorMalformed = errors.New("cursor: malformed; pass a nextCursor exactly as a search returned it")
	errCursorReused    = errors.New("cursor: it belongs to another search; a cursor must be used with the same query, kinds, group and readyOnly as the search that returned it")
)

// decodeCursor returns the offset of a cursor made for hash.
func decodeCursor(c, hash string) (int, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, errCursorMalformed
	}
	var d cursorData
	if err := json.Unmarshal(raw, &d); err != nil || d.Offset <= 0 || d.Hash == "" {
		return 0, errCursorMalformed
	}
	if d.Hash != hash {
		return 0, errCursorReused
	}
	return d.Offset, nil
}
