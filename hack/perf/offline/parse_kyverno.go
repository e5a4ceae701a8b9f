package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"sigs.k8s.io/yaml"
)

// kyvernoResult is what `kyverno apply --policy-report --output-format json`
// reports beyond the flagged documents: results it could not evaluate.
type kyvernoResult struct {
	Flagged flagged
	// Errors counts results of status error (a rule that failed to
	// evaluate on a document), which flag nothing.
	Errors int
}

// maxReportLine bounds one line of the Kyverno CLI's output: each report is
// printed as one JSON line, a few MiB at 5,000 documents.
const maxReportLine = 256 << 20

// parseKyverno reads the policy reports the Kyverno CLI prints (one JSON
// object per line; a namespaced report is preceded by a --- line) and keeps
// the results of status fail, mapping each policy to its catalog rule with
// policyRules.
func parseKyverno(r io.Reader, policyRules map[string]string) (kyvernoResult, error) {
	out := kyvernoResult{Flagged: flagged{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), maxReportLine)
	reports := 0
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var report struct {
			Kind    string `json:"kind"`
			Results []struct {
				Policy    string `json:"policy"`
				Result    string `json:"result"`
				Resources []struct {
					Kind string `json:"kind"`
					Name string `json:"name"`
				} `json:"resources"`
			} `json:"results"`
		}
		if err := json.Unmarshal(line, &report); err != nil {
			return out, fmt.Errorf("kyverno policy report: %w", err)
		}
		reports++
		for _, res := range report.Results {
			switch res.Result {
			case "fail":
			case "error":
				out.Errors++
				continue
			default:
				continue
			}
			rule, ok := policyRules[res.Policy]
			if !ok {
				return out, fmt.Errorf("kyverno: policy %q is not one of policies/kyverno", res.Policy)
			}
			for _, obj := range res.Resources {
				out.Flagged.add(rule, docKey{Kind: obj.Kind, Name: obj.Name})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	if reports == 0 {
		return out, fmt.Errorf("kyverno: no policy report in the output")
	}
	return out, nil
}

// readPolicyRules maps each policy (or Constraint) name in a multi-document
// YAML file to the catalog rule its ruleAnnotation names.
func readPolicyRules(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var obj struct {
			Metadata struct {
				Name        string            `json:"name"`
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if obj.Metadata.Name == "" {
			continue
		}
		rule := obj.Metadata.Annotations[ruleAnnotation]
		if rule == "" {
			return nil, fmt.Errorf("%s: %s has no %s annotation", path, obj.Metadata.Name, ruleAnnotation)
		}
		out[obj.Metadata.Name] = rule
	}
	return out, nil
}
