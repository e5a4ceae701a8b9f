package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The conditions of a kind are declared in api/v1alpha1/<kind>_conditions.go,
// one const block per condition type: the block's first constant is the
// type (<Kind>Condition<Type>), the others are the reasons it carries
// (<Kind>Reason<Reason>). A block of reasons alone holds reasons several
// types carry. Each constant's doc comment is its meaning. The layout is
// the documentation's source, so it is checked here: a constant that does
// not fit it stops the generator, named.
//
// A large kind may split its conditions over several files,
// api/v1alpha1/<kind>_<topic>_conditions.go: they merge into one section,
// the types of the main file first, then of the topic files in file-name
// order, and within a file in declaration order.

// kindConditions is one kind's conditions, from one file or several.
type kindConditions struct {
	Kind string
	// Files are the files that declare them, the main file first.
	Files []string
	Types []conditionType
	// Shared are the reasons declared outside a type's block.
	Shared []constant
}

type conditionType struct {
	constant
	Reasons []constant
}

type constant struct {
	Name, Value, Doc string
}

// parseConditions reads every *_conditions.go file of dir, sorted by kind;
// the files of one kind merge, the main file first.
func parseConditions(dir string) ([]kindConditions, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_conditions.go"))
	if err != nil {
		return nil, err
	}
	// A kind's main file (<kind>_conditions.go) before its topic files
	// (<kind>_<topic>_conditions.go), so Ready and the core types lead.
	sort.Slice(files, func(i, j int) bool {
		ui, uj := strings.Count(filepath.Base(files[i]), "_"), strings.Count(filepath.Base(files[j]), "_")
		if ui != uj {
			return ui < uj
		}
		return files[i] < files[j]
	})
	var out []kindConditions
	byKind := map[string]int{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		kc, err := parseFile(path)
		if err != nil {
			return nil, err
		}
		i, ok := byKind[kc.Kind]
		if !ok {
			byKind[kc.Kind] = len(out)
			out = append(out, kc)
			continue
		}
		k := &out[i]
		k.Files = append(k.Files, kc.Files...)
		k.Types = append(k.Types, kc.Types...)
		k.Shared = append(k.Shared, kc.Shared...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Kind < out[j].Kind })
	return out, nil
}

func parseFile(path string) (kindConditions, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		return kindConditions{}, err
	}
	kc := kindConditions{Files: []string{filepath.Base(path)}}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		consts, err := blockConstants(fset, gd)
		if err != nil {
			return kc, err
		}
		for i, c := range consts {
			kind, role, ok := splitName(c.Name)
			if !ok {
				return kc, fmt.Errorf("%s: %s is neither <Kind>Condition<Type> nor <Kind>Reason<Reason>", fset.Position(gd.Pos()), c.Name)
			}
			if kc.Kind == "" {
				kc.Kind = kind
			}
			if kind != kc.Kind {
				return kc, fmt.Errorf("%s: %s is not a %s constant; one kind per file", fset.Position(gd.Pos()), c.Name, kc.Kind)
			}
			switch {
			case role == "Condition" && i == 0:
				kc.Types = append(kc.Types, conditionType{constant: c})
			case role == "Condition":
				return kc, fmt.Errorf("%s: %s is a condition type but not the first constant of its block", fset.Position(gd.Pos()), c.Name)
			case consts[0].Name != c.Name && strings.HasPrefix(consts[0].Name, kind+"Condition"):
				t := &kc.Types[len(kc.Types)-1]
				t.Reasons = append(t.Reasons, c)
			default:
				kc.Shared = append(kc.Shared, c)
			}
		}
	}
	if kc.Kind == "" {
		return kc, fmt.Errorf("%s declares no condition", path)
	}
	return kc, nil
}

// blockConstants are the block's constants with their string values and
// doc comments (the spec's own, or the block's for a one-constant block).
func blockConstants(fset *token.FileSet, gd *ast.GenDecl) ([]constant, error) {
	var out []constant
	for _, spec := range gd.Specs {
		vs := spec.(*ast.ValueSpec)
		if len(vs.Names) != 1 || len(vs.Values) != 1 {
			return nil, fmt.Errorf("%s: declare one constant per line", fset.Position(vs.Pos()))
		}
		lit, ok := vs.Values[0].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return nil, fmt.Errorf("%s: %s must be a string literal", fset.Position(vs.Pos()), vs.Names[0].Name)
		}
		value, err := strconv.Unquote(lit.Value)
		if err != nil {
			return nil, err
		}
		doc := vs.Doc
		if doc == nil && len(gd.Specs) == 1 {
			doc = gd.Doc
		}
		if doc == nil {
			return nil, fmt.Errorf("%s: %s has no doc comment: say what it means", fset.Position(vs.Pos()), vs.Names[0].Name)
		}
		out = append(out, constant{Name: vs.Names[0].Name, Value: value, Doc: meaning(vs.Names[0].Name, doc.Text())})
	}
	return out, nil
}

// meaning is a doc comment as one line. A comment that opens with the
// constant's name and a colon or a parenthesis loses the name; the rest
// starts with a capital letter.
func meaning(name, doc string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	rest, ok := strings.CutPrefix(doc, name)
	switch {
	case ok && strings.HasPrefix(rest, ":"):
		doc = strings.TrimSpace(rest[1:])
	case ok && strings.HasPrefix(rest, " ("):
		doc = strings.TrimSpace(rest)
	}
	if doc != "" {
		doc = strings.ToUpper(doc[:1]) + doc[1:]
	}
	return doc
}

// splitName cuts <Kind>Condition<Type> or <Kind>Reason<Reason> at the
// first of the two words (a kind's name holds neither).
func splitName(name string) (kind, role string, ok bool) {
	best := -1
	for _, r := range []string{"Condition", "Reason"} {
		if i := strings.Index(name, r); i > 0 && len(name) > i+len(r) && (best < 0 || i < best) {
			best, role = i, r
		}
	}
	if best < 0 {
		return "", "", false
	}
	return name[:best], role, true
}
