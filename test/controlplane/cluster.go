package controlplane

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// The local cluster is envtest's kube-apiserver and etcd plus what turns
// stored objects into running ones: kube-controller-manager (ReplicaSets,
// Pods, Jobs, garbage collection, namespace deletion, default
// ServiceAccounts), kube-scheduler (binds Pods to Nodes) and kwok, which
// simulates the Nodes: it reports them Ready and plays each Pod bound to
// them through the stages a kubelet would report (Running and Ready,
// Succeeded for a Job's pod, gone once deleted). No container runs: the
// machine has no container runtime, and the operator only needs the API
// objects a cluster would show.

// NodeName is the simulated Node StartComponents creates.
const NodeName = "kwok-node-0"

// kwokModule is kwok's Go module; hack/controlplane/kwok/go.mod pins its
// version, the one bin/kwok is built from.
const kwokModule = "sigs.k8s.io/kwok"

// kwokStages are the stage files kwok's module ships (kustomize/stage/...):
// node fast (Ready at once) and heartbeat (keeps it Ready), pod fast (ready,
// complete, delete).
var kwokStages = []string{
	"node/fast/node-initialize.yaml",
	"node/heartbeat/node-heartbeat.yaml",
	"pod/fast/pod-ready.yaml",
	"pod/fast/pod-complete.yaml",
	"pod/fast/pod-delete.yaml",
}

// componentQPS and componentBurst are the controller-manager's and the
// scheduler's client limits.
const (
	componentQPS   = "200"
	componentBurst = "400"
)

// componentStopTimeout is how long a component gets to exit on SIGTERM.
const componentStopTimeout = 10 * time.Second

// Components are the processes that make envtest's control plane a cluster.
type Components struct {
	// Dir holds their kubeconfig and one log file per component.
	Dir   string
	procs []*component
}

type component struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	exited  chan error
}

// Cluster is a control plane with Components running against it. Stop stops
// the components, then the control plane.
type Cluster struct {
	*envtest.Environment
	Components *Components
}

// StartCluster starts the control plane as Start does, installs KEDA's and
// OpenReports' CRDs, and starts the Components with their kubeconfig and
// logs in dir.
func StartCluster(opts Options, dir string) (*Cluster, error) {
	env, err := Start(opts)
	if err != nil {
		return nil, err
	}
	if opts.Istio {
		if err := InstallIstioCRDs(env.Config); err != nil {
			_ = env.Stop()
			return nil, err
		}
	}
	comps, err := StartComponents(env, dir)
	if err != nil {
		_ = env.Stop()
		return nil, err
	}
	return &Cluster{Environment: env, Components: comps}, nil
}

// Stop stops the components, then kube-apiserver and etcd.
func (c *Cluster) Stop() error {
	c.Components.Stop()
	return c.Environment.Stop()
}

// StartComponents starts kube-controller-manager, kube-scheduler and kwok
// from bin/ against env as a system:masters user, installs KEDA's and
// OpenReports' CRDs and creates the simulated Node, and returns once the
// Node is Ready and the controller-manager has created the default
// ServiceAccount (pods need it).
// On failure the error carries the end of each component's log.
func StartComponents(env *envtest.Environment, dir string) (*Components, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	binDir := filepath.Join(root, "bin")
	for _, name := range []string{"kube-controller-manager", "kube-scheduler", "kwok"} {
		if _, err := os.Stat(filepath.Join(binDir, name)); err != nil {
			return nil, fmt.Errorf("controlplane: %s missing from %s: run `make control-plane` first", name, binDir)
		}
	}
	kwokDir, err := ModuleDir("kwok", kwokModule)
	if err != nil {
		return nil, err
	}
	stageArgs := make([]string, 0, len(kwokStages))
	for _, s := range kwokStages {
		path := filepath.Join(kwokDir, "kustomize", "stage", filepath.FromSlash(s))
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("controlplane: kwok's stage file: %w", err)
		}
		stageArgs = append(stageArgs, "--config="+path)
	}
	if err := InstallKEDACRDs(env.Config); err != nil {
		return nil, err
	}
	// The operator's background audit writes its reports as OpenReports.
	if err := InstallOpenReportsCRDs(env.Config); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	kubeconfig, err := AdminKubeconfig(env, "omnia-cluster-components")
	if err != nil {
		return nil, err
	}
	kubeconfigPath := filepath.Join(dir, "components.kubeconfig")
	if err := os.WriteFile(kubeconfigPath, kubeconfig, 0o600); err != nil {
		return nil, err
	}

	c := &Components{Dir: dir}
	specs := []struct {
		name string
		args []string
	}{
		{"kube-controller-manager", []string{
			"--kubeconfig=" + kubeconfigPath,
			// The delegated authentication and authorization of its
			// (disabled) serving endpoint would otherwise look for an
			// in-cluster configuration.
			"--authentication-kubeconfig=" + kubeconfigPath,
			"--authorization-kubeconfig=" + kubeconfigPath,
			"--leader-elect=false",
			"--secure-port=0",
			// Every controller runs with this kubeconfig's identity: no
			// per-controller ServiceAccount tokens to sign, so no
			// signing key is needed, and the token controllers are off.
			"--use-service-account-credentials=false",
			"--controllers=*,-serviceaccount-token,-bootstrapsigner,-tokencleaner",
			// The default client limit (20 QPS) would make the
			// controller-manager, not the operator, what a scale run
			// (make bench-agents) measures: each agent's Deployment
			// costs it a ReplicaSet, a Pod and their status writes.
			"--kube-api-qps=" + componentQPS,
			"--kube-api-burst=" + componentBurst,
		}},
		{"kube-scheduler", []string{
			"--kubeconfig=" + kubeconfigPath,
			"--authentication-kubeconfig=" + kubeconfigPath,
			"--authorization-kubeconfig=" + kubeconfigPath,
			"--leader-elect=false",
			"--secure-port=0",
			// As for the controller-manager (the default is 50 QPS).
			"--kube-api-qps=" + componentQPS,
			"--kube-api-burst=" + componentBurst,
		}},
		{"kwok", append([]string{
			"--kubeconfig=" + kubeconfigPath,
			"--manage-all-nodes=true",
			// Room for the pod IPs of a scale run (the default /24 has 254).
			"--cidr=10.0.0.0/16",
		}, stageArgs...)},
	}
	for _, s := range specs {
		p, err := startComponent(filepath.Join(binDir, s.name), s.name, s.args, dir)
		if err != nil {
			c.Stop()
			return nil, err
		}
		c.procs = append(c.procs, p)
	}
	if err := c.waitReady(env.Config, 2*time.Minute); err != nil {
		err = fmt.Errorf("%w\n%s", err, c.LogTails(40))
		c.Stop()
		return nil, err
	}
	return c, nil
}

