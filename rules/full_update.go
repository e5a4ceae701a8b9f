package rules

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/altairalabs/omnia/rules/schema"
)

// FullUpdate is Full for an update from old to obj with the update ratchet
// (ratchet.go) applied to the Go rules' findings, so the deploy API and
// omniactl judge an update as the webhook does: only what the update adds may
// refuse, and an update that leaves spec unchanged or is made to a
// Terminating object is never refused. The old manifest is judged as a
// create, with the same catalog, facts and options. With old nil it is Full.
//
// Schema findings are left as the schema validator reports them: it already
// applies the API server's own CRD validation ratcheting (a value the update
// leaves unchanged is not judged), and a second, finding-level ratchet here
// would admit what the API server refuses. So are removed fields reported by their
// retired-field rules (Go rules, but strict decoding refuses them on every
// request).
func FullUpdate(ctx context.Context, sv *schema.Validator, cat *Catalog, obj, old map[string]any, facts Facts, opts Options) ([]Finding, error) {
	findings, err := Full(ctx, sv, cat, obj, old, facts, opts)
	if err != nil || old == nil {
		return findings, err
	}
	kind, _ := obj["kind"].(string)
	var schema, goFindings []Finding
	for _, f := range findings {
		if f.Source == SourceGo && !cat.StrictDecoding(kind, f) {
			goFindings = append(goFindings, f)
		} else {
			schema = append(schema, f)
		}
	}
	goFindings = RatchetUpdate(&unstructured.Unstructured{Object: obj}, &unstructured.Unstructured{Object: old}, goFindings, func() []Finding {
		// An old manifest that no longer evaluates has no findings to
		// keep: the update is judged as a create.
		oldFindings, err := Full(ctx, sv, cat, old, nil, facts, opts)
		if err != nil {
			return nil
		}
		return oldFindings
	})
	out := append(schema, goFindings...)
	SortFindings(out)
	return out, nil
}
