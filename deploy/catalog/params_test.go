package catalog

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// TestParseSearch: one accepted and one refused case per parameter rule;
// every refusal is a *BadRequest naming its parameter.
func TestParseSearch(t *testing.T) {
	ok := map[string]SearchParams{
		"":                           {Limit: DefaultLimit},
		"query=+invoice+":            {Query: "invoice", Limit: DefaultLimit},
		"kinds=tool,skill,tool":      {Kinds: []Kind{KindSkill, KindTool}, Limit: DefaultLimit},
		"kinds=connection":           {Kinds: []Kind{KindConnection}, Limit: DefaultLimit},
		"group=toolRegistry:billing": {Group: "toolRegistry:billing", Limit: DefaultLimit},
		"group=skillSource:house":    {Group: "skillSource:house", Limit: DefaultLimit},
		"readyOnly=true":             {ReadyOnly: true, Limit: DefaultLimit},
		"readyOnly=false":            {Limit: DefaultLimit},
		"limit=50":                   {Limit: 50},
		"limit=1&cursor=abc":         {Limit: 1, Cursor: "abc"},
		"query=" + strings.Repeat("é", MaxQueryLength): {Query: strings.Repeat("é", MaxQueryLength), Limit: DefaultLimit},
	}
	for q, want := range ok {
		v, _ := url.ParseQuery(q)
		got, err := ParseSearch(v)
		if err != nil {
			t.Errorf("%q refused: %v", q, err)
			continue
		}
		if got.Query != want.Query || kindsKey(got.Kinds) != kindsKey(want.Kinds) || got.Group != want.Group ||
			got.ReadyOnly != want.ReadyOnly || got.Limit != want.Limit || got.Cursor != want.Cursor {
			t.Errorf("%q = %+v, want %+v", q, got, want)
		}
	}
	bad := map[string]string{
		"kinds=tool,widget":           `kinds: unknown kind "widget"; valid kinds: agent, connection, memorySchema, promptPack, provider, sandboxClass, skill, skillSource, tool`,
		"kinds=Tool":                  `kinds: unknown kind "Tool"`,
		"group=billing":               `group: "billing" is not a group id`,
		"group=agent:support":         `group: "agent:support" is not a group id`,
		"group=toolRegistry:Bad_Name": `group: "toolRegistry:Bad_Name": the name is not an object name`,
		"readyOnly=yes":               `readyOnly: "yes"; want the string "true" or "false"`,
		"readyOnly=True":              `readyOnly: "True"`,
		"limit=0":                     `limit: "0"; want a whole number from 1 to 50`,
		"limit=51":                    `limit: "51"`,
		"limit=ten":                   `limit: "ten"`,
		"kind=tool":                   "kind: unknown parameter; this route takes: query, kinds, group, readyOnly, limit, cursor",
		"query=a&query=b":             "query: given 2 times",
		"query=" + strings.Repeat("x", MaxQueryLength+1): "query: 257 characters; at most 256",
	}
	for q, want := range bad {
		v, _ := url.ParseQuery(q)
		_, err := ParseSearch(v)
		var br *BadRequest
		if !errors.As(err, &br) || !strings.HasPrefix(br.Msg, want) {
			t.Errorf("%q: err = %v, want a BadRequest starting %q", q, err, want)
		}
	}
}

func TestParseGet(t *testing.T) {
	twenty := strings.TrimSuffix(strings.Repeat("tool:r/t,", MaxGetIDs), ",")
	for _, q := range []string{"ids=tool:r/t", "ids=" + twenty, "ids=bogus,+agent:a+"} {
		v, _ := url.ParseQuery(q)
		if _, err := ParseGet(v); err != nil {
			t.Errorf("%q refused: %v", q, err)
		}
	}
	bad := map[string]string{
		"":                       "ids: required",
		"ids=+,+":                "ids: required",
		"ids=" + twenty + ",x:y": "ids: 21 ids; at most 20 per call",
		"id=tool:r/t":            "id: unknown parameter; this route takes: ids",
	}
	for q, want := range bad {
		v, _ := url.ParseQuery(q)
		_, err := ParseGet(v)
		var br *BadRequest
		if !errors.As(err, &br) || !strings.HasPrefix(br.Msg, want) {
			t.Errorf("%q: err = %v, want a BadRequest starting %q", q, err, want)
		}
	}
	v, _ := url.ParseQuery("limit=3")
	if err := ParseOverview(v); err == nil || !strings.HasPrefix(err.Error(), "limit: unknown parameter") {
		t.Errorf("overview with a parameter: %v", err)
	}
	if err := ParseOverview(url.Values{}); err != nil {
		t.Errorf("overview without parameters: %v", err)
	}
}

func TestParseID(t *testing.T) {
	for _, id := range []string{"tool:billing/get_invoice", "skill:house/pdf", "provider:claude", "agent:support",
		"skillSource:house", "promptPack:p-1", "connection:c", "sandboxClass:s", "memorySchema:m"} {
		if _, err := ParseID(id); err != nil {
			t.Errorf("%s refused: %v", id, err)
		}
	}
	for _, id := range []string{"", "tool", "tool:", "tool:billing", "tool:/x", "tool:billing/", "skill:house",
		"provider:a/b", "toolRegistry:billing", "Agent:x"} {
		if _, err := ParseID(id); err == nil || !strings.HasPrefix(err.Error(), "malformed id") {
			t.Errorf("%q: err = %v, want malformed", id, err)
		}
	}
}
