package rules

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/altairalabs/omnia/rules/schema"
)

// strictCase is one manifest (and, on update, the stored object) and the
// unknown-field and metadata findings Full must report, as "<rule ID>
// <field>".
type strictCase struct {
	name   string
	obj    func(t *testing.T) map[string]any
	old    func(t *testing.T) map[string]any // the stored object; nil on create
	want   []string
	detail map[string]string // rule ID -> substring of its message
}

// strictFindings keeps the findings of the rules under test here: unknown
// fields and object metadata.
func strictFindings(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		if strings.HasSuffix(f.RuleID, "/schema:"+UnknownFieldName) || strings.Contains(f.RuleID, "/schema:metadata") {
			out = append(out, f.RuleID+" "+f.Field)
		}
	}
	slices.Sort(out)
	return out
}

// provider returns the valid base Provider as a manifest, mutated.
func strictProvider(mutate func(u map[string]any)) func(t *testing.T) map[string]any {
	return func(t *testing.T) map[string]any {
		u := toUnstructured(t, providerBase())
		if mutate != nil {
			mutate(u)
		}
		return u
	}
}

func strictMeta(u map[string]any) map[string]any { return u["metadata"].(map[string]any) }

func strictSpec(u map[string]any) map[string]any { return u["spec"].(map[string]any) }

// strictStored is the base Provider as the API server stores it: with the
// system fields a manifest never carries.
func strictStored(t *testing.T) map[string]any {
	return strictProvider(func(u map[string]any) {
		m := strictMeta(u)
		m["uid"] = "0b5d5c4e-6c1f-4d57-9a53-3f1c2f0e7a11"
		m["resourceVersion"] = "4711"
		m["generation"] = int64(3)
		m["creationTimestamp"] = "2026-01-02T03:04:05Z"
	})(t)
}

// TestStrictUnknownFields: every field a kind's schema does not declare, at
// any depth and under metadata, is a deny finding <kind>/schema:unknown-field
// at its path with the API server's strict decoding message — as kubectl
// apply (strict field validation) is refused — except a removed field owned
// by a retired-field rule, which reports that rule alone.
func TestStrictUnknownFields(t *testing.T) {
	cases := []strictCase{
		{name: "valid Provider", obj: strictProvider(nil)},
		{name: "typo spec.modle", obj: strictProvider(func(u map[string]any) { strictSpec(u)["modle"] = "claude-3" }),
			want:   []string{"provider/schema:unknown-field spec.modle"},
			detail: map[string]string{"provider/schema:unknown-field": `unknown field "spec.modle"`}},
		{name: "unknown field nested in an object", obj: strictProvider(func(u map[string]any) {
			strictSpec(u)["credential"].(map[string]any)["secretRef"].(map[string]any)["nmae"] = "x"
		}), want: []string{"provider/schema:unknown-field spec.credential.secretRef.nmae"}},
		{name: "unknown field in a list item", obj: func(t *testing.T) map[string]any {
			u := toUnstructured(t, agentRuntimeBase())
			strictSpec(u)["facades"].([]any)[0].(map[string]any)["prot"] = int64(8080)
			return u
		}, want: []string{"agentruntime/schema:unknown-field spec.facades[0].prot"}},
		{name: "unknown top-level field", obj: strictProvider(func(u map[string]any) { u["sepc"] = map[string]any{} }),
			want: []string{"provider/schema:unknown-field sepc"}},
		{name: "typo metadata.lables", obj: strictProvider(func(u map[string]any) { strictMeta(u)["lables"] = map[string]any{"a": "b"} }),
			want:   []string{"provider/schema:unknown-field metadata.lables"},
			detail: map[string]string{"provider/schema:unknown-field": `unknown field "metadata.lables"`}},
		{name: "removed loadTest.budgetLimit reports its retired rule only", obj: func(t *testing.T) map[string]any {
			u := toUnstructured(t, arenaJobValid())
			strictSpec(u)["loadTest"].(map[string]any)["budgetLimit"] = "25.00"
			return u
		}},
	}
	runStrictCases(t, cases)
}

