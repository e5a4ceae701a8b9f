package main

import (
	"encoding/json"
	"fmt"
	"io"
)

// ruleAnnotation names, on a Constraint or a Kyverno policy under
// policies/, the omnia catalog rule it expresses.
const ruleAnnotation = "omnia.altairalabs.ai/rule"

// parseGator reads `gator test -o json`: one result per violation, with the
// Constraint (whose annotation names the catalog rule) and the violating
// object. A Constraint without the annotation is an error: every policy
// under policies/gator must say which rule it is.
func parseGator(r io.Reader) (flagged, error) {
	var results []struct {
		Constraint struct {
			Metadata struct {
				Name        string            `json:"name"`
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		} `json:"constraint"`
		ViolatingObject struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"violatingObject"`
	}
	if err := json.NewDecoder(r).Decode(&results); err != nil && err != io.EOF {
		return nil, fmt.Errorf("gator -o json: %w", err)
	}
	out := flagged{}
	for _, res := range results {
		rule := res.Constraint.Metadata.Annotations[ruleAnnotation]
		if rule == "" {
			return nil, fmt.Errorf("gator: constraint %q has no %s annotation", res.Constraint.Metadata.Name, ruleAnnotation)
		}
		out.add(rule, docKey{Kind: res.ViolatingObject.Kind, Name: res.ViolatingObject.Metadata.Name})
	}
	return out, nil
}
