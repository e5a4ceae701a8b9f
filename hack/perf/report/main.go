// Command report renders docs/performance.md from the sections the
// harnesses of `make perf` wrote into docs/performance/ (see
// hack/perf/perfreport). `make perf` runs it last; run it alone after one
// harness to refresh the page.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/altairalabs/omnia/hack/perf/perfreport"
)

func main() {
	in := flag.String("in", "docs/performance", "directory of section JSON files")
	out := flag.String("out", "docs/performance.md", "page to write")
	flag.Parse()
	sections, err := perfreport.ReadDir(*in)
	if err == nil && len(sections) == 0 {
		err = fmt.Errorf("no sections in %s", *in)
	}
	var page bytes.Buffer
	if err == nil {
		err = perfreport.Render(&page, sections)
	}
	if err == nil {
		err = os.WriteFile(*out, page.Bytes(), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s (%d sections)\n", *out, len(sections))
}
