package intent

import (
	"regexp"
	"strings"
	"testing"
)

var labelValue = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func TestPseudonym(t *testing.T) {
	key := []byte("k1")
	tests := []struct {
		name    string
		subject string
		key     []byte
		want    string // "" for none; "*" for any well-formed pseudonym
	}{
		{"no subject has none", "", key, ""},
		{"no subject without a key has none", "", nil, ""},
		{"a subject keyed", "ann@example.com", key, "*"},
		{"a subject unkeyed", "ann@example.com", nil, "*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Pseudonym(tt.subject, tt.key)
			if tt.want == "" {
				if got != "" {
					t.Fatalf("Pseudonym(%q) = %q, want none", tt.subject, got)
				}
				return
			}
			if len(got) != 1+PseudonymHexLen || !labelValue.MatchString(got) || got[0] != 'u' {
				t.Fatalf("Pseudonym(%q) = %q: not u+%d hex digits", tt.subject, got, PseudonymHexLen)
			}
			if strings.Contains(got, "ann") || strings.Contains(got, "example") {
				t.Fatalf("Pseudonym(%q) = %q reveals the subject", tt.subject, got)
			}
			if again := Pseudonym(tt.subject, tt.key); again != got {
				t.Fatalf("not stable: %q then %q", got, again)
			}
		})
	}
	// Distinct subjects and distinct keys give distinct pseudonyms; the
	// keyed and unkeyed forms differ.
	seen := map[string]string{}
	for _, c := range []struct {
		sub string
		key []byte
	}{{"ann", key}, {"bob", key}, {"ann", []byte("k2")}, {"ann", nil}, {"bob", nil}} {
		p := Pseudonym(c.sub, c.key)
		id := c.sub + "/" + string(c.key)
		if prev, ok := seen[p]; ok {
			t.Fatalf("%s and %s share pseudonym %s", prev, id, p)
		}
		seen[p] = id
	}
	// A pinned value: the pseudonym must not change between releases (a
	// changed function orphans every dev agent).
	if got := Pseudonym("ann@example.com", nil); got != pinnedUnkeyed {
		t.Fatalf("Pseudonym(ann@example.com, nil) = %q, want the pinned %q", got, pinnedUnkeyed)
	}
	if n := DevName("my-project", Pseudonym("ann@example.com", key)); n != "dev-my-project-"+Pseudonym("ann@example.com", key) {
		t.Fatalf("a short id and a pseudonym should make the plain dev name, got %q", n)
	}
}

const pinnedUnkeyed = "uf3af9e4142bb"
