package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/altairalabs/omnia/test/controlplane"
)

// RunTimeout bounds one probe run.
const RunTimeout = 30 * time.Second

// Run starts probeBinary as a process with exactly r.Env (plus the test's
// PATH, so a probe could start a tool) and args, in r.Root, and waits at
// most RunTimeout. A non-zero exit is an *exec.ExitError in err, with the
// output still returned.
func Run(ctx context.Context, probeBinary string, r *Resolved, args ...string) (stdout, stderr []byte, err error) {
	ctx, cancel := context.WithTimeout(ctx, RunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, probeBinary, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, r.Env...)
	cmd.Dir = r.Root
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("contract: probe did not finish within %s: %w", RunTimeout, ctx.Err())
	}
	return out.Bytes(), errOut.Bytes(), err
}

// Report is the probe's report (what test/contract/probe prints).
type Report struct {
	Role     string    `json:"role"`
	Read     []Read    `json:"read"`
	Problems []Problem `json:"problems"`
}

// Read is one thing the probe read.
type Read struct {
	// Kind is what it is: pack, tools-file, credential-file, header-file,
	// tool-token, provider-env, sa-token, ca, namespace, api-get, …
	Kind string `json:"kind"`
	// Path is the container path or the API path.
	Path string `json:"path,omitempty"`
	// Handler names the tool handler or provider entry it belongs to.
	Handler string `json:"handler,omitempty"`
}

// Problem is one broken promise of the contract.
type Problem struct {
	// Kind is e.g. credential-missing, token-audience, allowed, denied.
	Kind    string `json:"kind"`
	Handler string `json:"handler,omitempty"`
	Path    string `json:"path,omitempty"`
	Detail  string `json:"detail"`
}

// ParseReport decodes the probe's stdout.
func ParseReport(stdout []byte) (*Report, error) {
	rep := &Report{}
	if err := json.Unmarshal(bytes.TrimSpace(stdout), rep); err != nil {
		return nil, fmt.Errorf("contract: the probe's report %q: %w", stdout, err)
	}
	return rep, nil
}

var (
	buildOnce  sync.Once
	probePath  string
	probeError error
)

// BuildProbe builds test/contract/probe once per test binary and returns
// its path. It is built in a temporary directory of its own, not the first
// caller's t.TempDir (removed when that test ends, while later tests still
// need the binary): call RemoveProbe from TestMain once the tests are done.
func BuildProbe(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		root, err := controlplane.RepoRoot()
		if err != nil {
			probeError = err
			return
		}
		dir, err := os.MkdirTemp("", "omnia-contract-probe-")
		if err != nil {
			probeError = err
			return
		}
		probePath = filepath.Join(dir, "probe")
		cmd := exec.Command("go", "build", "-o", probePath, "./test/contract/probe")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			probeError = fmt.Errorf("contract: building the probe: %w\n%s", err, out)
		}
	})
	if probeError != nil {
		t.Fatal(probeError)
	}
	return probePath
}

// RemoveProbe removes what BuildProbe built, if it did.
func RemoveProbe() {
	if probePath != "" {
		_ = os.RemoveAll(filepath.Dir(probePath))
	}
}
