package main

import (
	"encoding/json"
	"fmt"
	"io"
)

// parseOmniactl reads `omniactl check -o json`: one finding per element,
// with the document's kind and name and the catalog rule ID. omniactl runs
// every rule of the catalog, so findings of other rules are kept (compare
// counts them apart).
func parseOmniactl(r io.Reader) (flagged, error) {
	var findings []struct {
		Kind   string `json:"kind"`
		Name   string `json:"name"`
		RuleID string `json:"ruleID"`
	}
	if err := json.NewDecoder(r).Decode(&findings); err != nil {
		return nil, fmt.Errorf("omniactl -o json: %w", err)
	}
	out := flagged{}
	for _, f := range findings {
		out.add(f.RuleID, docKey{Kind: f.Kind, Name: f.Name})
	}
	return out, nil
}
