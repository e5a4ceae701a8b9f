package intent

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const openAPIPath = "../../api/openapi/openapi.yaml"

// openAPIRoots are the bodies of the three routes and of their refusals;
// every wire type is reachable from one of them.
var openAPIRoots = []reflect.Type{
	reflect.TypeFor[DeployIntent](), reflect.TypeFor[DeployResult](), reflect.TypeFor[DeployProfile](),
	reflect.TypeFor[PlanRequest](), reflect.TypeFor[PlanResponse](), reflect.TypeFor[ErrorResponse](),
}

func loadOpenAPI(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile(openAPIPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", openAPIPath, err)
	}
	return doc
}

// wireStructs returns every named struct type reachable from roots.
func wireStructs(roots []reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	var visit func(reflect.Type)
	visit = func(t reflect.Type) {
		for t != rawMessageType && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map) {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		if _, ok := out[t.Name()]; ok {
			return
		}
		out[t.Name()] = t
		for i := range t.NumField() {
			visit(t.Field(i).Type)
		}
	}
	for _, r := range roots {
		visit(r)
	}
	return out
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// schemaMismatch compares one Go type with one schema and returns what
// differs ("" when they agree).
func schemaMismatch(t reflect.Type, s map[string]any) string {
	if s == nil {
		return "no schema"
	}
	if t == rawMessageType {
		if s["type"] != "object" || s["additionalProperties"] != true {
			return fmt.Sprintf("free-form JSON wants type object with additionalProperties true, got %v", s)
		}
		return ""
	}
	typ, _ := s["type"].(string)
	switch t.Kind() {
	case reflect.Pointer:
		return schemaMismatch(t.Elem(), s)
	case reflect.String:
		if typ != "string" {
			return "Go string, schema type " + fmt.Sprint(s["type"])
		}
	case reflect.Bool:
		if typ != "boolean" {
			return "Go bool, schema type " + fmt.Sprint(s["type"])
		}
	case reflect.Int32:
		if typ != "integer" || s["format"] != "int32" {
			return fmt.Sprintf("Go int32, schema type %v format %v", s["type"], s["format"])
		}
	case reflect.Slice:
		if typ != "array" {
			return "Go slice, schema type " + fmt.Sprint(s["type"])
		}
		if m := schemaMismatch(t.Elem(), asMap(s["items"])); m != "" {
			return "items: " + m
		}
	case reflect.Map:
		if typ != "object" {
			return "Go map, schema type " + fmt.Sprint(s["type"])
		}
		if m := schemaMismatch(t.Elem(), asMap(s["additionalProperties"])); m != "" {
			return "additionalProperties: " + m
		}
	case reflect.Struct:
		if want := "#/components/schemas/" + t.Name(); s["$ref"] != want || len(s) != 1 {
			return fmt.Sprintf("Go struct %s wants exactly $ref %s, got %v", t.Name(), want, s)
		}
	default:
		return "no JSON form for Go " + t.String()
	}
	return ""
}

// TestOpenAPIMatchesTypes: api/openapi/openapi.yaml has one component
// schema per wire type, with exactly its JSON fields, the same required
// fields (a field without omitempty is required, as deploy-intent-fields.md
// marks it), and the same shape for each field (scalar type, array, map,
// reference to the field's type). It fails in either direction.
func TestOpenAPIMatchesTypes(t *testing.T) {
	doc := loadOpenAPI(t)
	if v, _ := doc["openapi"].(string); !strings.HasPrefix(v, "3.0.") {
		t.Errorf("openapi: %q, want 3.0.x", v)
	}
	schemas := asMap(asMap(doc["components"])["schemas"])
	structs := wireStructs(openAPIRoots)
	if got, want := sortedKeys(schemas), sortedKeys(structs); !slices.Equal(got, want) {
		for _, n := range got {
			if _, ok := structs[n]; !ok {
				t.Errorf("component schema %s has no Go type", n)
			}
		}
		for _, n := range want {
			if _, ok := schemas[n]; !ok {
				t.Errorf("Go type %s has no component schema", n)
			}
		}
	}
	for _, name := range sortedKeys(structs) {
		st, s := structs[name], asMap(schemas[name])
		if s == nil {
			continue
		}
		if s["type"] != "object" || s["additionalProperties"] != false {
			t.Errorf("%s: want type object, additionalProperties false (unknown fields are refused)", name)
		}
		props := asMap(s["properties"])
		var required []string
		req, _ := s["required"].([]any)
		for _, r := range req {
			required = append(required, r.(string))
		}
		slices.Sort(required)
		fields := jsonFields(st)
		if got, want := sortedKeys(props), sortedKeys(fields); !slices.Equal(got, want) {
			t.Errorf("%s: schema properties %v, Go JSON fields %v", name, got, want)
		}
		var wantRequired []string
		for f, jf := range fields {
			if jf.required {
				wantRequired = append(wantRequired, f)
			}
		}
		slices.Sort(wantRequired)
		if !slices.Equal(required, wantRequired) {
			t.Errorf("%s: schema required %v, Go fields without omitempty %v", name, required, wantRequired)
		}
		for f, jf := range fields {
			if m := schemaMismatch(jf.typ, asMap(props[f])); m != "" {
				t.Errorf("%s.%s: %s", name, f, m)
			}
		}
	}
}

// TestOpenAPIRefsResolve: every $ref names a component that exists.
func TestOpenAPIRefsResolve(t *testing.T) {
	doc := loadOpenAPI(t)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				var cur any = doc
				for _, p := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
					cur = asMap(cur)[p]
				}
				if cur == nil {
					t.Errorf("%s: $ref %s resolves to nothing", path, ref)
				}
			}
			for k, c := range v {
				walk(path+"/"+k, c)
			}
		case []any:
			for i, c := range v {
				walk(fmt.Sprintf("%s/%d", path, i), c)
			}
		}
	}
	walk("#", doc)
}

