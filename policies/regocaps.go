package policies

import (
	"fmt"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Rego capabilities: a policy module answers from its input alone, the same
// way every time, like CEL. Removed always:
//   - http.send and every net.* builtin: no network from a webhook. (The
//     net.cidr_* helpers do no I/O, but the whole family goes so the rule is
//     one a reader can check at a glance.)
//   - opa.runtime: it returns the operator's environment variables, which
//     may hold secrets.
//   - json.match_schema and json.verify_schema: a schema's remote $ref is
//     fetched over the network.
//
// Removed unless the rule sets allowNondeterministic: every other builtin
// OPA marks nondeterministic (time.now_ns, rand.intn, uuid.rfc4122,
// io.jwt.decode_verify — it reads the clock — io.jwt.encode_sign*, …).
// The io.jwt.verify_* and crypto.* builtins stay: they are pure functions
// of their arguments.
var regoAlwaysRemoved = []string{"http.send", "opa.runtime", "json.match_schema", "json.verify_schema"}

func regoAlwaysRemovedReason(name string) string {
	switch {
	case name == "http.send" || strings.HasPrefix(name, "net."):
		return "policies may not reach the network"
	case name == "opa.runtime":
		return "it exposes the operator's environment"
	case strings.HasPrefix(name, "json.") && strings.HasSuffix(name, "_schema"):
		return "it may fetch a schema's remote $ref over the network"
	}
	return "it is not allowed in policies"
}

// regoCaps are the two capability sets and why each removed builtin is.
type regoCaps struct {
	deterministic *ast.Capabilities
	any           *ast.Capabilities
	// removed maps a removed builtin to why; nondet marks those only
	// removed without allowNondeterministic.
	removed map[string]string
	nondet  map[string]bool
}

func newRegoCaps() (*regoCaps, error) {
	rc := &regoCaps{removed: map[string]string{}, nondet: map[string]bool{}}
	all := ast.CapabilitiesForThisVersion()
	if all == nil {
		return nil, fmt.Errorf("policies: OPA gave no capabilities")
	}
	det, anyCaps := *all, *all
	det.Builtins, anyCaps.Builtins = nil, nil
	// No host is reachable even if a network builtin slipped through.
	det.AllowNet, anyCaps.AllowNet = []string{}, []string{}
	for _, b := range all.Builtins {
		switch {
		case slices.Contains(regoAlwaysRemoved, b.Name) || strings.HasPrefix(b.Name, "net."):
			rc.removed[b.Name] = regoAlwaysRemovedReason(b.Name)
		case b.Nondeterministic:
			rc.removed[b.Name] = "its answer changes between evaluations of the same object; set allowNondeterministic to use it"
			rc.nondet[b.Name] = true
			anyCaps.Builtins = append(anyCaps.Builtins, b)
		default:
			det.Builtins = append(det.Builtins, b)
			anyCaps.Builtins = append(anyCaps.Builtins, b)
		}
	}
	rc.deterministic, rc.any = &det, &anyCaps
	return rc, nil
}

// caps returns the capabilities for a rule.
func (rc *regoCaps) caps(allowNondeterministic bool) *ast.Capabilities {
	if allowNondeterministic {
		return rc.any
	}
	return rc.deterministic
}

// forbidden returns the removed builtins module calls, with why, sorted.
func (rc *regoCaps) forbidden(module *ast.Module, allowNondeterministic bool) []string {
	found := map[string]bool{}
	note := func(name string) {
		if _, removed := rc.removed[name]; removed && !(allowNondeterministic && rc.nondet[name]) {
			found[name] = true
		}
	}
	ast.WalkExprs(module, func(x *ast.Expr) bool {
		if x.IsCall() {
			note(x.Operator().String())
		}
		return false
	})
	ast.WalkTerms(module, func(t *ast.Term) bool {
		if call, ok := t.Value.(ast.Call); ok && len(call) > 0 {
			note(call[0].String())
		}
		return false
	})
	var out []string
	for name := range found {
		out = append(out, name+" ("+rc.removed[name]+")")
	}
	slices.Sort(out)
	return out
}
