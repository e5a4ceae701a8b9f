package controlplane

import (
	"fmt"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// rbacKinds are the kinds InstallOperatorRBACFrom takes from a build: the
// operator's identity and what it is granted, nothing it would run.
var rbacKinds = map[string]bool{
	"ServiceAccount": true, "ClusterRole": true, "ClusterRoleBinding": true, "Role": true, "RoleBinding": true,
}

// KustomizeRBAC builds the kustomization dir (relative to the repository
// root) as `kubectl kustomize` does (krusty, the library kubectl embeds)
// and returns its RBAC objects.
func KustomizeRBAC(dir string) ([]*unstructured.Unstructured, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(root, dir))
	if err != nil {
		return nil, fmt.Errorf("controlplane: kustomize build %s: %w", dir, err)
	}
	var out []*unstructured.Unstructured
	for _, r := range m.Resources() {
		if !rbacKinds[r.GetKind()] {
			continue
		}
		obj, err := r.Map()
		if err != nil {
			return nil, fmt.Errorf("controlplane: %s %s from %s: %w", r.GetKind(), r.GetName(), dir, err)
		}
		out = append(out, &unstructured.Unstructured{Object: obj})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("controlplane: %s builds no RBAC", dir)
	}
	return out, nil
}
