package merge

import (
	"reflect"
	"strings"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// apiPkg is the package whose struct types the classification descends
// into. A field of a type from another package (core/v1 Volume, Affinity,
// ResourceRequirements, EnvVar, Toleration, resource.Quantity,
// runtime.RawExtension) is one opaque leaf: its schema is Kubernetes' own,
// and every merge rule assigns such a value as a unit.
var apiPkg = reflect.TypeFor[v1alpha1.AgentRuntimeSpec]().PkgPath()

// jsonName is a struct field's JSON name; inline is true for an embedded
// struct whose fields JSON promotes; "" and false for a field JSON skips.
func jsonName(f reflect.StructField) (name string, inline bool) {
	tag := f.Tag.Get("json")
	name, _, _ = strings.Cut(tag, ",")
	switch {
	case name == "-":
		return "", false
	case f.Anonymous && name == "":
		return "", true
	case !f.IsExported():
		return "", false
	case name == "":
		return f.Name, false
	}
	return name, false
}

// SpecPaths lists every field path of AgentRuntimeSpec, at any depth, in
// declaration order: JSON names joined with ".", "[]" after a list and "{}"
// after a map whose values are objects (facades[].port,
// runtime.autoscaling.keda.triggers[].type). Parents come before their
// children. Descent stops at types outside api/v1alpha1 (see apiPkg).
func SpecPaths() []string {
	return fieldPaths(reflect.TypeFor[v1alpha1.AgentRuntimeSpec](), apiPkg)
}

// fieldPaths lists the field paths of t, descending into struct types of
// the packages pkgs only (through pointers, slices, arrays and maps).
func fieldPaths(t reflect.Type, pkgs ...string) []string {
	w := pathWalker{pkgs: map[string]bool{}, onPath: map[reflect.Type]bool{}}
	for _, p := range pkgs {
		w.pkgs[p] = true
	}
	w.walk(t, "")
	return w.out
}

type pathWalker struct {
	pkgs   map[string]bool
	onPath map[reflect.Type]bool // guards against a recursive type
	out    []string
}

func (w *pathWalker) walk(t reflect.Type, prefix string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		w.walk(t.Elem(), prefix+"[]")
		return
	case reflect.Map:
		w.walk(t.Elem(), prefix+"{}")
		return
	case reflect.Struct:
	default:
		return
	}
	if !w.pkgs[t.PkgPath()] || w.onPath[t] {
		return
	}
	w.onPath[t] = true
	defer delete(w.onPath, t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, inline := jsonName(f)
		if inline {
			w.walk(f.Type, prefix)
			continue
		}
		if name == "" {
			continue
		}
		p := name
		if prefix != "" {
			p = prefix + "." + name
		}
		w.out = append(w.out, p)
		w.walk(f.Type, p)
	}
}
