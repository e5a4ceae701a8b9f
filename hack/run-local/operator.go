package main

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

// operatorProcess is the omnia-operator run by `make run`.
type operatorProcess struct {
	cmd     *exec.Cmd
	exited  chan error
	logPath string
}

// startOperator runs bin/omnia-operator against the local API server and
// waits until its webhooks answer /readyz.
func startOperator(root, state, kubeconfig, certDir string, webhookPort int) (*operatorProcess, error) {
	probePort, err := freePort()
	if err != nil {
		return nil, err
	}
	metricsPort, err := freePort()
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(state, "operator.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(root, "bin", "omnia-operator"),
		"--kubeconfig", kubeconfig,
		"--webhook-host", "127.0.0.1",
		"--webhook-port", strconv.Itoa(webhookPort),
		"--webhook-cert-dir", certDir,
		"--health-probe-bind-address", "127.0.0.1:"+strconv.Itoa(probePort),
		"--metrics-bind-address", "127.0.0.1:"+strconv.Itoa(metricsPort),
	)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the operator: %w", err)
	}
	op := &operatorProcess{cmd: cmd, exited: make(chan error, 1), logPath: logPath}
	go func() { op.exited <- cmd.Wait(); _ = logFile.Close() }()

	ready := fmt.Sprintf("http://127.0.0.1:%d/readyz", probePort)
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		select {
		case err := <-op.exited:
			return nil, fmt.Errorf("the operator exited before it was ready (log: %s): %v", logPath, err)
		default:
		}
		if resp, err := http.Get(ready); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				fmt.Fprintf(os.Stderr, "operator ready (webhooks on 127.0.0.1:%d, metrics on 127.0.0.1:%d, log %s)\n", webhookPort, metricsPort, logPath)
				return op, nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	op.stop()
	return nil, fmt.Errorf("the operator was not ready within a minute (log: %s)", logPath)
}

// stop asks the operator to shut down and waits for it.
func (op *operatorProcess) stop() {
	if op.cmd.Process == nil {
		return
	}
	_ = op.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-op.exited:
	case <-time.After(20 * time.Second):
		_ = op.cmd.Process.Kill()
		<-op.exited
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

// copyCerts copies the webhook serving certificate into the state directory.
func copyCerts(from, to string) error {
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

// removeWebhooks deletes the webhook registrations on shutdown: with
// failurePolicy Fail, a registration left behind would refuse every write of
// an Omnia kind on the next start until the operator is up again.
func removeWebhooks(env *envtest.Environment) {
	c, err := client.New(env.Config, client.Options{})
	if err != nil {
		return
	}
	for _, hook := range env.WebhookInstallOptions.ValidatingWebhooks {
		_ = c.Delete(context.Background(), &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: hook.ObjectMeta})
	}
}