func startComponent(binary, name string, args []string, dir string) (*component, error) {
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// kwok reads ~/.kwok/kwok.yaml unless told otherwise: a private home
	// keeps a developer's own configuration out.
	cmd.Env = append(os.Environ(), "HOME="+dir)
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("controlplane: starting %s: %w", name, err)
	}
	p := &component{name: name, cmd: cmd, logPath: logPath, exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait(); _ = logFile.Close() }()
	return p, nil
}

// waitReady waits until the simulated Node is Ready (kwok acts) and the
// default ServiceAccount exists (the controller-manager acts), failing early
// when a component exits.
func (c *Components) waitReady(cfg *rest.Config, timeout time.Duration) error {
	cl, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := EnsureNode(ctx, cl, NodeName); err != nil {
		return err
	}
	err = wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if err := c.exitedEarly(); err != nil {
			return false, err
		}
		node := &corev1.Node{}
		if err := cl.Get(ctx, client.ObjectKey{Name: NodeName}, node); err != nil {
			return false, nil
		}
		if !nodeReady(node) {
			return false, nil
		}
		sa := &corev1.ServiceAccount{}
		return cl.Get(ctx, client.ObjectKey{Namespace: metav1.NamespaceDefault, Name: "default"}, sa) == nil, nil
	})
	if err != nil {
		return fmt.Errorf("controlplane: the cluster components did not become ready (Node %s Ready, ServiceAccount default/default) within %s: %w", NodeName, timeout, err)
	}
	return nil
}

// EnsureNode creates the simulated Node if it does not exist. The
// annotation and labels are those kwok's documentation gives its fake
// Nodes; its NoSchedule taint is left out: it keeps real pods off fake
// Nodes in a cluster that also has real ones, and here every Node is fake.
func EnsureNode(ctx context.Context, cl client.Client, name string) error {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: name,
		Annotations: map[string]string{
			"kwok.x-k8s.io/node":           "fake",
			"node.alpha.kubernetes.io/ttl": "0",
		},
		Labels: map[string]string{
			"kubernetes.io/arch":            "amd64",
			"kubernetes.io/os":              "linux",
			"kubernetes.io/hostname":        name,
			"kubernetes.io/role":            "agent",
			"node-role.kubernetes.io/agent": "",
			"type":                          "kwok",
		},
	}}
	if err := cl.Create(ctx, node); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("controlplane: creating Node %s: %w", name, err)
	}
	return nil
}

func nodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// exitedEarly reports a component that has exited.
func (c *Components) exitedEarly() error {
	for _, p := range c.procs {
		select {
		case err := <-p.exited:
			p.exited <- err
			return fmt.Errorf("%s exited: %v (log: %s)", p.name, err, p.logPath)
		default:
		}
	}
	return nil
}

// Exited delivers the first component exit (name and error), for `make run`.
func (c *Components) Exited() <-chan error {
	out := make(chan error, 1)
	for _, p := range c.procs {
		go func() {
			err := <-p.exited
			p.exited <- err
			select {
			case out <- fmt.Errorf("%s exited: %v (log: %s)", p.name, err, p.logPath):
			default:
			}
		}()
	}
	return out
}

// LogPaths names each component's log file.
func (c *Components) LogPaths() map[string]string {
	out := map[string]string{}
	for _, p := range c.procs {
		out[p.name] = p.logPath
	}
	return out
}

// LogTails returns the last lines of each component's log, for a failing
// test's output.
func (c *Components) LogTails(lines int) string {
	var b strings.Builder
	for _, p := range c.procs {
		data, err := os.ReadFile(p.logPath)
		if err != nil {
			fmt.Fprintf(&b, "--- %s: %v\n", p.name, err)
			continue
		}
		all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(all) > lines {
			all = all[len(all)-lines:]
		}
		fmt.Fprintf(&b, "--- %s (last %d lines of %s)\n%s\n", p.name, len(all), p.logPath, strings.Join(all, "\n"))
	}
	return b.String()
}

// Stop ends every component (SIGTERM, then SIGKILL after
// componentStopTimeout), the last started first.
func (c *Components) Stop() {
	if c == nil {
		return
	}
	for i := len(c.procs) - 1; i >= 0; i-- {
		p := c.procs[i]
		if p.cmd.Process == nil {
			continue
		}
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-p.exited:
			p.exited <- err
		case <-time.After(componentStopTimeout):
			_ = p.cmd.Process.Kill()
			p.exited <- <-p.exited
		}
	}
}
