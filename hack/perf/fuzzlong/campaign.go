package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"time"
)

// result is what one target's campaign reports.
type result struct {
	target
	Elapsed time.Duration
	// Execs is the number of inputs run; NewInteresting the inputs this
	// campaign added to the corpus because they reached new coverage;
	// CorpusTotal the corpus size at the end (seed + cache).
	Execs, NewInteresting, CorpusTotal int64
	// Failure is the fuzzer's failure output (a crasher), empty when the
	// target held for the whole time.
	Failure string
}

// progressLine is the fuzzer's periodic status line, e.g.
// "fuzz: elapsed: 3m0s, execs: 123456 (685/sec), new interesting: 12 (total: 60)".
var progressLine = regexp.MustCompile(`fuzz: elapsed: (\S+), execs: (\d+) \(\d+/sec\), new interesting: (\d+) \(total: (\d+)\)`)

// parseProgress reads the last status line of a fuzzing run's output.
func parseProgress(out []byte) (elapsed time.Duration, execs, newInteresting, total int64, ok bool) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		m := progressLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		d, err := time.ParseDuration(m[1])
		if err != nil {
			continue
		}
		e, _ := strconv.ParseInt(m[2], 10, 64)
		n, _ := strconv.ParseInt(m[3], 10, 64)
		t, _ := strconv.ParseInt(m[4], 10, 64)
		elapsed, execs, newInteresting, total, ok = d, e, n, t, true
	}
	return elapsed, execs, newInteresting, total, ok
}

// fuzz runs one target for d with parallel workers (0: the go command's
// default, GOMAXPROCS), streaming its output to log.
func fuzz(ctx context.Context, root string, t target, d time.Duration, parallel int, log io.Writer) (result, error) {
	args := []string{"test", "-run", "^$", "-fuzz", "^" + t.Name + "$", "-fuzztime", d.String()}
	if parallel > 0 {
		args = append(args, "-parallel", strconv.Itoa(parallel))
	}
	args = append(args, t.Pkg)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, log)
	cmd.Stderr = cmd.Stdout
	runErr := cmd.Run()
	r := result{target: t}
	elapsed, execs, fresh, total, ok := parseProgress(out.Bytes())
	if !ok {
		return r, fmt.Errorf("%s %s: no fuzzing progress in its output (%v)", t.Pkg, t.Name, runErr)
	}
	r.Elapsed, r.Execs, r.NewInteresting, r.CorpusTotal = elapsed, execs, fresh, total
	if runErr != nil {
		r.Failure = tail(out.String(), 2000)
	}
	return r, nil
}

// tail keeps the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
