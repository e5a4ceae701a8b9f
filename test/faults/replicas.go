package faults

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/altairalabs/omnia/test/controlplane"
)

// The operator runs as a Deployment of two replicas would: both serve the
// webhooks (behind the Front), the Lease holder runs the controllers, and
// a replica that exits is started again, as a kubelet restarts a crashed
// container (a leader that cannot renew its Lease while the API server is
// down exits on purpose). Each start logs to its own file, so the current
// process's log says whether it leads.

// logAcquired is what controller-runtime logs when a replica wins the Lease.
const logAcquired = `"msg":"Successfully acquired lease"`

// restartPause is how long a replica that exited waits before it starts
// again (a kubelet's first crash back-off is 10 s; shorter keeps runs
// short, and the failover, not the back-off, is what is measured).
const restartPause = time.Second

// Replica is one operator replica.
type Replica struct {
	Name        string
	WebhookAddr string
	opts        controlplane.OperatorOptions
	dir         string

	mu     sync.Mutex
	op     *controlplane.Operator
	starts int
	// held: the process was killed on purpose and is not to be restarted
	// until Release.
	held    bool
	stopped bool
	// Exits records when a process exited without being asked to.
	exits []time.Time
}

// newReplica starts a replica and its supervisor.
func newReplica(name, dir string, opts controlplane.OperatorOptions) (*Replica, error) {
	r := &Replica{Name: name, WebhookAddr: fmt.Sprintf("127.0.0.1:%d", opts.WebhookPort), opts: opts, dir: dir}
	if err := r.launch(); err != nil {
		return nil, err
	}
	return r, nil
}

// launch starts a new process and watches it.
func (r *Replica) launch() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	opts := r.opts
	opts.LogPath = filepath.Join(r.dir, fmt.Sprintf("%s.%d.log", r.Name, r.starts))
	op, err := controlplane.LaunchOperator(opts)
	if err != nil {
		return err
	}
	r.op = op
	r.starts++
	go r.supervise(op)
	return nil
}

// supervise restarts the replica when op exits on its own.
func (r *Replica) supervise(op *controlplane.Operator) {
	_ = op.WaitExited()
	r.mu.Lock()
	if r.op != op || r.held || r.stopped {
		r.mu.Unlock()
		return
	}
	r.exits = append(r.exits, time.Now())
	r.mu.Unlock()
	time.Sleep(restartPause)
	r.mu.Lock()
	again := r.op == op && !r.held && !r.stopped
	r.mu.Unlock()
	if again {
		if err := r.launch(); err != nil {
			fmt.Fprintf(os.Stderr, "faults: restarting %s: %v\n", r.Name, err)
		}
	}
}

// Leads reports whether the replica's current process has won the Lease
// (a process that loses it exits).
func (r *Replica) Leads() bool {
	r.mu.Lock()
	op, held := r.op, r.held
	r.mu.Unlock()
	if held || op == nil {
		return false
	}
	if op.HasExited() {
		return false
	}
	data, err := os.ReadFile(op.LogPath)
	return err == nil && strings.Contains(string(data), logAcquired)
}

// Operator is the replica's current process.
func (r *Replica) Operator() *controlplane.Operator {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.op
}

// KillHeld ends the current process with SIGKILL and keeps the replica
// down until Release.
func (r *Replica) KillHeld() {
	r.mu.Lock()
	r.held = true
	op := r.op
	r.mu.Unlock()
	op.Kill()
}

// Release starts a held replica again.
func (r *Replica) Release() error {
	r.mu.Lock()
	r.held = false
	r.mu.Unlock()
	return r.launch()
}

// UnaskedExits is how many times the replica exited on its own.
func (r *Replica) UnaskedExits() []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Time(nil), r.exits...)
}

// Stop ends the replica for good and returns the permission refusals of
// its current process's log (a verb config/rbac lacks).
func (r *Replica) Stop() []string {
	r.mu.Lock()
	r.stopped = true
	op := r.op
	r.mu.Unlock()
	op.Stop()
	forbidden, _ := op.Forbidden()
	return forbidden
}
