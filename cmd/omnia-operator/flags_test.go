package main

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// parseFlags binds a fresh operatorFlags to a flag set of its own and
// parses args on it, as main does on the command line; it returns both,
// so a test may parse more arguments on the same set.
func parseFlags(t *testing.T, args ...string) (*operatorFlags, *flag.FlagSet) {
	t.Helper()
	f, fs := newFlagSet()
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parsing %q: %v", args, err)
	}
	return f, fs
}

// tryParseFlags is parseFlags for arguments that may be refused.
func tryParseFlags(args ...string) (*operatorFlags, error) {
	f, fs := newFlagSet()
	return f, fs.Parse(args)
}

func newFlagSet() (*operatorFlags, *flag.FlagSet) {
	f := &operatorFlags{}
	fs := flag.NewFlagSet("omnia-operator", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.bind(fs)
	return f, fs
}

// TestFlagsAreNotShared: two flag sets bound to two operatorFlags keep
// their values apart (no flag lives in a package variable), and a
// flag.Func validator still refuses a bad value at parsing.
func TestFlagsAreNotShared(t *testing.T) {
	a, _ := parseFlags(t, "--framework-image", "langchain=example.com/lc:1", "--arena")
	b, _ := parseFlags(t)
	if got := a.agentRuntime.frameworkImages["langchain"]; got != "example.com/lc:1" || !a.arena.enabled {
		t.Fatalf("first set: framework image %q, arena %v", got, a.arena.enabled)
	}
	if len(b.agentRuntime.frameworkImages) != 0 || b.arena.enabled {
		t.Fatalf("second set sees the first's values: %v, arena %v", b.agentRuntime.frameworkImages, b.arena.enabled)
	}
	if _, err := tryParseFlags("--framework-image", "langchain"); err == nil || !strings.Contains(err.Error(), "want <type>=<image>") {
		t.Fatalf("--framework-image without an image: %v", err)
	}
}
