package main

import (
	"slices"
	"strings"
	"testing"
)

func TestParseWatchNamespaces(t *testing.T) {
	cases := []struct {
		name, value string
		want        []string
		wantErr     string
	}{
		{name: "empty watches every namespace", value: " ", want: nil},
		{name: "a list gains the operator's own namespace", value: "team-b, team-a,team-b", want: []string{"omnia-system", "team-a", "team-b"}},
		{name: "a name that is no namespace is refused", value: "team-a,Team_B", wantErr: `"Team_B" is not a namespace name`},
		{name: "an empty entry is refused", value: "team-a,,team-b", wantErr: `"" is not a namespace name`},
		{name: "more than the bound is refused", value: longList(70), wantErr: "at most 64"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseWatchNamespaces(c.value, "omnia-system")
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			if len(c.want) == 0 && defaultNamespaces(got) != nil {
				t.Fatalf("an empty list must leave the cache cluster-wide")
			}
			if len(c.want) > 0 && len(defaultNamespaces(got)) != len(c.want) {
				t.Fatalf("cache namespaces %v, want %v", defaultNamespaces(got), c.want)
			}
		})
	}
}

func longList(n int) string {
	var parts []string
	for i := range n {
		parts = append(parts, "ns-"+strings.Repeat("x", i%5)+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	return strings.Join(parts, ",")
}
