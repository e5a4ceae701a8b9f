package merge

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// fill sets every settable field of v, at any depth, to a value derived
// from side ("live" or "desired"), so that the live and desired fills
// differ in every field.
func fill(v reflect.Value, side string, depth int) {
	if depth > 12 {
		return
	}
	if v.Type() == reflect.TypeFor[resource.Quantity]() {
		q := resource.MustParse("1")
		if side == "desired" {
			q = resource.MustParse("2")
		}
		v.Set(reflect.ValueOf(q))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), side, depth+1)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), side, depth+1)
			}
		}
	case reflect.String:
		v.SetString(side)
	case reflect.Bool:
		v.SetBool(side == "desired")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(len(side)))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(len(side)))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(len(side)))
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), side, depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		fill(k, side, depth+1)
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, side, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	}
}

func filledAgent(side string) *v1alpha1.AgentRuntime {
	ar := &v1alpha1.AgentRuntime{}
	fill(reflect.ValueOf(&ar.Spec).Elem(), side, 0)
	return ar
}

// field follows a classification path (no "[]" inside: first list
// element) from v.
func field(v reflect.Value, path string) reflect.Value {
	for _, name := range strings.Split(path, ".") {
		name = strings.TrimSuffix(name, "[]")
		for v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		if v.Kind() == reflect.Slice {
			v = v.Index(0)
		}
		t := v.Type()
		found := false
		for i := 0; i < t.NumField(); i++ {
			if n, _ := jsonName(t.Field(i)); n == name {
				v, found = v.Field(i), true
				break
			}
		}
		if !found {
			panic("no field " + name + " in " + t.String())
		}
	}
	return v
}

// TestMergeHonoursClassification ties the data to the behaviour: with every
// field of live and desired set to different values, each top-level field
// and each child of the runtime, facades and rollout parents ends up
// desired's when IntentOwned and live's when Preserved. promptPackRef's
// children follow the pin rules and are covered by TestMerge.
func TestMergeHonoursClassification(t *testing.T) {
	live, desired := filledAgent("live"), filledAgent("desired")
	desired.Spec.Facades[0].Type = live.Spec.Facades[0].Type // matched by type
	merged, _ := Merge(live, desired, Options{RolloutBlock: true})

	checked := 0
	for _, p := range SpecPaths() {
		parent, nested := parentPath(p)
		if nested && (parent == "promptPackRef" || tierOf(parent) != FieldMerged) || p == "promptPackRef" {
			continue
		}
		tier := tierOf(p)
		if tier == FieldMerged {
			continue
		}
		got := field(reflect.ValueOf(merged.Spec), p).Interface()
		liveV, desiredV := field(reflect.ValueOf(live.Spec), p).Interface(), field(reflect.ValueOf(desired.Spec), p).Interface()
		if reflect.DeepEqual(liveV, desiredV) && p != "facades[].type" {
			t.Fatalf("%s: the fills do not tell live from desired", p)
		}
		want := liveV
		if tier == IntentOwned {
			want = desiredV
		}
		if p == "facades[].handler" {
			want = FacadeHandler
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s (%s): merged has %.120s, want %.120s", p, tier, fmt.Sprintf("%#v", got), fmt.Sprintf("%#v", want))
		}
		checked++
	}
	if checked < 40 {
		t.Fatalf("checked only %d paths", checked)
	}
}

func tierOf(p string) Tier { t, _ := TierOf(p); return t }
