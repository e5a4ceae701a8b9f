package schema

import (
	"fmt"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// kindSchema is one kind's compiled CRD: the API server's own structural
// schema, OpenAPI validator and CEL validator, built once.
type kindSchema struct {
	kind       string
	apiVersion string
	namespaced bool
	structural *structuralschema.Structural
	// adaptor is structural's CEL adaptor, built once (adaptor.go).
	adaptor   *cachedSchema
	validator apiservervalidation.SchemaValidator
	// accept vouches for the values that certainly pass validator
	// (openapi_accept.go); only the others run it.
	accept *openAPIAcceptor
	// cel is the CRD's CEL rules compiled once (cel_plan.go); nil
	// when the CRD declares none.
	cel    *celPlan
	limits celLimits

	upstreamOnce sync.Once
	upstream     *cel.Validator
}

// celLimits are the CEL cost limits: the API server's, except in the tests
// that reach them with small objects.
type celLimits struct {
	// perCall bounds one rule's evaluation.
	perCall uint64
	// budget bounds all the rules of one object.
	budget int64
}

// apiServerLimits are the API server's CEL cost limits for custom resources.
var apiServerLimits = celLimits{perCall: celconfig.PerCallLimit, budget: celconfig.RuntimeCELCostBudget}

func compile(crdV1 *apiextensionsv1.CustomResourceDefinition, limits celLimits) (*kindSchema, error) {
	if len(crdV1.Spec.Versions) != 1 || crdV1.Spec.Versions[0].Schema == nil {
		return nil, fmt.Errorf("CRD %s: want exactly one version with a schema", crdV1.Name)
	}
	v := crdV1.Spec.Versions[0]
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
		return nil, err
	}
	structural, err := structuralschema.NewStructural(internal)
	if err != nil {
		return nil, err
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal)
	if err != nil {
		return nil, err
	}
	adaptor := newCachedSchema(structural)
	return &kindSchema{
		kind:       crdV1.Spec.Names.Kind,
		apiVersion: crdV1.Spec.Group + "/" + v.Name,
		namespaced: crdV1.Spec.Scope != apiextensionsv1.ClusterScoped,
		structural: structural,
		adaptor:    adaptor,
		validator:  validator,
		accept:     newOpenAPIAcceptor(internal),
		cel:        newCELPlan(structural, adaptor, limits.perCall),
		limits:     limits,
	}, nil
}
