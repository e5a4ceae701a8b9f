package catalog

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/workspace"
)

// ErrWorkspaceNotFound: no Workspace has the URL's name (404).
var ErrWorkspaceNotFound = workspace.ErrNotFound

// MaxCachedIndexes bounds the indexes a Loader keeps (one per workspace).
const MaxCachedIndexes = 64

// Loader reads a workspace's objects from the manager's informer cache —
// every read is local, no request reaches the API server — and indexes
// them, keeping each workspace's last index while none of its objects has
// changed (same UIDs and resourceVersions), so a request over an unchanged
// workspace costs a cache list, not a rebuild.
type Loader struct {
	Reader client.Reader

	mu      sync.Mutex
	indexes map[string]cachedIndex
}

type cachedIndex struct {
	key [sha256.Size]byte
	ix  *Index
}

// Load returns the index of workspace. The Workspace (cluster-scoped)
// names the namespace. The cached objects are listed without a deep copy:
// Build only reads them and copies what it keeps.
func (l *Loader) Load(ctx context.Context, name string) (*Index, error) {
	ns, err := workspace.Namespace(ctx, l.Reader, name)
	if err != nil {
		return nil, err
	}
	opts := []client.ListOption{client.InNamespace(ns), client.UnsafeDisableDeepCopy}
	var (
		trs v1alpha1.ToolRegistryList
		sss v1alpha1.SkillSourceList
		ps  v1alpha1.ProviderList
		ars v1alpha1.AgentRuntimeList
		pps v1alpha1.PromptPackList
	)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", ns)
	for _, list := range []client.ObjectList{&trs, &sss, &ps, &ars, &pps} {
		if err := l.Reader.List(ctx, list, opts...); err != nil {
			return nil, fmt.Errorf("listing %T in namespace %s: %w", list, ns, err)
		}
		fmt.Fprintf(h, "%T\x00", list)
	}
	for _, o := range objectsOf(&trs, &sss, &ps, &ars, &pps) {
		fmt.Fprintf(h, "%s\x00%s\x00", o.GetUID(), o.GetResourceVersion())
	}
	var key [sha256.Size]byte
	copy(key[:], h.Sum(nil))

	l.mu.Lock()
	c, ok := l.indexes[name]
	l.mu.Unlock()
	if ok && c.key == key {
		return c.ix, nil
	}
	ix := Build(Objects{ToolRegistries: trs.Items, SkillSources: sss.Items, Providers: ps.Items, Agents: ars.Items, PromptPacks: pps.Items})
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.indexes == nil {
		l.indexes = map[string]cachedIndex{}
	}
	if _, ok := l.indexes[name]; !ok && len(l.indexes) >= MaxCachedIndexes {
		// Full: drop one other workspace's index (it is rebuilt on its
		// next request). Which one does not matter for correctness.
		for k := range l.indexes {
			delete(l.indexes, k)
			break
		}
	}
	l.indexes[name] = cachedIndex{key: key, ix: ix}
	return ix, nil
}

// objectsOf is every object of the lists, in list order.
func objectsOf(trs *v1alpha1.ToolRegistryList, sss *v1alpha1.SkillSourceList, ps *v1alpha1.ProviderList,
	ars *v1alpha1.AgentRuntimeList, pps *v1alpha1.PromptPackList) []client.Object {
	out := make([]client.Object, 0, len(trs.Items)+len(sss.Items)+len(ps.Items)+len(ars.Items)+len(pps.Items))
	for i := range trs.Items {
		out = append(out, &trs.Items[i])
	}
	for i := range sss.Items {
		out = append(out, &sss.Items[i])
	}
	for i := range ps.Items {
		out = append(out, &ps.Items[i])
	}
	for i := range ars.Items {
		out = append(out, &ars.Items[i])
	}
	for i := range pps.Items {
		out = append(out, &pps.Items[i])
	}
	return out
}
