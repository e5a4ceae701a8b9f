// Package harness is the startup every `make perf-*` command shares: flags
// are parsed by the command, then Main runs it with a context an interrupt
// cancels (so Ctrl-C stops a run and its clusters cleanly), quiet
// controller-runtime logs, and one way of reporting an error; LogsDir is
// the run's logs directory, kept when the run fails.
package harness

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"go.uber.org/zap/zapcore"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// Main runs a harness command after flag.Parse: controller-runtime logs
// errors only, an interrupt cancels ctx, and an error is printed with the
// command's name and exits 1.
func Main(name string, run func(ctx context.Context) error) {
	ctrllog.SetLogger(zap.New(zap.Level(zapcore.ErrorLevel)))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// LogsDir creates the run's logs directory (operator log, kubeconfig,
// profiles). finish removes it, unless keep is set or the run failed, and
// otherwise says where it is.
func LogsDir(name string, keep bool) (dir string, finish func(failed bool), err error) {
	dir, err = os.MkdirTemp("", "omnia-perf-"+name+"-")
	if err != nil {
		return "", nil, err
	}
	return dir, func(failed bool) {
		if keep || failed {
			fmt.Printf("logs kept in %s\n", dir)
			return
		}
		_ = os.RemoveAll(dir)
	}, nil
}