// TestStrictMetadata: metadata is validated as the API server validates a
// custom resource's (apimachinery's ValidateObjectMetaDeclaratively with the
// DNS-subdomain name rule), each error a derived
// <kind>/schema:metadata.<field>:<constraint> finding; what the client or the
// API server fills in (the request's namespace, a generated name, the stored
// system fields on update) is not blamed on the manifest.
func TestStrictMetadata(t *testing.T) {
	longName := strings.Repeat("a", 254)
	bigAnnotation := strings.Repeat("x", 256*1024)
	cases := []strictCase{
		{name: "name a DNS subdomain", obj: strictProvider(func(u map[string]any) { strictMeta(u)["name"] = "claude.prod-1" })},
		{name: "name with an underscore", obj: strictProvider(func(u map[string]any) { strictMeta(u)["name"] = "Claude_Prod" }),
			want:   []string{"provider/schema:metadata.name:invalid metadata.name"},
			detail: map[string]string{"provider/schema:metadata.name:invalid": "RFC 1123 subdomain"}},
		{name: "name longer than 253", obj: strictProvider(func(u map[string]any) { strictMeta(u)["name"] = longName }),
			want: []string{"provider/schema:metadata.name:invalid metadata.name"}},
		{name: "no name", obj: strictProvider(func(u map[string]any) { delete(strictMeta(u), "name") }),
			want: []string{"provider/schema:metadata.name:required metadata.name"}},
		{name: "generateName instead of a name", obj: strictProvider(func(u map[string]any) {
			m := strictMeta(u)
			delete(m, "name")
			m["generateName"] = "claude-"
		})},
		{name: "generateName not a DNS subdomain", obj: strictProvider(func(u map[string]any) {
			m := strictMeta(u)
			delete(m, "name")
			m["generateName"] = "Claude_"
		}), want: []string{"provider/schema:metadata.generateName:invalid metadata.generateName", "provider/schema:metadata.name:invalid metadata.name"}},
		{name: "no namespace: the request's namespace fills it", obj: strictProvider(func(u map[string]any) { delete(strictMeta(u), "namespace") })},
		{name: "namespace not a DNS label", obj: strictProvider(func(u map[string]any) { strictMeta(u)["namespace"] = "team.a" }),
			want: []string{"provider/schema:metadata.namespace:invalid metadata.namespace"}},
		{name: "cluster-scoped Workspace with a namespace: the API server clears it", obj: func(t *testing.T) map[string]any {
			return map[string]any{
				"apiVersion": "omnia.altairalabs.ai/v1alpha1", "kind": "Workspace",
				"metadata": map[string]any{"name": "acme", "namespace": "default"},
				"spec":     map[string]any{},
			}
		}},
		{name: "valid labels and annotations", obj: strictProvider(func(u map[string]any) {
			m := strictMeta(u)
			m["labels"] = map[string]any{"app.kubernetes.io/name": "claude", "tier": ""}
			m["annotations"] = map[string]any{"example.com/Owner": "team a: on call"}
		})},
		{name: "label key with a space", obj: strictProvider(func(u map[string]any) { strictMeta(u)["labels"] = map[string]any{"team name": "a"} }),
			want: []string{"provider/schema:metadata.labels:invalid metadata.labels"}},
		{name: "label value with a slash", obj: strictProvider(func(u map[string]any) { strictMeta(u)["labels"] = map[string]any{"team": "a/b"} }),
			want: []string{"provider/schema:metadata.labels:invalid metadata.labels"}},
		{name: "annotation key with two slashes", obj: strictProvider(func(u map[string]any) { strictMeta(u)["annotations"] = map[string]any{"a/b/c": "x"} }),
			want: []string{"provider/schema:metadata.annotations:invalid metadata.annotations"}},
		{name: "annotations over 256 KiB", obj: strictProvider(func(u map[string]any) {
			strictMeta(u)["annotations"] = map[string]any{"example.com/blob": bigAnnotation}
		}), want: []string{"provider/schema:metadata.annotations:maxLength metadata.annotations"}},
		{name: "labels not a map", obj: strictProvider(func(u map[string]any) { strictMeta(u)["labels"] = "tier=gold" }),
			want: []string{"provider/schema:metadata:invalid metadata"}},
		{name: "update of a manifest without the stored system fields", obj: strictProvider(func(u map[string]any) {
			strictMeta(u)["labels"] = map[string]any{"tier": "gold"}
		}), old: strictStored},
		{name: "update adding an invalid label", obj: strictProvider(func(u map[string]any) {
			strictMeta(u)["labels"] = map[string]any{"tier": "gold/1"}
		}), old: strictStored, want: []string{"provider/schema:metadata.labels:invalid metadata.labels"}},
		{name: "update adding a finalizer that is not a qualified name", obj: strictProvider(func(u map[string]any) {
			strictMeta(u)["finalizers"] = []any{"example.com/cleanup", "clean up"}
		}), old: strictStored, want: []string{"provider/schema:metadata.finalizers:invalid metadata.finalizers"}},
		{name: "update renaming the object", obj: strictProvider(func(u map[string]any) { strictMeta(u)["name"] = "claude-2" }),
			old: strictStored, want: []string{"provider/schema:metadata.name:invalid metadata.name"},
			detail: map[string]string{"provider/schema:metadata.name:invalid": "field is immutable"}},
	}
	runStrictCases(t, cases)
}

