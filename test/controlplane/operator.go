package controlplane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	// MetricsURL is the operator's /metrics endpoint (HTTPS; see Metrics).
	MetricsURL string
	// ReadyURL is the operator's /readyz endpoint (plain HTTP, as the
	// kubelet probes it).
	ReadyURL string
	// WebhookAddr and MetricsAddr are the host:port the TLS servers listen on.
	WebhookAddr, MetricsAddr string
	metricsCA                []byte
	// removeOnStop is a directory Stop deletes (a per-process build).
	removeOnStop string
}

// OperatorOptions say how to run the operator.
type OperatorOptions struct {
	// Binary is the operator executable (see BuildOperator).
	Binary string
	// Kubeconfig is a kubeconfig file for the API server (see
	// OperatorKubeconfig: the operator's ServiceAccount).
	Kubeconfig string
	// CertDir holds the webhook serving tls.crt and tls.key. The metrics
	// server serves the same certificate.
	CertDir string
	// CAData is the PEM CA that signed CertDir's certificate; Metrics
	// verifies the metrics server with it.
	CAData []byte
	// WebhookPort is the port the webhooks are registered on (127.0.0.1).
	WebhookPort int
	// LogPath receives the operator's output.
	LogPath string
	// Args are extra flags; they come last, so they override the defaults
	// (e.g. --leader-election-namespace).
	Args []string
	// Env are extra NAME=value variables. They come after this process's
	// environment and the manifest's (ManagerEnv), so they override both.
	Env []string
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

// StartOperator runs the operator against the API server and waits until it
// answers /readyz.
func StartOperator(o OperatorOptions) (*Operator, error) {
	op, err := LaunchOperator(o)
	if err != nil {
		return nil, err
	}
	if err := op.WaitReady(time.Minute); err != nil {
		op.Stop()
		return nil, err
	}
	return op, nil
}

// LaunchOperator starts the operator without waiting for it to be ready. It
// runs with leader election on (the default), its Lease in
// OperatorNamespace.
func LaunchOperator(o OperatorOptions) (*Operator, error) {
	var ports [2]int
	for i := range ports {
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		ports[i] = p
	}
	probePort, metricsPort := ports[0], ports[1]
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
		"--metrics-cert-dir", o.CertDir,
		"--health-probe-bind-address", "127.0.0.1:" + strconv.Itoa(probePort),
		"--metrics-bind-address", "127.0.0.1:" + strconv.Itoa(metricsPort),
		"--leader-election-namespace", OperatorNamespace,
	}, o.Args...)
	manifestEnv, err := ManagerEnv()
	if err != nil {
		_ = logFile.Close()
		return nil, err
	}
	cmd := exec.Command(o.Binary, args...)
	// For a repeated name the last value wins (os/exec keeps the last).
	cmd.Env = append(append(os.Environ(), manifestEnv...), o.Env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting the operator: %w", err)
	}
	op := &Operator{
		cmd:         cmd,
		exited:      make(chan error, 1),
		LogPath:     logPath,
		MetricsURL:  fmt.Sprintf("https://127.0.0.1:%d/metrics", metricsPort),
		ReadyURL:    fmt.Sprintf("http://127.0.0.1:%d/readyz", probePort),
		WebhookAddr: net.JoinHostPort("127.0.0.1", strconv.Itoa(o.WebhookPort)),
		MetricsAddr: net.JoinHostPort("127.0.0.1", strconv.Itoa(metricsPort)),
		metricsCA:   o.CAData,
	}
	go func() { op.exited <- cmd.Wait(); _ = logFile.Close() }()
	return op, nil
}

// WaitReady waits until /readyz answers 200.
func (op *Operator) WaitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-op.exited:
			op.exited <- err
			return fmt.Errorf("the operator exited before it was ready (log: %s): %v", op.LogPath, err)
		default:
		}
		if code, _, err := op.Ready(); err == nil && code == http.StatusOK {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("the operator was not ready within %s (log: %s)", timeout, op.LogPath)
}

// Ready asks /readyz?verbose and returns the status code and the body (one
// line per check).
func (op *Operator) Ready() (int, string, error) {
	resp, err := http.Get(op.ReadyURL + "?verbose")
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// Metrics scrapes /metrics over TLS (verified with OperatorOptions.CAData)
// with a bearer token, and returns the status code and body.
func (op *Operator) Metrics(token string) (int, string, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(op.metricsCA) {
		return 0, "", fmt.Errorf("controlplane: no CA to verify the metrics server with")
	}
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, err := http.NewRequest(http.MethodGet, op.MetricsURL, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// Forbidden returns the lines of the operator's log where the API server
// refused it a permission: with the operator running as its ServiceAccount,
// each is a permission config/rbac lacks (fix the +kubebuilder:rbac markers).
func (op *Operator) Forbidden() ([]string, error) {
	data, err := os.ReadFile(op.LogPath)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, "is forbidden") || strings.Contains(line, `"reason":"Forbidden"`) {
			out = append(out, line)
		}
	}
	return out, nil
}

// Kill ends the operator with SIGKILL: no shutdown, the Lease is not
// released and must expire.
func (op *Operator) Kill() {
	if op.removeOnStop != "" {
		defer os.RemoveAll(op.removeOnStop)
	}
	if op.cmd.Process == nil {
		return
	}
	_ = op.cmd.Process.Kill()
	op.exited <- <-op.exited
}

// Pid is the operator process's id (for /proc/<pid>/status: its peak RSS in
// a benchmark).
func (op *Operator) Pid() int {
	if op.cmd.Process == nil {
		return 0
	}
	return op.cmd.Process.Pid
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

// FreePort returns a TCP port free on 127.0.0.1 now.
func FreePort() (int, error) { return freePort() }

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
