package controlplane

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Operator is an omnia-operator process, run exactly as `make run` runs it.
type Operator struct {
	cmd     *exec.Cmd
	exited  chan error
	LogPath string
	// MetricsURL is the operator's /metrics endpoint.
	MetricsURL string
	// removeOnStop is a directory Stop deletes (a per-process build).
	removeOnStop string
}

// OperatorOptions say how to run the operator.
type OperatorOptions struct {
	// Binary is the operator executable (see BuildOperator).
	Binary string
	// Kubeconfig is a kubeconfig file for the API server.
	Kubeconfig string
	// CertDir holds the webhook serving tls.crt and tls.key.
	CertDir string
	// WebhookPort is the port the webhooks are registered on (127.0.0.1).
	WebhookPort int
	// LogPath receives the operator's output.
	LogPath string
	// Args are extra flags.
	Args []string
}

// BuildOperator builds cmd/omnia-operator and returns its path. Each test
// process builds into its own directory (the build cache makes it quick), so
// packages testing in parallel never replace a binary another one is running.
func BuildOperator() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "omnia-operator-bin-")
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "omnia-operator")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/omnia-operator")
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the operator: %v\n%s", err, msg)
	}
	return out, nil
}

// StartOperator runs the operator against the API server and waits until its
// webhooks answer /readyz.
func StartOperator(o OperatorOptions) (*Operator, error) {
	probePort, err := freePort()
	if err != nil {
		return nil, err
	}
	metricsPort, err := freePort()
	if err != nil {
		return nil, err
	}
	logPath := o.LogPath
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"--kubeconfig", o.Kubeconfig,
		"--webhook-host", "127.0.0.1",
		"--webhook-port", strconv.Itoa(o.WebhookPort),
		"--webhook-cert-dir", o.CertDir,
		"--health-probe-bind-address", "127.0.0.1:" + strconv.Itoa(probePort),
		"--metrics-bind-address", "127.0.0.1:" + strconv.Itoa(metricsPort),
	}, o.Args...)
	cmd := exec.Command(o.Binary, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the operator: %w", err)
	}
	op := &Operator{cmd: cmd, exited: make(chan error, 1), LogPath: logPath, MetricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", metricsPort)}
	go func() { op.exited <- cmd.Wait(); _ = logFile.Close() }()

	ready := fmt.Sprintf("http://127.0.0.1:%d/readyz", probePort)
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		select {
		case err := <-op.exited:
			op.exited <- err
			return nil, fmt.Errorf("the operator exited before it was ready (log: %s): %v", logPath, err)
		default:
		}
		if resp, err := http.Get(ready); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return op, nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	op.Stop()
	return nil, fmt.Errorf("the operator was not ready within a minute (log: %s)", logPath)
}

// Exited delivers the operator's exit error if it stops on its own.
func (op *Operator) Exited() <-chan error { return op.exited }

// Stop asks the operator to shut down (SIGTERM) and waits for it.
func (op *Operator) Stop() {
	if op.removeOnStop != "" {
		defer os.RemoveAll(op.removeOnStop)
	}
	if op.cmd.Process == nil {
		return
	}
	_ = op.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-op.exited:
		op.exited <- err
	case <-time.After(20 * time.Second):
		_ = op.cmd.Process.Kill()
		op.exited <- <-op.exited
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// CopyCerts copies a webhook serving certificate (tls.crt, tls.key).
func CopyCerts(from, to string) error {
	if err := os.MkdirAll(to, 0o700); err != nil {
		return err
	}
	for _, name := range []string{"tls.crt", "tls.key"} {
		data, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			return fmt.Errorf("reading the webhook certificate: %w", err)
		}
		if err := os.WriteFile(filepath.Join(to, name), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// RemoveWebhooks deletes the webhook registrations: with failurePolicy Fail,
// a registration left behind would refuse every write of an Omnia kind until
// an operator serves it again.
func RemoveWebhooks(env *envtest.Environment) {
	c, err := client.New(env.Config, client.Options{})
	if err != nil {
		return
	}
	for _, hook := range env.WebhookInstallOptions.ValidatingWebhooks {
		_ = c.Delete(context.Background(), &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: hook.ObjectMeta})
	}
}