// TestOpenAPIRoutes: the three routes, their bodies and status codes, and
// the enumerations the Go code names as constants.
func TestOpenAPIRoutes(t *testing.T) {
	doc := loadOpenAPI(t)
	paths := asMap(doc["paths"])
	ref := func(name string) string { return "#/components/schemas/" + name }
	bodyRef := func(op map[string]any) string {
		return fmt.Sprint(asMap(asMap(asMap(asMap(op["requestBody"])["content"])["application/json"])["schema"])["$ref"])
	}
	respSchema := func(resp map[string]any) string {
		if r, ok := resp["$ref"].(string); ok {
			resp = asMap(asMap(asMap(doc["components"])["responses"])[strings.TrimPrefix(r, "#/components/responses/")])
		}
		return fmt.Sprint(asMap(asMap(asMap(resp["content"])["application/json"])["schema"])["$ref"])
	}
	for _, rt := range []struct {
		path, method, request string
		responses             map[string]string
	}{
		{"/api/v1/workspaces/{workspace}/deployments", "post", "DeployIntent", map[string]string{
			"200": "DeployResult", "207": "DeployResult", "400": "ErrorResponse", "401": "ErrorResponse", "403": "ErrorResponse",
			"409": "DeployResult", "413": "ErrorResponse", "429": "ErrorResponse", "503": "DeployResult"}},
		{"/api/v1/workspaces/{workspace}/deploy/plan", "post", "PlanRequest", map[string]string{
			"200": "PlanResponse", "400": "ErrorResponse", "401": "ErrorResponse", "403": "ErrorResponse", "413": "ErrorResponse", "429": "ErrorResponse"}},
		{"/api/v1/workspaces/{workspace}/deploy-profile", "get", "", map[string]string{
			"200": "DeployProfile", "401": "ErrorResponse", "403": "ErrorResponse", "429": "ErrorResponse"}},
	} {
		op := asMap(asMap(paths[rt.path])[rt.method])
		if op == nil {
			t.Errorf("no %s %s", rt.method, rt.path)
			continue
		}
		if rt.request != "" && bodyRef(op) != ref(rt.request) {
			t.Errorf("%s %s: request body %s, want %s", rt.method, rt.path, bodyRef(op), ref(rt.request))
		}
		responses := asMap(op["responses"])
		if got, want := sortedKeys(responses), sortedKeys(rt.responses); !slices.Equal(got, want) {
			t.Errorf("%s %s: status codes %v, want %v", rt.method, rt.path, got, want)
		}
		for code, name := range rt.responses {
			if got := respSchema(asMap(responses[code])); got != ref(name) {
				t.Errorf("%s %s %s: body %s, want %s", rt.method, rt.path, code, got, ref(name))
			}
		}
	}
	if len(paths) != 3 {
		t.Errorf("%d paths, want the three routes", len(paths))
	}
	if h := asMap(asMap(asMap(asMap(asMap(paths["/api/v1/workspaces/{workspace}/deployments"])["post"])["responses"])["503"])["headers"]); h["Retry-After"] == nil {
		t.Error("503 has no Retry-After header")
	}
	if s := asMap(asMap(asMap(doc["components"])["securitySchemes"])["bearerAuth"]); s["scheme"] != "bearer" {
		t.Errorf("bearerAuth = %v, want an HTTP bearer scheme", s)
	}

	schemas := asMap(asMap(doc["components"])["schemas"])
	enumOf := func(schema, field string) []string {
		var out []string
		for _, v := range asMap(asMap(asMap(schemas[schema])["properties"])[field])["enum"].([]any) {
			out = append(out, v.(string))
		}
		slices.Sort(out)
		return out
	}
	sorted := func(vs ...string) []string { slices.Sort(vs); return vs }
	for _, c := range []struct {
		schema, field string
		want          []string
	}{
		{"DeployIntent", "apiVersion", sorted(SupportedVersions...)},
		{"Handler", "type", sorted(HandlerHTTP, HandlerOpenAPI, HandlerGRPC, HandlerMCP, HandlerClient)},
		{"ResourceResult", "action", sorted(string(ActionCreated), string(ActionUpdated), string(ActionUnchanged), string(ActionFailed))},
	} {
		if got := enumOf(c.schema, c.field); !slices.Equal(got, c.want) {
			t.Errorf("%s.%s enum %v, want %v", c.schema, c.field, got, c.want)
		}
	}
}

