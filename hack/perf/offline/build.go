package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// goBuild builds a package of this module into bin.
func goBuild(ctx context.Context, cfg config, bin, pkg string) error {
	ctx, cancel := context.WithTimeout(ctx, buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg)
	cmd.Dir = cfg.root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
	}
	return nil
}

// errNotCached is build.sh's answer with --cached-only when the tool has
// not been built yet.
var errNotCached = errors.New("not cached yet")

// toolBinary returns the path of gator's or the Kyverno CLI's binary, built
// (once, cached per user) by hack/perf/tools/build.sh from the Go module its
// scratch module pins. With cachedOnly nothing is built.
func toolBinary(ctx context.Context, cfg config, tool string, cachedOnly bool) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, buildTimeout)
	defer cancel()
	args := []string{filepath.Join(cfg.root, "hack/perf/tools/build.sh"), tool}
	if cachedOnly {
		args = append(args, "--cached-only")
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", args...)
	cmd.Dir = cfg.root
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 && cachedOnly {
		return "", errNotCached
	}
	if err != nil {
		return "", fmt.Errorf("building %s: %w\n%s", tool, err, tail(stderr.String(), 4000))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// tail keeps the last n bytes of s: a failed build's last errors.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
