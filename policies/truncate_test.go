package policies

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncateCutsOnACharacterBoundary(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		n    int
		want string
	}{
		{"short is kept", "héllo", 10, "héllo"},
		{"ascii cut at n", "abcdef", 3, "abc…"},
		// "é" is two bytes at 1-2: a cut at 2 would split it.
		{"multibyte character is not split", "héllo", 2, "h…"},
		{"cut after the character", "héllo", 3, "hé…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := truncate(tc.in, tc.n)
			if got != tc.want || !utf8.ValidString(got) {
				t.Fatalf("truncate(%q, %d) = %q (valid %v), want %q", tc.in, tc.n, got, utf8.ValidString(got), tc.want)
			}
		})
	}
	long := strings.Repeat("日", maxRegoMessage)
	if got := truncate(long, maxRegoMessage); !utf8.ValidString(got) || len(got) > maxRegoMessage+len("…") {
		t.Fatalf("a rego message of multibyte characters truncates to %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
}
