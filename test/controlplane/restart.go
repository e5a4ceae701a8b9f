package controlplane

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// A fault harness kills kube-apiserver or etcd and starts it again with the
// very same command line, as a kubelet restarts a static pod: same ports,
// same certificates, same etcd data directory. envtest cannot do that
// itself: its Stop removes the temporary directories (etcd's data, the API
// server's certificates) and its Start picks new ones. So the process
// envtest started is found by its command line among this process's
// children (never another test's), signalled directly, and re-executed; at
// the end envtest's Stop finds its own process gone and only removes the
// directories.

// RestartableProcess is a control-plane process found by its command line.
type RestartableProcess struct {
	Name string
	path string
	args []string
	pid  int
	// cmd is set once Restart started a process of our own.
	cmd    *exec.Cmd
	exited chan error
	log    *os.File
}

// APIServerProcess finds env's kube-apiserver (by its --secure-port).
func APIServerProcess(env *envtest.Environment) (*RestartableProcess, error) {
	return findChild("kube-apiserver", "--secure-port="+env.ControlPlane.APIServer.SecureServing.Port)
}

// EtcdProcess finds env's etcd (by its client URL).
func EtcdProcess(env *envtest.Environment) (*RestartableProcess, error) {
	return findChild("etcd", "--listen-client-urls="+env.ControlPlane.Etcd.URL.String())
}

// findChild returns the child of this process running binary name with arg
// on its command line.
func findChild(name, arg string) (*RestartableProcess, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || parentOf(pid) != self {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		if len(argv) == 0 || filepath.Base(argv[0]) != name {
			continue
		}
		for _, a := range argv[1:] {
			if a == arg {
				return &RestartableProcess{Name: name, path: argv[0], args: argv[1:], pid: pid}, nil
			}
		}
	}
	return nil, fmt.Errorf("controlplane: no child %s with %s", name, arg)
}

// parentOf reads a process's parent id from /proc/<pid>/stat (0 when gone).
func parentOf(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(data)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0
	}
	f := strings.Fields(s[end+1:]) // f[0] state, f[1] ppid
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// Pid is the process's current id.
func (p *RestartableProcess) Pid() int { return p.pid }

// Signal sends sig (SIGKILL for a crash, SIGTERM for a clean restart) and
// waits until the process is gone (reaped by whoever started it).
func (p *RestartableProcess) Signal(sig syscall.Signal, timeout time.Duration) error {
	if err := syscall.Kill(p.pid, sig); err != nil {
		return fmt.Errorf("controlplane: signalling %s (pid %d): %w", p.Name, p.pid, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := wait.PollUntilContextCancel(ctx, 20*time.Millisecond, true, func(context.Context) (bool, error) {
		if p.exited != nil {
			select {
			case err := <-p.exited:
				p.exited <- err
				return true, nil
			default:
				return false, nil
			}
		}
		return parentOf(p.pid) != os.Getpid(), nil
	})
	if err != nil {
		return fmt.Errorf("controlplane: %s (pid %d) did not exit on %s within %s", p.Name, p.pid, sig, timeout)
	}
	return nil
}

// Restart starts the process again with the same command line, its output
// appended to logPath. It does not wait for it to be healthy.
func (p *RestartableProcess) Restart(logPath string) error {
	if p.log != nil {
		_ = p.log.Close()
	}
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.path, p.args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return fmt.Errorf("controlplane: restarting %s: %w", p.Name, err)
	}
	p.cmd, p.pid, p.log = cmd, cmd.Process.Pid, log
	p.exited = make(chan error, 1)
	go func(exited chan error) { exited <- cmd.Wait() }(p.exited)
	return nil
}

// Stop ends a process Restart started (SIGTERM, then SIGKILL); a process
// still envtest's is left to envtest's Stop.
func (p *RestartableProcess) Stop() error {
	if p.cmd == nil {
		return nil
	}
	defer func() { _ = p.log.Close() }()
	select {
	case err := <-p.exited:
		p.exited <- err
		return nil
	default:
	}
	if err := p.Signal(syscall.SIGTERM, 20*time.Second); err != nil {
		_ = p.cmd.Process.Kill()
		<-p.exited
		return err
	}
	return nil
}

// A harness that restarts a crashed operator, as a kubelet would, watches
// for its exit without taking it: Kill and Stop wait for the same exit.

// HasExited reports whether the operator process has exited.
func (op *Operator) HasExited() bool {
	select {
	case err := <-op.exited:
		op.exited <- err
		return true
	default:
		return false
	}
}

// WaitExited blocks until the operator process exits and returns its exit
// error, leaving it for Kill, Stop and Exited.
func (op *Operator) WaitExited() error {
	err := <-op.exited
	op.exited <- err
	return err
}
