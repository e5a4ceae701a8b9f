package schema

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/config/crd"
)

// crdFile is one decoded CRD and the file it came from.
type crdFile struct {
	path string
	crd  *apiextensionsv1.CustomResourceDefinition
}

// readCRDs decodes every CRD in fsys (any *.yaml, recursively), in path
// order.
func readCRDs(fsys fs.FS) ([]crdFile, error) {
	var out []crdFile
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		data, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		crdV1 := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(data, crdV1); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, crdFile{path: path, crd: crdV1})
		return nil
	})
	return out, err
}

var (
	embeddedScopesOnce sync.Once
	embeddedScopes     map[string]apiextensionsv1.ResourceScope
)

// scopes is the scope of every kind of the embedded CRDs, decoded once
// (without compiling their schemas, which costs far more). The CRDs are
// generated and embedded at build time, so one that does not decode is a
// broken build, not an input error.
func scopes() map[string]apiextensionsv1.ResourceScope {
	embeddedScopesOnce.Do(func() {
		crds, err := readCRDs(crd.Bases)
		if err != nil {
			panic(fmt.Sprintf("the embedded CRDs do not decode: %v", err))
		}
		embeddedScopes = make(map[string]apiextensionsv1.ResourceScope, len(crds))
		for _, f := range crds {
			embeddedScopes[f.crd.Spec.Names.Kind] = f.crd.Spec.Scope
		}
	})
	return embeddedScopes
}

// Kinds lists the Omnia kinds that have a CRD (the embedded generated CRDs
// Default compiles), sorted.
func Kinds() []string {
	out := make([]string, 0, len(scopes()))
	for kind := range scopes() {
		out = append(out, kind)
	}
	slices.Sort(out)
	return out
}

// Namespaced reports whether kind's CRD is namespaced (spec.scope), and
// whether kind has a CRD at all.
func Namespaced(kind string) (namespaced, known bool) {
	scope, known := scopes()[kind]
	return known && scope != apiextensionsv1.ClusterScoped, known
}
