// Package controlplane starts the real kube-apiserver and etcd that tests run
// against (controller-runtime envtest, pointed at the binaries that
// hack/build-control-plane.sh builds into bin/) and installs the project's
// generated CRDs.
package controlplane

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/altairalabs/omnia/admission"
)

// Options selects what Start installs.
type Options struct {
	// Kinds limits the CRDs installed to these kinds (e.g. "AgentRuntime").
	// Empty installs every CRD under config/crd/bases.
	Kinds []string
	// Webhooks registers config/webhook/manifests.yaml with the API server,
	// pointed at 127.0.0.1 on a free port over TLS with a generated CA (see
	// env.WebhookInstallOptions for the port and certificate directory).
	Webhooks bool
	// ExcludedNamespace is the namespace the registered webhooks skip (their
	// namespaceSelector) and the operator is told to skip
	// (--excluded-namespace): one value for both. Empty means
	// admission.DefaultExcludedNamespace.
	ExcludedNamespace string
	// Istio installs Istio's CRDs (InstallIstioCRDs) in a StartCluster
	// cluster before anything runs on it, so the operator starts with the
	// mesh available (rollout trafficRouting mode mesh).
	Istio bool
	// OperatorEnv are NAME=value variables for the operator WithOperator
	// and WithOperatorCluster start, over the manifest's (ManagerEnv):
	// e.g. GOMEMLIMIT=off to measure it without its soft memory limit.
	OperatorEnv []string
	// OperatorRBAC, when set, is a kustomization directory (e.g.
	// "config/namespaced") whose ServiceAccount, roles and bindings the
	// operator WithOperator and WithOperatorCluster start runs with, in
	// place of config/default's (InstallOperatorRBACFrom).
	OperatorRBAC string
}

// excludedNamespace returns the namespace the webhooks skip.
func (o Options) excludedNamespace() string {
	if o.ExcludedNamespace != "" {
		return o.ExcludedNamespace
	}
	return admission.DefaultExcludedNamespace
}

// ValidatingWebhooks reads the generated webhook configuration and sets every
// webhook's namespaceSelector to skip excludedNamespace, the value the
// operator is started with.
func ValidatingWebhooks(excludedNamespace string) ([]*admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(root, "config", "webhook", "manifests.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("controlplane: reading the webhook configuration (run `make manifests`): %w", err)
	}
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096).Decode(cfg); err != nil {
		return nil, fmt.Errorf("controlplane: %s: %w", path, err)
	}
	configs := []*admissionregistrationv1.ValidatingWebhookConfiguration{cfg}
	admission.ExcludeNamespace(configs, excludedNamespace)
	return configs, nil
}

// RepoRoot returns the repository root: the nearest directory above the
// working directory holding go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("controlplane: no go.mod above the working directory")
		}
		dir = parent
	}
}

// LoadCRDs reads the generated CRDs, keeping only those of the given kinds
// when kinds is non-empty.
func LoadCRDs(kinds []string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, "config", "crd", "bases")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("controlplane: reading CRDs (run `make manifests`): %w", err)
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096).Decode(crd); err != nil {
			return nil, fmt.Errorf("controlplane: %s: %w", e.Name(), err)
		}
		if len(kinds) > 0 && !slices.Contains(kinds, crd.Spec.Names.Kind) {
			continue
		}
		crds = append(crds, crd)
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("controlplane: no CRDs in %s match kinds %v", dir, kinds)
	}
	return crds, nil
}

// ServiceCIDR is the API server's Service ClusterIP range: a /16, room
// for the Services of thousands of agents.
const ServiceCIDR = "10.96.0.0/16"

// Start starts etcd and kube-apiserver from bin/ and installs the CRDs.
// Stop the returned environment with env.Stop().
func Start(opts Options) (*envtest.Environment, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	binDir := filepath.Join(root, "bin")
	for _, name := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(binDir, name)); err != nil {
			return nil, fmt.Errorf("controlplane: %s missing from %s: run `make control-plane` first", name, binDir)
		}
	}
	crds, err := LoadCRDs(opts.Kinds)
	if err != nil {
		return nil, err
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    binDir,
		CRDs:                     crds,
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	// envtest's default Service range is a /24: 254 ClusterIPs, fewer than
	// the agents of a scale run (make bench-agents), each with a Service.
	env.ControlPlane.GetAPIServer().Configure().Set("service-cluster-ip-range", ServiceCIDR)
	if opts.Webhooks {
		hooks, err := ValidatingWebhooks(opts.excludedNamespace())
		if err != nil {
			return nil, err
		}
		env.WebhookInstallOptions = envtest.WebhookInstallOptions{
			ValidatingWebhooks: hooks,
			LocalServingHost:   "127.0.0.1",
		}
	}
	if _, err := env.Start(); err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("controlplane: starting kube-apiserver and etcd: %w", err)
	}
	return env, nil
}

