package controlplane

import (
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// The setup and teardown every e2e suite that runs the operator binary
// shares (test/e2e and its per-group packages, through test/e2e/framework):
// one client with the project's kinds, the operator stopped with its
// permission refusals checked, the cluster stopped, and its logs kept only
// when a spec failed.

// NewClient returns a client for cfg whose scheme holds client-go's kinds,
// the omnia.altairalabs.ai kinds, and what each of extra adds (e.g. the
// Gateway API's Install).
func NewClient(cfg *rest.Config, extra ...func(*runtime.Scheme) error) (client.Client, error) {
	scheme := runtime.NewScheme()
	for _, add := range append([]func(*runtime.Scheme) error{clientgoscheme.AddToScheme, v1alpha1.AddToScheme}, extra...) {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	return client.New(cfg, client.Options{Scheme: scheme})
}

// StopChecked stops the operator and fails when the API server refused it
// a permission: it runs as its ServiceAccount with the generated RBAC, so a
// verb a +kubebuilder:rbac marker lacks shows up as a refusal in its log.
func (op *Operator) StopChecked() error {
	op.Stop()
	forbidden, err := op.Forbidden()
	if err != nil {
		return err
	}
	if len(forbidden) > 0 {
		return fmt.Errorf("the API server refused the operator permissions (fix the +kubebuilder:rbac markers):\n%s", strings.Join(forbidden, "\n"))
	}
	return nil
}

// StopEnvironment removes the webhooks the operator served from env's API
// server, so nothing calls a stopped operator while it shuts down, then
// stops it with stop (the Cluster's or the Environment's own Stop).
func StopEnvironment(env *envtest.Environment, stop func() error) error {
	RemoveWebhooks(env)
	return stop()
}

// KeepLogsIfFailed removes dir, where the operator and the cluster's
// components logged, unless failed; then it says on w where they are kept.
func KeepLogsIfFailed(dir string, failed bool, w io.Writer) {
	if !failed {
		_ = os.RemoveAll(dir)
		return
	}
	fmt.Fprintf(w, "operator and cluster component logs kept in %s\n", dir)
}
