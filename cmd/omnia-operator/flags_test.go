package main

import (
	"flag"
	"io"
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
