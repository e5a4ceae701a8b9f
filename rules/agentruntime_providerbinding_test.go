package rules

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules/schema"
)

func TestAgentRuntimeProviderRoleMismatch(t *testing.T) {
	for _, tc := range []struct {
		binding, provider string
		want, got         string
		mismatch          bool
	}{
		{"", "", "llm", "llm", false},
		{"llm", "", "llm", "llm", false},
		{"", "llm", "llm", "llm", false},
		{"embedding", "embedding", "embedding", "embedding", false},
		{"", "embedding", "llm", "embedding", true},
		{"embedding", "", "embedding", "llm", true},
		{"tts", "stt", "tts", "stt", true},
	} {
		want, got, mismatch := AgentRuntimeProviderRoleMismatch(tc.binding, tc.provider)
		if want != tc.want || got != tc.got || mismatch != tc.mismatch {
			t.Errorf("AgentRuntimeProviderRoleMismatch(%q, %q) = %q, %q, %v; want %q, %q, %v",
				tc.binding, tc.provider, want, got, mismatch, tc.want, tc.got, tc.mismatch)
		}
	}
	if got := AgentRuntimeProviderRole(""); got != string(v1alpha1.ProviderRoleLLM) {
		t.Errorf("AgentRuntimeProviderRole(\"\") = %q, want llm", got)
	}
}

func TestAgentRuntimeProviderBindings(t *testing.T) {
	sv, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	b := func(name, ref, role string) v1alpha1.AgentRuntimeProvider {
		return v1alpha1.AgentRuntimeProvider{Name: name, ProviderRef: v1alpha1.NamespacedObjectReference{Name: ref},
			Role: v1alpha1.AgentRuntimeProviderRole(role)}
	}
	type want struct {
		index         int
		ruleID, field string
	}
	const (
		namePattern = "agentruntime/schema:spec.providers[].name:pattern"
		nameLength  = "agentruntime/schema:spec.providers[].name:maxLength"
		refLength   = "agentruntime/schema:spec.providers[].providerRef.name:minLength"
		roleEnum    = "agentruntime/schema:spec.providers[].role:enum"
	)
	many := make([]v1alpha1.AgentRuntimeProvider, 33)
	for i := range many {
		many[i] = b("p"+strconv.Itoa(i), "r", "")
	}
	for _, tc := range []struct {
		name    string
		entries []v1alpha1.AgentRuntimeProvider
		want    []want
	}{
		{"accepted: well-formed, roles defaulted and explicit", []v1alpha1.AgentRuntimeProvider{
			b("default", "claude", ""), b("embed", "voyage", "embedding"), b("judge-2", "gpt", "llm")}, nil},
		{"accepted: none", nil, nil},
		{"rejected: name pattern", []v1alpha1.AgentRuntimeProvider{b("Default", "claude", "")},
			[]want{{0, namePattern, "spec.providers[0].name"}}},
		{"rejected: empty name", []v1alpha1.AgentRuntimeProvider{b("ok", "a", ""), b("", "claude", "")},
			[]want{{1, namePattern, "spec.providers[1].name"}}},
		{"rejected: name too long", []v1alpha1.AgentRuntimeProvider{b("a123456789a123456789a123456789a123456789a123456789a123456789abcd", "c", "")},
			[]want{{0, nameLength, "spec.providers[0].name"}}},
		{"rejected: two bad names, the second judged without the first", []v1alpha1.AgentRuntimeProvider{b("Bad", "a", ""), b("Worse", "b", "")},
			[]want{{0, namePattern, "spec.providers[0].name"}, {1, namePattern, "spec.providers[1].name"}}},
		{"rejected: empty ref", []v1alpha1.AgentRuntimeProvider{b("default", "", "")},
			[]want{{0, refLength, "spec.providers[0].providerRef.name"}}},
		{"rejected: unsupported role", []v1alpha1.AgentRuntimeProvider{b("default", "c", "chat")},
			[]want{{0, roleEnum, "spec.providers[0].role"}}},
		{"rejected: duplicate name on the later entry", []v1alpha1.AgentRuntimeProvider{
			b("default", "a", ""), b("judge", "b", ""), b("default", "c", "")},
			[]want{{2, AgentRuntimeProviderNamesUniqueID, "spec.providers[2].name"}}},
		{"rejected: a duplicate behind an entry with a bad role", []v1alpha1.AgentRuntimeProvider{
			b("default", "a", "chat"), b("default", "c", "")},
			[]want{{0, roleEnum, "spec.providers[0].role"}, {1, AgentRuntimeProviderNamesUniqueID, "spec.providers[1].name"}}},
		{"rejected: the 33rd entry", many, []want{{32, "agentruntime/schema:spec.providers:maxItems", "spec.providers[32]"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AgentRuntimeProviderBindings(context.Background(), sv, tc.entries)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.entries) {
				t.Fatalf("got %d entries, want %d", len(got), len(tc.entries))
			}
			var flat []want
			for i, fs := range got {
				for _, f := range fs {
					flat = append(flat, want{i, f.RuleID, f.Field})
					if f.Message == "" {
						t.Errorf("finding %s has no message", f)
					}
					// A message naming a path names the entry's own.
					if strings.Contains(f.Message, "spec.providers[") && !strings.Contains(f.Message, "spec.providers["+strconv.Itoa(i)+"]") {
						t.Errorf("finding %s: the message names another entry", f)
					}
				}
			}
			if !slices.Equal(flat, tc.want) {
				t.Errorf("findings = %v, want %v (%v)", flat, tc.want, got)
			}
			if testing.Verbose() {
				t.Log(got)
			}
		})
	}
}
