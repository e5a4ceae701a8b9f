package rules

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/altairalabs/omnia/rules/schema"
)

// differential records every schema answer that differs from
// ValidateUpstream's, over the whole test run (see TestMain).
var differential struct {
	sync.Mutex
	compared   int
	mismatches []string
}

// TestMain holds every schema evaluation any test of this package makes —
// every rule table row, strict-decoding case, ratchet case, spec example —
// to the API server's own CEL validator: the schema package's answer (the
// CEL plan and schema adaptors compiled once per CRD) must be exactly
// ValidateUpstream's. A difference fails the run after the tests, listing
// each case. A run with -bench leaves the hook out: it would time both
// validators.
func TestMain(m *testing.M) {
	flag.Parse()
	if flag.Lookup("test.bench").Value.String() == "" {
		schemaObserved = crossCheck
	}
	code := m.Run()
	if len(differential.mismatches) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d of %d schema evaluations differ from the API server's CEL validator:\n%s\n",
			len(differential.mismatches), differential.compared, strings.Join(differential.mismatches, "\n---\n"))
		code = 1
	}
	os.Exit(code)
}

// crossCheck compares one schema answer with ValidateUpstream's.
func crossCheck(ctx context.Context, sv *schema.Validator, obj, old map[string]any, res schema.Result, err error) {
	want, wantErr := sv.ValidateUpstream(ctx, obj, old)
	diff := differentialDiff(res, err, want, wantErr)
	differential.Lock()
	defer differential.Unlock()
	differential.compared++
	if diff != "" {
		differential.mismatches = append(differential.mismatches, fmt.Sprintf("object %v\nold %v\n%s", obj, old, diff))
	}
}

// differentialDiff describes how the plan's answer differs from upstream's.
func differentialDiff(got schema.Result, gotErr error, want schema.Result, wantErr error) string {
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		return fmt.Sprintf("error %v, upstream %v", gotErr, wantErr)
	}
	return got.Diff(want)
}
