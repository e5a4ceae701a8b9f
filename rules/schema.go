package rules

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/config/crd"
)

// kindSchema is one kind's compiled CRD: the API server's own structural
// schema, OpenAPI validator and CEL validator, built once.
type kindSchema struct {
	kind       string
	apiVersion string
	namespaced bool
	structural *structuralschema.Structural
	// adaptor is structural's CEL adaptor, built once (schema_adaptor.go).
	adaptor   *cachedSchema
	validator apiservervalidation.SchemaValidator
	// accept vouches for the values that certainly pass validator
	// (schema_openapi_accept.go); only the others run it.
	accept *openAPIAcceptor
	// cel is the CRD's CEL rules compiled once (schema_cel_plan.go); nil
	// when the CRD declares none.
	cel    *celPlan
	limits celLimits

	upstreamOnce sync.Once
	upstream     *cel.Validator
}

// upstreamCEL is the API server's own CEL validator for the kind, compiled
// on first use (only ValidateUpstream needs it).
func (ks *kindSchema) upstreamCEL() *cel.Validator {
	ks.upstreamOnce.Do(func() { ks.upstream = cel.NewValidator(ks.structural, true, ks.limits.perCall) })
	return ks.upstream
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

// SchemaValidator runs the generated CRDs' schema rules offline with the API
// server's code: strict decoding of metadata and pruning of unknown fields
// (reported, as strict field validation refuses them), defaulting, object
// metadata validation, OpenAPI validation, list-type invariants and CEL, in
// the API server's order.
type SchemaValidator struct {
	kinds map[string]*kindSchema
}

var (
	defaultSchemaOnce sync.Once
	defaultSchema     *SchemaValidator
	defaultSchemaErr  error
)

// DefaultSchema returns the validator for the embedded CRDs, built once.
func DefaultSchema() (*SchemaValidator, error) {
	defaultSchemaOnce.Do(func() { defaultSchema, defaultSchemaErr = NewSchemaValidator(crd.Bases) })
	return defaultSchema, defaultSchemaErr
}

// NewSchemaValidator compiles every CRD in fsys (any *.yaml, recursively).
func NewSchemaValidator(fsys fs.FS) (*SchemaValidator, error) {
	return newSchemaValidator(fsys, apiServerLimits)
}

func newSchemaValidator(fsys fs.FS, limits celLimits) (*SchemaValidator, error) {
	sv := &SchemaValidator{kinds: map[string]*kindSchema{}}
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
		ks, err := compile(crdV1, limits)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		sv.kinds[ks.kind] = ks
		return nil
	})
	if err != nil {
		return nil, err
	}
	return sv, nil
}

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

// Kinds reports whether the validator knows kind.
func (sv *SchemaValidator) Knows(kind string) bool { _, ok := sv.kinds[kind]; return ok }

// SchemaResult is the outcome of schema evaluation of one object.
type SchemaResult struct {
	// Findings are the schema rules the object breaks.
	Findings []Finding
	// Pruned lists the fields the schema does not declare, at any depth and
	// under metadata, with the paths the API server's strict decoding error
	// names ("unknown field \"spec.modle\""). kubectl apply (strict field
	// validation) is refused for each; a client that does not ask for it
	// has them dropped. Full turns them into findings.
	Pruned []string
	// Object is the object as the API server would store it: defaulted and
	// pruned.
	Object map[string]any
}

// Validate evaluates obj (and old, on update) as the API server would on
// create or update. obj is not modified.
func (sv *SchemaValidator) Validate(ctx context.Context, obj, old map[string]any) (SchemaResult, error) {
	res, err := sv.validate(ctx, obj, old, planCEL)
	if validateObserved != nil {
		validateObserved(ctx, sv, obj, old, res, err)
	}
	return res, err
}

// validateObserved, when set (by this package's tests only), sees every
// Validate call and its answer: the differential test holds each one, on
// every schema case any test evaluates, to ValidateUpstream's.
var validateObserved func(ctx context.Context, sv *SchemaValidator, obj, old map[string]any, res SchemaResult, err error)

