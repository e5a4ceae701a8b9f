package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/rules"
)

// A deploy intent in check's input (a JSON or YAML document with apiVersion
// deploy.omnia.altairalabs.ai/v1) is decoded strictly, as the deploy API
// decodes it, and judged by the same deployintent/* catalog rules
// (intent.Validate), so `omniactl check` refuses what the API answers 400
// with the same rule IDs and fields. A document the decoder refuses is
// unusable input (exit 2), naming the key, as the API's 400 does.
//
// Offline there is no caller: a pack.project intent's derived dev name
// depends on the signed-in user, so deployintent/project-names-derived is
// not judged here (the API judges it).

// intentKind is the Kind check reports for a deploy intent.
const intentKind = "DeployIntent"

// prepareIntent keeps a deploy intent's JSON for evaluateIntents.
func prepareIntent(d *document, obj map[string]any) error {
	raw, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	d.class, d.apiVersion, d.kind, d.raw = classIntent, intent.APIVersion, intentKind, raw
	return nil
}

// evaluateIntents decodes and judges every deploy intent of docs.
func evaluateIntents(docs []document, facts rules.Facts) ([]result, error) {
	var out []result
	var problems []string
	for i := range docs {
		d := &docs[i]
		if d.class != classIntent {
			continue
		}
		in, err := intent.Decode(d.raw)
		d.raw = nil
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: document %d (line %d): deploy intent: %v", d.file, d.index, d.line, err))
			continue
		}
		out = append(out, result{File: d.file, Document: d.index, Line: d.line, APIVersion: intent.APIVersion, Kind: intentKind,
			Name: in.Pack.Name, Findings: intent.Validate(in, facts, "")})
	}
	if len(problems) > 0 {
		return nil, &inputError{msg: strings.Join(problems, "\n")}
	}
	return out, nil
}

// mergeByPosition returns a and b in the input order of docs.
func mergeByPosition(docs []document, a, b []result) []result {
	if len(b) == 0 {
		return a
	}
	type key struct {
		file string
		doc  int
	}
	pos := make(map[key]int, len(docs))
	for i := range docs {
		pos[key{docs[i].file, docs[i].index}] = i
	}
	out := append(append(make([]result, 0, len(a)+len(b)), a...), b...)
	sort.SliceStable(out, func(i, j int) bool {
		return pos[key{out[i].File, out[i].Document}] < pos[key{out[j].File, out[j].Document}]
	})
	return out
}
