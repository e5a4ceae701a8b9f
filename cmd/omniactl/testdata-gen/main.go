// Command testdata-gen writes the multi-document manifest omniactl check is
// measured on (a mix of AgentRuntimes, Providers and Workspaces):
//
//	go run ./cmd/omniactl/testdata-gen -n 5000 > /tmp/omnia-5000.yaml
//	go build -o bin/omniactl ./cmd/omniactl
//	/usr/bin/time -v bin/omniactl check -f /tmp/omnia-5000.yaml -o json > /dev/null
//
// With -expected FILE it also writes, as JSON, the generator's own account of
// the file: every document's kind, namespace and name, the namespaces to
// create before applying it, and which documents break which of the six
// rules the offline-check comparison (make perf-offline) holds every tool to.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/altairalabs/omnia/cmd/omniactl/internal/manifestgen"
)

// account is the -expected JSON.
type account struct {
	Documents  int                     `json:"documents"`
	Rules      []string                `json:"rules"`
	Namespaces []string                `json:"namespaces"`
	Objects    []manifestgen.Document  `json:"objects"`
	Violations []manifestgen.Violation `json:"violations"`
}

func main() {
	n := flag.Int("n", 5000, "number of documents")
	expectedPath := flag.String("expected", "", "also write the generator's account of the file (documents, namespaces, violations) as JSON to this file")
	flag.Parse()
	if err := generate(*n, *expectedPath); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func generate(n int, expectedPath string) error {
	if expectedPath != "" {
		if err := writeAccount(n, expectedPath); err != nil {
			return err
		}
	}
	return manifestgen.Write(os.Stdout, n)
}

func writeAccount(n int, expectedPath string) error {
	acc := account{Documents: n, Rules: manifestgen.Rules, Namespaces: manifestgen.Namespaces(n), Violations: manifestgen.Violations(n)}
	for i := 0; i < n; i++ {
		acc.Objects = append(acc.Objects, manifestgen.Describe(i))
	}
	data, err := json.MarshalIndent(acc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(expectedPath, append(data, '\n'), 0o644)
}
