package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// measured is one measured process: its wall clock from start to exit and its
// peak resident set, from the kernel's own accounting (wait4's ru_maxrss),
// so a tool that forks nothing is measured whole, start-up included.
type measured struct {
	Wall    time.Duration
	PeakKiB int64
	Exit    int
	// Stdout and Stderr are files the output went to: a 5,000-document
	// report is megabytes, kept out of memory until a parser reads it.
	Stdout, Stderr string
}

// measure runs bin with args, its output to files under dir named after
// label, and bounds it by timeout. A non-zero exit is not an error (every
// tool exits non-zero when it finds violations); a process that could not
// start, was killed, or ran out of time is.
func measure(ctx context.Context, dir, label string, timeout time.Duration, env []string, bin string, args ...string) (measured, error) {
	r := measured{Stdout: dir + "/" + label + ".stdout", Stderr: dir + "/" + label + ".stderr"}
	stdout, err := os.Create(r.Stdout)
	if err != nil {
		return r, err
	}
	defer stdout.Close()
	stderr, err := os.Create(r.Stderr)
	if err != nil {
		return r, err
	}
	defer stderr.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Env = append(os.Environ(), env...)
	start := time.Now()
	err = cmd.Run()
	r.Wall = time.Since(start)
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.PeakKiB = ru.Maxrss // KiB on Linux
		}
		r.Exit = cmd.ProcessState.ExitCode()
	}
	if ctx.Err() != nil {
		return r, fmt.Errorf("%s: stopped after %s: %w", label, timeout, ctx.Err())
	}
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		return r, fmt.Errorf("%s: %w", label, err)
	}
	if r.Exit < 0 {
		return r, fmt.Errorf("%s: killed by a signal (%v)", label, cmd.ProcessState)
	}
	return r, nil
}