// TestOpenAPIExamplesDecode: the spec's example and the full intent the
// decoder tests use encode to exactly the fields the schema names (a
// property the schema lacks would be an unknown field there).
func TestOpenAPIExamplesDecode(t *testing.T) {
	doc := loadOpenAPI(t)
	schemas := asMap(asMap(doc["components"])["schemas"])
	var check func(path string, v any, schema map[string]any)
	check = func(path string, v any, schema map[string]any) {
		if r, ok := schema["$ref"].(string); ok {
			schema = asMap(schemas[strings.TrimPrefix(r, "#/components/schemas/")])
		}
		switch v := v.(type) {
		case map[string]any:
			props := asMap(schema["properties"])
			for k, c := range v {
				switch {
				case props != nil:
					if props[k] == nil {
						t.Errorf("%s.%s: not in the schema", path, k)
						continue
					}
					check(path+"."+k, c, asMap(props[k]))
				case asMap(schema["additionalProperties"]) != nil:
					check(path+"["+k+"]", c, asMap(schema["additionalProperties"]))
				}
			}
		case []any:
			for i, c := range v {
				check(fmt.Sprintf("%s[%d]", path, i), c, asMap(schema["items"]))
			}
		}
	}
	for _, body := range []string{specExample, fullIntent} {
		in, err := Decode([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(in)
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		check("", v, asMap(schemas["DeployIntent"]))
	}
}
