package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/test/controlplane"
)

// kubectlBinary is the kubectl the comparison runs: the machine's own.
const kubectlBinary = "kubectl"

// runKubectl starts the local API server with the CRDs and the webhooks
// registered and the operator serving them (as `make run` does), creates the
// file's namespaces, and times `kubectl apply --dry-run=server -f FILE`: the
// kubectl process's wall clock, so its per-document round trips count, as a
// user would see them. The control plane's start-up is not timed.
func runKubectl(ctx context.Context, cfg config, file string, acc *account) (toolResult, error) {
	res := toolResult{Name: "kubectl", Scope: "every admission-stage rule: the API server's schema and CEL, then the operator's webhook"}
	kubectl, err := exec.LookPath(kubectlBinary)
	if err != nil {
		res.Skipped = "no kubectl on PATH"
		return res, nil
	}
	dir := filepath.Join(cfg.dir, "controlplane")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, err
	}
	fmt.Println("kubectl: starting kube-apiserver, etcd and the operator (webhooks registered)")
	env, op, err := controlplane.WithOperator(controlplane.Options{}, dir)
	if err != nil {
		return res, err
	}
	defer func() {
		op.Stop()
		_ = controlplane.StopEnvironment(env, env.Stop)
	}()
	cl, err := controlplane.NewClient(env.Config)
	if err != nil {
		return res, err
	}
	for _, ns := range acc.Namespaces {
		err := cl.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return res, fmt.Errorf("creating namespace %s: %w", ns, err)
		}
	}
	kubeconfig, err := controlplane.AdminKubeconfig(env, "perf-offline")
	if err != nil {
		return res, err
	}
	kubeconfigPath := filepath.Join(cfg.dir, "kubeconfig")
	if err := os.WriteFile(kubeconfigPath, kubeconfig, 0o600); err != nil {
		return res, err
	}
	if v, err := exec.CommandContext(ctx, kubectl, "--kubeconfig", kubeconfigPath, "version").CombinedOutput(); err == nil {
		res.Notes = append(res.Notes, "kubectl version: "+oneLine(string(v)))
	} else {
		res.Notes = append(res.Notes, "kubectl version failed: "+oneLine(string(v)))
	}

	r, err := measure(ctx, cfg.dir, "kubectl", toolTimeout, nil, kubectl, "--kubeconfig", kubeconfigPath,
		"apply", "--dry-run=server", "-f", file)
	if err != nil {
		return res, err
	}
	res.Run = r
	stdout, err := os.Open(r.Stdout)
	if err != nil {
		return res, err
	}
	defer stdout.Close()
	stderr, err := os.Open(r.Stderr)
	if err != nil {
		return res, err
	}
	defer stderr.Close()
	kr, err := parseKubectl(stdout, stderr, acc)
	if err != nil {
		return res, err
	}
	if kr.Created+kr.Refusals != acc.Documents {
		res.Notes = append(res.Notes, fmt.Sprintf("kubectl reported %d documents accepted and %d refused of %d", kr.Created, kr.Refusals, acc.Documents))
	}
	if kr.Unattributed > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d of kubectl's refusals could not be tied to a document (counted as missed)", kr.Unattributed))
	}
	res.Compare = compare(acc.Rules, acc.expected(), kr.Flagged)
	return res, nil
}
