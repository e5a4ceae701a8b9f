package loadgen

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/test/controlplane"
	"github.com/altairalabs/omnia/test/licencetest"
)

// Environment is the local API server with the webhooks registered and
// the operator binary serving them, under an enterprise licence.
type Environment struct {
	Env      *envtest.Environment
	Operator *controlplane.Operator
	// Admin is a client of the API server as system:masters.
	Admin client.Client
	// Dir holds the operator's kubeconfig, log and licence key.
	Dir string
}

// StartLicensed starts the API server and the operator (extra flags in
// args) with a licence key it trusts, and installs an enterprise licence:
// several spec examples use enterprise features (schedules, load tests,
// data generation, several workers) and must be admitted. Leader election
// is off: every replica serves the webhooks whether it leads or not, and a
// lease renewal missed on a CPU-starved machine would stop the operator
// (controller-runtime exits on lost leadership) in the middle of a run.
func StartLicensed(dir string, args ...string) (*Environment, error) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	pub, err := licensing.MarshalPublicKeyPEM(key.Public())
	if err != nil {
		return nil, err
	}
	pubPath := filepath.Join(dir, "license.pub")
	if err := os.WriteFile(pubPath, pub, 0o600); err != nil {
		return nil, err
	}
	env, op, err := controlplane.WithOperator(controlplane.Options{}, dir, append([]string{"--license-public-key", pubPath, "--leader-elect=false"}, args...)...)
	if err != nil {
		return nil, err
	}
	e := &Environment{Env: env, Operator: op, Dir: dir}
	if e.Admin, err = controlplane.NewClient(env.Config); err != nil {
		return nil, errors.Join(err, e.Stop())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := licencetest.InstallLicence(ctx, e.Admin, key, "perf", "omnia perf harness"); err != nil {
		return nil, errors.Join(err, e.Stop())
	}
	return e, nil
}

// Stop stops the operator, deregisters the webhooks (so nothing is left
// refusing writes) and stops the API server.
func (e *Environment) Stop() error {
	e.Operator.Stop()
	return controlplane.StopEnvironment(e.Env, e.Env.Stop)
}

// WaitVerdicts sends every request until each gets its expected verdict:
// the operator reloads the licence Secret asynchronously, and until it has,
// the enterprise examples are refused. It also proves, before anything is
// timed, that the harness's expectations hold.
func WaitVerdicts(ctx context.Context, w *WebhookClient, reqs []Request, timeout time.Duration) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		for i := range reqs {
			if out, why, _ := w.Do(ctx, &reqs[i]); out != OK {
				last = fmt.Sprintf("%s: %s: %s", reqs[i].Case.Name, out, why)
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("loadgen: the webhook did not give the expected verdicts within %s (last: %s): %w", timeout, last, err)
	}
	return nil
}