// ValidateUpstream is Validate with the API server's own CEL validator
// (apiextensions' schema/cel.Validator, built on first use) and schema
// adaptor in place of the plan compiled once per CRD (schema_cel_plan.go)
// and the adaptors built once (schema_adaptor.go): the reference Validate
// is held to by the differential tests, and the baseline of its
// benchmarks. It gives the same answer, more slowly.
func (sv *SchemaValidator) ValidateUpstream(ctx context.Context, obj, old map[string]any) (SchemaResult, error) {
	return sv.validate(ctx, obj, old, upstreamCEL)
}

// celPath picks the CEL evaluation and schema adaptor of one evaluation.
type celPath int

const (
	planCEL celPath = iota
	upstreamCEL
)

func (sv *SchemaValidator) validate(ctx context.Context, obj, old map[string]any, path celPath) (SchemaResult, error) {
	kind, _ := obj["kind"].(string)
	ks, ok := sv.kinds[kind]
	if !ok {
		return SchemaResult{}, fmt.Errorf("no schema for kind %q", kind)
	}
	if apiVersion, _ := obj["apiVersion"].(string); apiVersion != ks.apiVersion {
		return SchemaResult{}, fmt.Errorf("%s: apiVersion %q is not served; use %s", kind, apiVersion, ks.apiVersion)
	}
	u, err := normalizeJSON(obj)
	if err != nil {
		return SchemaResult{}, fmt.Errorf("%s: %w", kind, err)
	}
	var oldU map[string]any
	if old != nil {
		if oldU, err = normalizeJSON(old); err != nil {
			return SchemaResult{}, fmt.Errorf("%s (old object): %w", kind, err)
		}
	}
	// The decoder's order: metadata first (strictly into ObjectMeta), then
	// the schema's pruning of everything else.
	errs, pruned := validateMetadata(ctx, u, oldU, ks.namespaced)
	pruned = append(pruned, structuralpruning.PruneWithOptions(u, ks.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.Default(u, ks.structural)
	if oldU != nil {
		structuralpruning.Prune(oldU, ks.structural, true)
		structuraldefaulting.Default(oldU, ks.structural)
	}

	var adaptor common.Schema = ks.adaptor
	if path == upstreamCEL {
		adaptor = &model.Structural{Structural: ks.structural}
	}
	var correlated *common.CorrelatedObject
	if oldU == nil {
		// The acceptor only ever vouches for values upstream passes, so
		// skipping upstream then loses no error; every error reported is
		// still upstream's. ValidateUpstream always runs it: the tests that
		// hold Validate to ValidateUpstream hold the acceptor too.
		if path == upstreamCEL || !ks.accept.Accepts(u) {
			errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u, ks.validator)...)
		}
		errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, ks.structural, u)...)
	} else {
		// CRD validation ratcheting, as the API server's customresource
		// strategy does it (GA and locked on since Kubernetes 1.33): an
		// OpenAPI or CEL error on a value the update leaves unchanged is
		// not reported, and list-type invariants are checked only when the
		// stored object met them. Without it omniactl and the deploy API
		// would refuse an update the API server admits.
		correlated = common.NewCorrelatedObject(u, oldU, adaptor)
		errs = append(errs, apiservervalidation.ValidateCustomResourceUpdate(nil, u, oldU, ks.validator, apiservervalidation.WithRatcheting(correlated))...)
		if oldErrs := structurallisttype.ValidateListSetsAndMaps(nil, ks.structural, oldU); len(oldErrs) == 0 {
			errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, ks.structural, u)...)
		}
	}
	if ks.cel == nil {
		// A CRD without CEL rules: the API server has no CEL validator and
		// adds nothing.
	} else if blocked, incomplete := hasBlocking(errs); blocked {
		errs = append(errs, incomplete)
	} else {
		errs = append(errs, ks.evaluateCEL(ctx, u, oldU, correlated, path)...)
	}

	res := SchemaResult{Pruned: pruned, Object: u}
	for _, e := range errs {
		res.Findings = append(res.Findings, schemaFinding(kind, e))
	}
	return res, nil
}

