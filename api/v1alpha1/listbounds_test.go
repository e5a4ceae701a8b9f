package v1alpha1_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
	"github.com/altairalabs/omnia/test/controlplane"
)

// listBound is one maxItems of a kind's spec, as plainConstraintIDs names
// it (kind/schema:spec.a[].b:maxItems).
type listBound struct {
	kind, apiVersion string
	namespaced       bool
	id               string
	steps            []boundStep // from spec down to the list
	max              int64
	item             *apiextensionsv1.JSONSchemaProps
}

// boundStep is one hop of the path: a property, or "the one item" of a
// list on the way down.
type boundStep struct {
	property string // "" means: the first item of the list above
}

// TestEveryListBoundHolds is the accepted and rejected case of every list
// bound (every list has a maxItems, so no tenant can make a controller
// walk an unbounded one; hack/crdbounds sets the
// ones no marker sets, docs/api-bounds.md lists them). There are about two
// hundred, so the cases are derived from the schema, not written by hand:
// for each bound, an object holding exactly maxItems filler items at that
// list must draw no "Too many" at the list's field, and one holding
// maxItems+1 must be refused there, by the API server and by omniactl's
// offline evaluation alike, with the bound's rule ID. The filler items may
// be invalid in other ways (a required field missing), so only the cause at
// the list's own field is judged. TestEveryPlainConstraintHasCases counts
// every maxItems as covered here, because this test walks the same IDs.
func TestEveryListBoundHolds(t *testing.T) {
	crds, err := controlplane.LoadCRDs(nil)
	if err != nil {
		t.Fatal(err)
	}
	var bounds []listBound
	for _, crd := range crds {
		if !wanted(crd.Spec.Names.Kind) {
			continue
		}
		v := crd.Spec.Versions[0]
		spec := v.Schema.OpenAPIV3Schema.Properties["spec"]
		base := listBound{
			kind:       crd.Spec.Names.Kind,
			apiVersion: crd.Spec.Group + "/" + v.Name,
			namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		}
		bounds = append(bounds, collectBounds(base, strings.ToLower(crd.Spec.Names.Kind), &spec, "spec", nil)...)
	}
	if len(kinds) == 0 && len(bounds) < 100 {
		t.Fatalf("found %d list bounds; the walk is not reaching them", len(bounds))
	}
	for i, b := range bounds {
		t.Run(b.id, func(t *testing.T) {
			field := fieldPath(b.steps)
			tooMany := fmt.Sprintf("must have at most %d items", b.max)
			for _, n := range []int64{b.max, b.max + 1} {
				obj := b.object(fmt.Sprintf("bound-%d-%d", i, n), n)
				_, serverErr := dryRunCreate(t, obj)
				server := serverCauses(serverErr, field)
				offline := offlineFindings(t, obj, field)
				refusedByServer := slices.ContainsFunc(server, func(m string) bool { return strings.Contains(m, tooMany) })
				refusedOffline := slices.ContainsFunc(offline, func(f offlineFinding) bool {
					return f.ruleID == b.id && strings.Contains(f.message, tooMany)
				})
				want := n > b.max
				if refusedByServer != want {
					t.Errorf("%d items at %s: API server refused for the bound = %v, want %v (causes there: %v)", n, field, refusedByServer, want, server)
				}
				if refusedOffline != want {
					t.Errorf("%d items at %s: offline refusal with rule %s = %v, want %v (findings there: %v)", n, field, b.id, refusedOffline, want, offline)
				}
			}
		})
	}
}

// collectBounds walks s the way plainConstraintIDs does and returns every
// array with a maxItems, with the steps that reach it.
func collectBounds(base listBound, kind string, s *apiextensionsv1.JSONSchemaProps, path string, steps []boundStep) []listBound {
	var out []listBound
	if s.Type == "array" && s.MaxItems != nil && s.Items != nil && s.Items.Schema != nil {
		b := base
		b.id = kind + "/schema:" + path + ":maxItems"
		b.steps = slices.Clone(steps)
		b.max = *s.MaxItems
		b.item = s.Items.Schema
		out = append(out, b)
	}
	for name, p := range s.Properties {
		out = append(out, collectBounds(base, kind, &p, path+"."+name, append(slices.Clone(steps), boundStep{property: name}))...)
	}
	if s.Type == "array" && s.Items != nil && s.Items.Schema != nil {
		out = append(out, collectBounds(base, kind, s.Items.Schema, path+"[]", append(slices.Clone(steps), boundStep{}))...)
	}
	return out
}

// object is a kind's object whose spec holds n filler items at the bound's
// list and only the one containing object or item on the way down to it.
func (b listBound) object(name string, n int64) map[string]any {
	items := make([]any, n)
	for i := range items {
		items[i] = filler(b.item, i)
	}
	var value any = items
	for i := len(b.steps) - 1; i >= 0; i-- {
		if b.steps[i].property == "" {
			value = []any{value}
		} else {
			value = map[string]any{b.steps[i].property: value}
		}
	}
	meta := map[string]any{"name": name}
	if b.namespaced {
		meta["namespace"] = "default"
	}
	return map[string]any{"apiVersion": b.apiVersion, "kind": b.kind, "metadata": meta, "spec": value}
}

// filler is the i-th item of a list whose items have schema s: distinct
// where the type allows, so a set or map list draws no duplicate errors
// beside the bound's.
func filler(s *apiextensionsv1.JSONSchemaProps, i int) any {
	switch s.Type {
	case "string":
		return "item-" + strconv.Itoa(i)
	case "integer", "number":
		return int64(i) // JSON numbers decode as int64 or float64
	case "boolean":
		return i%2 == 0
	case "array":
		return []any{}
	default:
		return map[string]any{}
	}
}

// fieldPath is the field the API server names for the list: spec.a[0].b.
func fieldPath(steps []boundStep) string {
	var sb strings.Builder
	sb.WriteString("spec")
	for _, s := range steps {
		if s.property == "" {
			sb.WriteString("[0]")
		} else {
			sb.WriteString("." + s.property)
		}
	}
	return sb.String()
}

// serverCauses lists the messages of the refusal's causes at field.
func serverCauses(err error, field string) []string {
	var status apierrors.APIStatus
	if err == nil || !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	var out []string
	for _, c := range status.Status().Details.Causes {
		if c.Field == field {
			out = append(out, c.Message)
		}
	}
	return out
}

type offlineFinding struct{ ruleID, message string }

// offlineFindings lists omniactl's offline schema findings at field.
func offlineFindings(t *testing.T, obj map[string]any, field string) []offlineFinding {
	t.Helper()
	sv, err := schema.Default()
	if err != nil {
		t.Fatalf("building the offline schema validator: %v", err)
	}
	res, err := rules.ValidateSchema(context.Background(), sv, obj, nil)
	if err != nil {
		t.Fatalf("offline evaluation: %v", err)
	}
	var out []offlineFinding
	for _, f := range res.Findings {
		if f.Field == field {
			out = append(out, offlineFinding{f.RuleID, f.Message})
		}
	}
	return out
}