// KindsFromEnv reads a comma-separated kind list from the named environment
// variable, so a developer can run one kind's tests against only its CRD.
func KindsFromEnv(name string) []string {
	var kinds []string
	for _, k := range strings.Split(os.Getenv(name), ",") {
		if k = strings.TrimSpace(k); k != "" {
			kinds = append(kinds, k)
		}
	}
	return kinds
}

// AdminKubeconfig returns a kubeconfig for a system:masters user of env.
func AdminKubeconfig(env *envtest.Environment, name string) ([]byte, error) {
	user, err := env.ControlPlane.AddUser(envtest.User{Name: name, Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, fmt.Errorf("controlplane: creating user %s: %w", name, err)
	}
	return user.KubeConfig()
}

// WithOperator starts the control plane with the webhooks registered and the
// operator binary serving them, as `make run` does: as its ServiceAccount,
// with the generated RBAC (OperatorKubeconfig), leader election on. dir
// receives the operator's kubeconfig, certificate copy and log. Stop the
// operator before the environment.
func WithOperator(opts Options, dir string, args ...string) (*envtest.Environment, *Operator, error) {
	var env *envtest.Environment
	op, err := withOperator(opts, dir, args, func(opts Options) (*envtest.Environment, func() error, error) {
		var err error
		env, err = Start(opts)
		if err != nil {
			return nil, nil, err
		}
		return env, env.Stop, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return env, op, nil
}

// WithOperatorCluster is WithOperator on a local cluster (StartCluster: the
// controller-manager, the scheduler and a kwok Node too, their logs in dir),
// so the Deployments the operator writes get ready pods. Stop the operator
// before the cluster.
func WithOperatorCluster(opts Options, dir string, args ...string) (*Cluster, *Operator, error) {
	var cluster *Cluster
	op, err := withOperator(opts, dir, args, func(opts Options) (*envtest.Environment, func() error, error) {
		var err error
		cluster, err = StartCluster(opts, dir)
		if err != nil {
			return nil, nil, err
		}
		return cluster.Environment, cluster.Stop, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return cluster, op, nil
}

// withOperator builds the operator, starts the environment with start
// (which also says how to stop it) and the operator against it.
func withOperator(opts Options, dir string, args []string, start func(Options) (*envtest.Environment, func() error, error)) (*Operator, error) {
	opts.Webhooks = true
	binary, err := BuildOperator()
	if err != nil {
		return nil, err
	}
	fail := func(stop func() error, err error) (*Operator, error) {
		_ = os.RemoveAll(filepath.Dir(binary))
		if stop != nil {
			_ = stop()
		}
		return nil, err
	}
	env, stop, err := start(opts)
	if err != nil {
		return fail(nil, err)
	}
	kubeconfig, err := operatorKubeconfig(env.Config, opts.OperatorRBAC)
	if err != nil {
		return fail(stop, err)
	}
	kubeconfigPath := filepath.Join(dir, "operator.kubeconfig")
	if err := os.WriteFile(kubeconfigPath, kubeconfig, 0o600); err != nil {
		return fail(stop, err)
	}
	op, err := StartOperator(OperatorOptions{
		Binary:      binary,
		Kubeconfig:  kubeconfigPath,
		CertDir:     env.WebhookInstallOptions.LocalServingCertDir,
		CAData:      env.WebhookInstallOptions.LocalServingCAData,
		WebhookPort: env.WebhookInstallOptions.LocalServingPort,
		LogPath:     filepath.Join(dir, "operator.log"),
		Env:         opts.OperatorEnv,
		Args:        append([]string{"--excluded-namespace", opts.excludedNamespace()}, args...),
	})
	if err != nil {
		return fail(stop, err)
	}
	op.removeOnStop = filepath.Dir(binary)
	return op, nil
}

// operatorKubeconfig is OperatorKubeconfig, or OperatorKubeconfigFrom when
// rbacDir is set.
func operatorKubeconfig(adminCfg *rest.Config, rbacDir string) ([]byte, error) {
	if rbacDir == "" {
		return OperatorKubeconfig(adminCfg)
	}
	return OperatorKubeconfigFrom(adminCfg, rbacDir)
}
