package manifests

import (
	"io/fs"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/config/crd"
)

// TestEverySpecListIsBounded: every array under a kind's
// spec in the CRDs the API server and omniactl use carries a maxItems, so
// no object a tenant writes holds an unbounded list. hack/crdbounds sets
// the ones no marker sets; this fails if a CRD is regenerated without it.
func TestEverySpecListIsBounded(t *testing.T) {
	files, err := fs.Glob(crd.Bases, "bases/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs embedded: %v", err)
	}
	lists := 0
	for _, f := range files {
		raw, err := fs.ReadFile(crd.Bases, f)
		if err != nil {
			t.Fatal(err)
		}
		var c apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(raw, &c); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, v := range c.Spec.Versions {
			spec, ok := v.Schema.OpenAPIV3Schema.Properties["spec"]
			if !ok {
				continue
			}
			var walk func(path string, s *apiextensionsv1.JSONSchemaProps)
			walk = func(path string, s *apiextensionsv1.JSONSchemaProps) {
				if s.Type == "array" {
					lists++
					if s.MaxItems == nil {
						t.Errorf("%s %s: list without maxItems", c.Spec.Names.Kind, path)
					}
					if s.Items != nil && s.Items.Schema != nil {
						walk(path+"[]", s.Items.Schema)
					}
				}
				for k, p := range s.Properties {
					walk(path+"."+k, &p)
				}
				if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
					walk(path+".*", s.AdditionalProperties.Schema)
				}
			}
			walk("spec", &spec)
		}
	}
	if lists < 100 {
		t.Errorf("found %d spec lists; the walk is not reaching them", lists)
	}
}
