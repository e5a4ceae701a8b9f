package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/hack/perf/clusterbench"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/test/controlplane"
)

// baseline is `-baseline`: the floor the local cluster itself sets. With no
// operator, it creates each agent's children directly, the objects the
// operator would apply (built by the operator's own builders from the
// benchmark's agent spec): ServiceAccount, Role, RoleBinding, Service and
// Deployment, with the same 16 creators, and reports the time until every
// Deployment has an available replica. Whatever the operator does, an
// agent is not Running before its Deployment is available, so this is what
// the API server, the controller-manager, the scheduler and kwok need on
// this machine for N agents, before any Omnia object or reconcile.
func baseline(ctx context.Context, cfg config, cluster *controlplane.Cluster) error {
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	admin, c, err := clusterbench.AdminClient(cluster.Config)
	if err != nil {
		return err
	}
	vendor := clusterbench.LocalVendor()
	defer vendor.Close()
	for i := 0; i < cfg.n; i += agentsPerNamespace {
		if err := createNamespace(ctx, c, i); err != nil {
			return err
		}
	}
	before, err := clusterbench.APIRequests(ctx, admin)
	if err != nil {
		return err
	}
	t0 := time.Now()
	var created atomic.Int64
	var firstErr error
	var errOnce sync.Once
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < cfg.concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := createChildren(ctx, c, i, vendor.URL); err != nil {
					errOnce.Do(func() { firstErr = err; cancel() })
					return
				}
				created.Add(1)
			}
		}()
	}
	go func() {
		defer close(next)
		for i := 0; i < cfg.n; i++ {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	lastReport := time.Now()
	for {
		list := &appsv1.DeploymentList{}
		if err := c.List(ctx, list); err != nil {
			if firstErr != nil {
				return firstErr
			}
			return fmt.Errorf("listing Deployments: %w", err)
		}
		available := 0
		for _, d := range list.Items {
			if d.Status.AvailableReplicas > 0 {
				available++
			}
		}
		if available == cfg.n {
			break
		}
		if time.Since(lastReport) > 5*time.Second {
			fmt.Printf("  %6.1fs created %d, available %d\n", time.Since(t0).Seconds(), created.Load(), available)
			lastReport = time.Now()
		}
		select {
		// A list of Deployments every second: a small share of the API
		// server next to what it measures.
		case <-time.After(time.Second):
		case <-ctx.Done():
			if firstErr != nil {
				return firstErr
			}
			return fmt.Errorf("waiting for available Deployments: %w", ctx.Err())
		}
	}
	wg.Wait()
	available := time.Since(t0)
	after, err := clusterbench.APIRequests(ctx, admin)
	if err != nil {
		return err
	}
	ramp := clusterbench.RequestDelta(before, after)
	fmt.Printf("\nbaseline (N=%d, no operator: each agent's ServiceAccount, Role, RoleBinding, Service and Deployment created directly, %d creators)\n", cfg.n, cfg.concurrency)
	fmt.Printf("  every Deployment available after   %s\n", available.Round(time.Millisecond))
	fmt.Printf("  API requests until then (every client; by resource and verb, at least N/2; mean server time):\n")
	for _, l := range clusterbench.RequestLines(ramp, float64(cfg.n)/2) {
		fmt.Printf("    %s\n", l)
	}
	fmt.Printf("  ClusterIP allocations              %s\n", clusterbench.ClusterIPLine(ramp))
	return nil
}

// createChildren creates agent i's children as the operator would build
// them for the benchmark's agent (objects.go), resolved to its Provider and
// pack.
func createChildren(ctx context.Context, c client.Client, i int, baseURL string) error {
	ns := namespaceOf(i)
	name := fmt.Sprintf("agent-%d", i)
	pack := fmt.Sprintf("pack-%d", i)
	ar := &v1alpha1.AgentRuntime{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: "00000000-0000-0000-0000-000000000000"},
		Spec:       agentSpec(name, pack),
	}
	provider := &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: providerSpec(baseURL)}
	res := workload.Resolved{
		// The operator's default images (cmd/omnia-operator flags); kwok
		// runs no container, so only their size in the spec matters.
		RuntimeImage:      "ghcr.io/altairalabs/omnia-runtime:latest",
		FacadeImage:       "ghcr.io/altairalabs/omnia-facade:latest",
		PolicyBrokerImage: "ghcr.io/altairalabs/omnia-policy-broker:latest",
		PromptPack:        &workload.ResolvedPromptPack{PackName: pack, Version: packVersion, ConfigMapName: pack},
		Providers:         map[string]workload.ResolvedProvider{"default": {Provider: provider, SecretKey: "ANTHROPIC_API_KEY"}},
	}
	d, _, err := workload.Deployment(ar, res)
	if err != nil {
		return err
	}
	for _, o := range []client.Object{workload.ServiceAccount(ar), workload.Role(ar), workload.RoleBinding(ar, res), workload.Service(ar), d} {
		// No owner: the AgentRuntime does not exist here.
		o.SetOwnerReferences(nil)
		o.SetResourceVersion("")
		if err := c.Create(ctx, o); err != nil {
			return fmt.Errorf("%T %s/%s: %w", o, ns, o.GetName(), err)
		}
	}
	return nil
}