func runStrictCases(t *testing.T, cases []strictCase) {
	t.Helper()
	sv, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := tc.obj(t)
			var old map[string]any
			if tc.old != nil {
				old = tc.old(t)
			}
			fs, err := Full(context.Background(), sv, Default, obj, old, NoFacts{}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if got := strictFindings(fs); !slices.Equal(got, want) {
				t.Errorf("findings = %q, want %q\nall: %v", got, want, fs)
			}
			for _, f := range fs {
				if !slices.Contains(want, f.RuleID+" "+f.Field) {
					continue
				}
				if f.Severity != SeverityDeny || f.Source != SourceSchema || f.Stage != StageAdmission {
					t.Errorf("%s: severity %s source %s stage %s, want a deny finding of the schema at admission", f.RuleID, f.Severity, f.Source, f.Stage)
				}
				if sub, ok := tc.detail[f.RuleID]; ok && !strings.Contains(f.Message, sub) {
					t.Errorf("%s message %q does not contain %q", f.RuleID, f.Message, sub)
				}
			}
		})
	}
}

// TestStrictFindingsAreNotRatcheted: strict decoding refuses an unknown or
// removed field on every request, so FullUpdate (the deploy API's update
// path, with the Go rules' ratchet) keeps refusing one the old manifest
// already had — including a removed field reported by its (Go)
// retired-field rule — and an update without it is admitted.
func TestStrictFindingsAreNotRatcheted(t *testing.T) {
	sv, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	withBudget := func(t *testing.T) map[string]any {
		u := toUnstructured(t, arenaJobValid())
		strictSpec(u)["loadTest"].(map[string]any)["budgetLimit"] = "25.00"
		return u
	}
	withModle := strictProvider(func(u map[string]any) { strictSpec(u)["modle"] = "claude-3" })
	cases := []struct {
		name     string
		old, obj func(t *testing.T) map[string]any
		want     []string
	}{
		{name: "removed field kept on update", old: withBudget, obj: withBudget,
			want: []string{ArenaJobPrunedBudgetLimitRuleID + " spec.loadTest.budgetLimit"}},
		{name: "removed field dropped on update", old: withBudget, obj: func(t *testing.T) map[string]any { return toUnstructured(t, arenaJobValid()) }},
		{name: "unknown field kept on update", old: withModle, obj: withModle,
			want: []string{"provider/schema:unknown-field spec.modle"}},
		{name: "unknown field dropped on update", old: withModle, obj: strictProvider(nil)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := FullUpdate(context.Background(), sv, Default, tc.obj(t), tc.old(t), NoFacts{}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range fs {
				if f.Severity == SeverityDeny {
					got = append(got, f.RuleID+" "+f.Field)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("deny findings = %q, want %q", got, tc.want)
			}
		})
	}
}
