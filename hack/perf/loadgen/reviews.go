package loadgen

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
)

// Expectation is the verdict a review must get.
type Expectation struct {
	Allowed bool
	// Rule, on a denial, is the catalog rule the refusal must name (the
	// webhook's message starts "[<rule>] ").
	Rule string
}

// Case is one object the harnesses send: a spec example (admitted) or a
// webhook-rejects row (refused by Expect.Rule).
type Case struct {
	// Name says where the case comes from, for error messages.
	Name string
	Kind string
	// Object is the object's JSON as the API server sends it to the webhook:
	// defaulted and pruned by the CRD schema (schema.Validator), with
	// metadata.namespace set.
	Object map[string]any
	Expect Expectation
}

// The case sources, relative to the repository root.
const (
	examplesGlob = "config/samples/*/*.yaml"
	rejectsFile  = "cmd/omniactl/testdata/webhook-rejects.yaml"
)

// LoadCases reads the spec examples (valid) and the webhook-rejects rows
// (invalid) under root, as objects in namespace. Rows that only warn are
// left out (they are admitted with a warning, not refused), and so are the
// licence-gate rows: the harnesses run the operator with an enterprise
// licence, because several spec examples use enterprise features, and
// under it those rows are admitted.
func LoadCases(root, namespace string) (valid, invalid []Case, err error) {
	sv, err := schema.Default()
	if err != nil {
		return nil, nil, err
	}
	files, err := filepath.Glob(filepath.Join(root, examplesGlob))
	if err != nil || len(files) == 0 {
		return nil, nil, fmt.Errorf("loadgen: no spec examples match %s (%v)", examplesGlob, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		var obj map[string]any
		if err := yaml.Unmarshal(data, &obj); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f, err)
		}
		name := "example " + filepath.Base(filepath.Dir(f)) + "/" + strings.TrimSuffix(filepath.Base(f), ".yaml")
		c, err := newCase(sv, name, obj, namespace, Expectation{Allowed: true})
		if err != nil {
			return nil, nil, err
		}
		valid = append(valid, c)
	}
	data, err := os.ReadFile(filepath.Join(root, rejectsFile))
	if err != nil {
		return nil, nil, err
	}
	var rows []struct {
		Name   string         `json:"name"`
		Rule   string         `json:"rule"`
		Expect string         `json:"expect"`
		Object map[string]any `json:"object"`
	}
	if err := yaml.Unmarshal(data, &rows); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", rejectsFile, err)
	}
	for _, r := range rows {
		if r.Expect != "" || strings.Contains(r.Rule, "license") {
			continue
		}
		c, err := newCase(sv, "reject "+r.Rule+": "+r.Name, r.Object, namespace, Expectation{Rule: r.Rule})
		if err != nil {
			return nil, nil, err
		}
		invalid = append(invalid, c)
	}
	if len(invalid) == 0 {
		return nil, nil, fmt.Errorf("loadgen: no refused rows in %s", rejectsFile)
	}
	return valid, invalid, nil
}

// newCase places obj in namespace and passes it through the CRD schema, as
// the API server does before it calls the webhook. Every case must pass the
// schema: a schema refusal never reaches the webhook.
func newCase(sv *schema.Validator, name string, obj map[string]any, namespace string, exp Expectation) (Case, error) {
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	meta["namespace"] = namespace
	res, err := rules.ValidateSchema(context.Background(), sv, obj, nil)
	if err != nil {
		return Case{}, fmt.Errorf("%s: %w", name, err)
	}
	if len(res.Findings) > 0 {
		return Case{}, fmt.Errorf("%s: the CRD schema refuses it: %v", name, res.Findings)
	}
	kind, _ := obj["kind"].(string)
	return Case{Name: name, Kind: kind, Object: res.Object, Expect: exp}, nil
}

// Mix is the request sequence: every fifth request (20 %) is an invalid
// case, the rest valid ones, each list taken round-robin.
type Mix[T any] struct {
	Valid, Invalid []T
}

// Pick returns the item of request i.
func (m Mix[T]) Pick(i int) *T {
	block, pos := i/5, i%5
	if pos == 4 {
		return &m.Invalid[block%len(m.Invalid)]
	}
	return &m.Valid[(block*4+pos)%len(m.Valid)]
}

// WithName returns a copy of the case's object renamed (metadata.name), for
// creates that must not collide.
func (c *Case) WithName(name string) (map[string]any, error) {
	data, err := json.Marshal(c.Object)
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		return nil, fmt.Errorf("%s: no metadata", c.Name)
	}
	meta["name"] = name
	return obj, nil
}
