package rules

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules/schema"
)

// AgentRuntimeProviderRole returns a provider role with the schema default
// (llm) applied: the role of a spec.providers entry (AgentRuntime) and of a
// Provider's spec.role both default to llm.
func AgentRuntimeProviderRole(role string) string {
	if role == "" {
		return string(v1alpha1.ProviderRoleLLM)
	}
	return role
}

// AgentRuntimeProviderRoleMismatch is the agentruntime/provider-role decision
// (reason RoleMismatch): a binding requiring bindingRole is refused by a
// Provider whose spec.role is providerRole when the two differ, each with the
// default llm applied. want and got are the defaulted roles, for messages.
func AgentRuntimeProviderRoleMismatch(bindingRole, providerRole string) (want, got string, mismatch bool) {
	want, got = AgentRuntimeProviderRole(bindingRole), AgentRuntimeProviderRole(providerRole)
	return want, got, want != got
}

// The rule IDs a caller of AgentRuntimeProviderBindings and
// AgentRuntimeProviderRoleMismatch names in its own answers.
const (
	// AgentRuntimeProviderNamesUniqueID is the CRD's list rule on
	// spec.providers: every name once.
	AgentRuntimeProviderNamesUniqueID = "agentruntime/provider-names-unique"
	// AgentRuntimeProviderRoleID is the rule whose decision
	// AgentRuntimeProviderRoleMismatch is (reason RoleMismatch).
	AgentRuntimeProviderRoleID = "agentruntime/provider-role"
)

// agentRuntimeProvidersPath is where an AgentRuntime's bindings live.
const agentRuntimeProvidersPath = "spec.providers"

// AgentRuntimeProviderBindings judges provider bindings exactly as the
// AgentRuntime CRD judges spec.providers, with the API server's own
// validators (the embedded schema, sv): each entry's name (the pattern
// ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$, at most 63 characters), providerRef.name
// (1 to 253 characters), role (the supported roles), and the list rules
// (agentruntime/provider-names-unique, at most 32 entries). It is what a
// caller that holds bindings outside an AgentRuntime (the deploy API's plan)
// asks, so it answers with the catalog's rule IDs and messages.
//
// It returns, for each entry in input order, the findings against it, each
// Field rewritten to that entry: spec.providers[i].name,
// spec.providers[i].providerRef.name, spec.providers[i].role. A duplicate
// name is reported on the later entry's name (the earlier one is kept), and
// only against earlier entries whose name is itself valid. An entry without
// findings is well-formed.
func AgentRuntimeProviderBindings(ctx context.Context, sv *schema.Validator, entries []v1alpha1.AgentRuntimeProvider) ([][]Finding, error) {
	out := make([][]Finding, len(entries))
	all := make([]any, len(entries))
	for i, e := range entries {
		all[i] = agentRuntimeBindingEntry(e)
	}
	// The common case first: the whole list at once, judged clean.
	res, err := ValidateSchema(ctx, sv, agentRuntimeBindingHolder(all), nil)
	if err != nil {
		return nil, err
	}
	if len(res.Findings) == 0 {
		return out, nil
	}
	// Otherwise each entry in turn, after the earlier ones. kept holds the
	// earlier entries with a valid name, reduced to what the list rules
	// read (their name), so one entry's other faults never hide a later
	// duplicate.
	var kept []any
	for i, e := range entries {
		list := append(append(make([]any, 0, len(kept)+1), kept...), all[i])
		res, err := ValidateSchema(ctx, sv, agentRuntimeBindingHolder(list), nil)
		if err != nil {
			return nil, err
		}
		at := agentRuntimeProvidersPath + "[" + strconv.Itoa(len(kept)) + "]"
		to := agentRuntimeProvidersPath + "[" + strconv.Itoa(i) + "]"
		nameOK := true
		for _, f := range res.Findings {
			switch {
			case f.Field == at || strings.HasPrefix(f.Field, at+"."):
				f.Field = to + strings.TrimPrefix(f.Field, at)
				f.Message = strings.ReplaceAll(f.Message, at+".", to+".")
				if f.Field == to+".name" {
					nameOK = false
				}
			case f.Field == agentRuntimeProvidersPath:
				// A list rule broken by adding this entry: a duplicate
				// is this entry's name, a list too long this entry.
				f.Field = to
				if f.RuleID == AgentRuntimeProviderNamesUniqueID {
					f.Field = to + ".name"
				}
				nameOK = false
			case f.Field == "<nil>":
				// The API server's "some validation rules were not
				// checked": the entry's own findings say why.
				continue
			default:
				return nil, fmt.Errorf("judging provider bindings: the holder AgentRuntime draws %s", f)
			}
			out[i] = append(out[i], f)
		}
		if nameOK {
			kept = append(kept, map[string]any{"name": e.Name, "providerRef": map[string]any{"name": "x"}})
		}
	}
	return out, nil
}

// agentRuntimeBindingEntry is one spec.providers entry as a manifest
// carries it.
func agentRuntimeBindingEntry(e v1alpha1.AgentRuntimeProvider) map[string]any {
	ref := map[string]any{"name": e.ProviderRef.Name}
	if e.ProviderRef.Namespace != "" {
		ref["namespace"] = e.ProviderRef.Namespace
	}
	entry := map[string]any{"name": e.Name, "providerRef": ref}
	if e.Role != "" {
		entry["role"] = string(e.Role)
	}
	return entry
}

// agentRuntimeBindingHolder is the smallest AgentRuntime the schema admits,
// carrying providers as spec.providers.
func agentRuntimeBindingHolder(providers []any) map[string]any {
	return map[string]any{
		"apiVersion": v1alpha1.GroupVersion.String(),
		"kind":       "AgentRuntime",
		"metadata":   map[string]any{"name": "bindings", "namespace": "bindings"},
		"spec": map[string]any{
			"facades":   []any{map[string]any{"type": "websocket"}},
			"providers": providers,
		},
	}
}
