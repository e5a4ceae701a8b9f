package schema

import (
	"context"
	"fmt"
	"io/fs"
	"sync"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/common"

	"github.com/altairalabs/omnia/config/crd"
)

// Validator runs the generated CRDs' schema rules offline with the API
// server's code: strict decoding of metadata and pruning of unknown fields
// (reported, as strict field validation refuses them), defaulting, object
// metadata validation, OpenAPI validation, list-type invariants and CEL, in
// the API server's order. A Validator is safe for concurrent use.
type Validator struct {
	kinds map[string]*kindSchema
}

var (
	defaultOnce      sync.Once
	defaultValidator *Validator
	defaultErr       error
)

// Default returns the validator for the embedded CRDs, built once.
func Default() (*Validator, error) {
	defaultOnce.Do(func() { defaultValidator, defaultErr = New(crd.Bases) })
	return defaultValidator, defaultErr
}

// New compiles every CRD in fsys (any *.yaml, recursively).
func New(fsys fs.FS) (*Validator, error) {
	return newValidator(fsys, apiServerLimits)
}

func newValidator(fsys fs.FS, limits celLimits) (*Validator, error) {
	crds, err := readCRDs(fsys)
	if err != nil {
		return nil, err
	}
	v := &Validator{kinds: make(map[string]*kindSchema, len(crds))}
	for _, f := range crds {
		ks, err := compile(f.crd, limits)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.path, err)
		}
		v.kinds[ks.kind] = ks
	}
	return v, nil
}

// Knows reports whether the validator has a CRD for kind.
func (v *Validator) Knows(kind string) bool { _, ok := v.kinds[kind]; return ok }

// ValidateCreate evaluates obj as the API server would on create. obj is
// not modified.
func (v *Validator) ValidateCreate(ctx context.Context, obj map[string]any) (Result, error) {
	return v.validate(ctx, obj, nil, planCEL)
}

// ValidateUpdate evaluates obj as the API server would on an update of
// old, the stored object, with CRD validation ratcheting: an error on a
// value the update leaves unchanged is not reported. A nil old is judged
// as a create. Neither object is modified.
func (v *Validator) ValidateUpdate(ctx context.Context, obj, old map[string]any) (Result, error) {
	return v.validate(ctx, obj, old, planCEL)
}

// validate is one evaluation of obj (on update, of old too) with the CEL
// evaluation path chooses: the plan, or the API server's validator.
func (v *Validator) validate(ctx context.Context, obj, old map[string]any, path celPath) (Result, error) {
	kind, _ := obj["kind"].(string)
	ks, ok := v.kinds[kind]
	if !ok {
		return Result{}, fmt.Errorf("no schema for kind %q", kind)
	}
	if apiVersion, _ := obj["apiVersion"].(string); apiVersion != ks.apiVersion {
		return Result{}, fmt.Errorf("%s: apiVersion %q is not served; use %s", kind, apiVersion, ks.apiVersion)
	}
	u, err := normalizeJSON(obj)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", kind, err)
	}
	var oldU map[string]any
	if old != nil {
		if oldU, err = normalizeJSON(old); err != nil {
			return Result{}, fmt.Errorf("%s (old object): %w", kind, err)
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

	return Result{Errors: errs, Pruned: pruned, Object: u}, nil
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
