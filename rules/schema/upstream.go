package schema

import (
	"context"

	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/common"
)

// celPath picks the CEL evaluation and schema adaptor of one evaluation.
type celPath int

const (
	planCEL celPath = iota
	upstreamCEL
)

// ValidateUpstream is ValidateCreate (old nil) or ValidateUpdate with the
// API server's own CEL validator (apiextensions' schema/cel.Validator,
// built on first use) and schema adaptor in place of the plan compiled once
// per CRD (cel_plan.go) and the adaptors built once (adaptor.go): the
// reference the differential tests hold the plan to, here and in omniactl's
// tests on its generated documents, and the baseline of its benchmarks. It
// gives the same answer, more slowly; nothing in the product calls it.
func (v *Validator) ValidateUpstream(ctx context.Context, obj, old map[string]any) (Result, error) {
	return v.validate(ctx, obj, old, upstreamCEL)
}

// upstreamCEL is the API server's own CEL validator for the kind, compiled
// on first use (only ValidateUpstream needs it).
func (ks *kindSchema) upstreamCEL() *cel.Validator {
	ks.upstreamOnce.Do(func() { ks.upstream = cel.NewValidator(ks.structural, true, ks.limits.perCall) })
	return ks.upstream
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