// hasBlocking mirrors the API server's customresource strategy: CEL rules
// are skipped when an earlier error means their inputs cannot be trusted, and
// the refusal says so.
func hasBlocking(errs field.ErrorList) (bool, *field.Error) {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")
		}
	}
	return false, nil
}

var (
	celID      = regexp.MustCompile(`^\[([a-z]+/[a-z0-9]+(?:-[a-z0-9]+)*)\] `)
	listIndex  = regexp.MustCompile(`\[[^\]]*\]`)
	schemaKind = strings.ToLower
)

// schemaFinding turns one API-server field error into a finding. A CEL rule
// carries its ID in its message; a plain OpenAPI constraint gets the derived
// ID <kind>/schema:<field with [] for list items>:<constraint>.
func schemaFinding(kind string, e *field.Error) Finding {
	msg := e.Detail
	id := ""
	if m := celID.FindStringSubmatch(msg); m != nil {
		id = m[1]
	} else if e.Field == "<nil>" {
		id = schemaKind(kind) + "/schema:object:incomplete"
	} else {
		id = SchemaRuleID(kind, e.Field, SchemaConstraint(e.Type, e.Detail))
	}
	f := Finding{
		RuleID:   id,
		Field:    e.Field,
		Severity: SeverityDeny,
		Stage:    StageAdmission,
		Source:   SourceSchema,
		Message:  errorMessage(e),
	}
	if r, ok := Default.Lookup(id); ok {
		f.Reason, f.Condition = r.Reason, r.Condition
	}
	return f
}

// SchemaRuleID derives a plain constraint's stable ID.
func SchemaRuleID(kind, fieldPath, constraint string) string {
	return schemaKind(kind) + "/schema:" + listIndex.ReplaceAllString(fieldPath, "[]") + ":" + constraint
}

// errorMessage renders a field error as the API server does in a cause's
// message (without the field path, which the finding carries).
func errorMessage(e *field.Error) string {
	s := e.ErrorBody()
	return s
}

// SchemaConstraint names the OpenAPI constraint behind a schema error from
// its type and, for a plain invalid value, its detail. An API server status
// cause carries the same two (metav1.CauseType values are field.ErrorType
// values), so a client maps a refusal to the same derived rule ID.
func SchemaConstraint(errType field.ErrorType, detail string) string {
	switch errType {
	case field.ErrorTypeRequired:
		return "required"
	case field.ErrorTypeNotSupported:
		return "enum"
	case field.ErrorTypeTooMany:
		return "maxItems"
	case field.ErrorTypeTooLong:
		return "maxLength"
	case field.ErrorTypeDuplicate:
		return "unique"
	case field.ErrorTypeTypeInvalid:
		return "type"
	case field.ErrorTypeForbidden:
		return "forbidden"
	}
	d := detail
	switch {
	case strings.Contains(d, "should match"):
		return "pattern"
	case strings.Contains(d, "should be less than"):
		return "maximum"
	case strings.Contains(d, "should be greater than"):
		return "minimum"
	case strings.Contains(d, "chars long"):
		return "minLength"
	case strings.Contains(d, "should have at least"):
		return "minItems"
	case strings.Contains(d, "should have at most"):
		return "maxItems"
	case strings.Contains(d, "multiple of"):
		return "multipleOf"
	}
	return "invalid"
}

// evaluateCEL runs the CRD's CEL rules on u (oldU on update, correlated
// with it for ratcheting) with the plan, or with the API server's validator.
func (ks *kindSchema) evaluateCEL(ctx context.Context, u, oldU map[string]any, correlated *common.CorrelatedObject, path celPath) field.ErrorList {
	if path == planCEL {
		return ks.cel.validate(ctx, u, oldU, correlated, ks.limits.budget)
	}
	var opts []cel.Option
	if correlated != nil {
		opts = append(opts, cel.WithRatcheting(correlated))
	}
	var oldArg any
	if oldU != nil {
		oldArg = oldU
	}
	errs, _ := ks.upstreamCEL().Validate(ctx, nil, ks.structural, u, oldArg, ks.limits.budget, opts...)
	return errs
}
