package catalog

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ErrWorkspaceNotFound: no Workspace has the URL's name (404).
var ErrWorkspaceNotFound = errors.New("workspace not found")

// Load reads the workspace's objects from r — the manager's informer cache:
// every read is local, no request reaches the API server — and indexes
// them. The Workspace (cluster-scoped) names the namespace. The cached
// objects are read without a deep copy (Build only reads them and copies
// what it keeps), so a request costs no copy of the whole namespace.
func Load(ctx context.Context, r client.Reader, workspace string) (*Index, error) {
	var ws v1alpha1.Workspace
	if err := r.Get(ctx, client.ObjectKey{Name: workspace}, &ws); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("%w: %q", ErrWorkspaceNotFound, workspace)
		}
		return nil, fmt.Errorf("reading Workspace %q: %w", workspace, err)
	}
	ns := ws.Spec.Namespace.Name
	opts := []client.ListOption{client.InNamespace(ns), client.UnsafeDisableDeepCopy}
	var (
		trs v1alpha1.ToolRegistryList
		sss v1alpha1.SkillSourceList
		ps  v1alpha1.ProviderList
		ars v1alpha1.AgentRuntimeList
		pps v1alpha1.PromptPackList
	)
	for _, l := range []client.ObjectList{&trs, &sss, &ps, &ars, &pps} {
		if err := r.List(ctx, l, opts...); err != nil {
			return nil, fmt.Errorf("listing %T in namespace %s: %w", l, ns, err)
		}
	}
	return Build(Objects{ToolRegistries: trs.Items, SkillSources: sss.Items, Providers: ps.Items, Agents: ars.Items, PromptPacks: pps.Items}), nil
}
