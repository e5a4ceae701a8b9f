// Command testdata-gen writes the multi-document manifest omniactl check is
// measured on (a mix of AgentRuntimes and Providers):
//
//	go run ./cmd/omniactl/testdata-gen -n 5000 > /tmp/omnia-5000.yaml
//	go build -o bin/omniactl ./cmd/omniactl
//	/usr/bin/time -v bin/omniactl check -f /tmp/omnia-5000.yaml -o json > /dev/null
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/altairalabs/omnia/cmd/omniactl/internal/manifestgen"
)

func main() {
	n := flag.Int("n", 5000, "number of documents")
	flag.Parse()
	if err := manifestgen.Write(os.Stdout, *n); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
