package intent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// DecodeError is a request the decoder refuses: the HTTP server answers 400
// with it. Path is the JSON path of the offending key or value
// (agents[0].runtime.gpu), empty for the document as a whole; Offset is the
// byte offset in the body where the decoder stopped, -1 when not known.
type DecodeError struct {
	Path   string
	Offset int64
	Msg    string
}

func (e *DecodeError) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Offset >= 0 {
		b.WriteString(" (at byte offset ")
		b.WriteString(strconv.FormatInt(e.Offset, 10))
		b.WriteString(")")
	}
	return b.String()
}

// Bounds of one intent. The HTTP server caps the body size; these cap the
// counts the rest of the deploy iterates over, so no request makes it do
// unbounded work however small its entries are:
//   - MaxAgents: every agent is one AgentRuntime read, merge and apply in
//     the request; 50 keeps a deploy well inside a request's time while
//     being far above any real agent set.
//   - MaxHandlers: one ToolRegistry's handlers; the registry is one object
//     of at most etcd's 1.5 MiB, and 256 handlers is far more than any kit.
//   - MaxCredentialKeys: one Secret's keys, one per handler credential.
//   - MaxListItems: any other list or map of the typed part (labels,
//     providers, facades, skills, include, groups, steps, blocklist).
//   - MaxRawDepth: nesting inside a free-form block (a handler's config,
//     auth, tool): deep enough for any OpenAPI/gRPC/MCP config, shallow
//     enough that a body of brackets is refused early.
const (
	MaxAgents         = 50
	MaxHandlers       = 256
	MaxCredentialKeys = 256
	MaxListItems      = 256
	MaxRawDepth       = 64
)

// maxItemsAt is the cap of the list or map at a path with its indices
// removed (agents, tools.handlers, credentials.data).
var maxItemsAt = map[string]int{
	"agents":           MaxAgents,
	"tools.handlers":   MaxHandlers,
	"credentials.data": MaxCredentialKeys,
}

// Decode reads a deploy intent strictly, as deploy-intent.md asks of the
// door: the body is one JSON object and nothing after it; its apiVersion is
// the one this operator serves (APIVersion), checked first, so a document of
// another version is refused as such rather than parsed best-effort; every
// key is one the schema of record names, with its exact case and once; every
// required key is present and not null; every value has its field's JSON
// type (integers in range, free-form blocks any JSON). Lists and maps are
// bounded (MaxAgents, …). The intent is then Normalized.
//
// Every refusal is a *DecodeError naming the key's path. Decode does not
// apply the rules that live only in validation: Validate does.
func Decode(body []byte) (*DeployIntent, error) {
	// The document as a whole, and its version, first.
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, jsonError("", err)
	}
	if top == nil {
		return nil, &DecodeError{Offset: -1, Msg: "the body is null; want a DeployIntent object"}
	}
	raw, ok := top["apiVersion"]
	if !ok {
		return nil, &DecodeError{Path: "apiVersion", Offset: -1, Msg: "required; the supported version is " + strconv.Quote(APIVersion)}
	}
	var version string
	if err := json.Unmarshal(raw, &version); err != nil || version != APIVersion {
		return nil, &DecodeError{Path: "apiVersion", Offset: -1,
			Msg: "unsupported apiVersion " + string(raw) + "; the supported version is " + strconv.Quote(APIVersion)}
	}

	// Strict walk of the whole document against the type.
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	w := walker{dec: dec}
	if err := w.value(reflect.TypeFor[DeployIntent](), "", ""); err != nil {
		return nil, err
	}

	var in DeployIntent
	if err := json.Unmarshal(body, &in); err != nil {
		// The walk accepts only what this can decode; report it anyway.
		return nil, jsonError("", err)
	}
	in.Normalize()
	return &in, nil
}

// Normalize puts a decoded intent in its one spelling, so what the deploy
// derives from it does not depend on how the client wrote it:
//   - pack.version loses one leading "v" when a digit follows it
//     (deploy-intent.md § pack.version spelling: v1.2.3 and 1.2.3 are the
//     same version; the PromptPack's spec.version has no leading v). A "v"
//     not followed by a digit is not a version prefix and is kept, so
//     Normalize is idempotent.
//   - the free-form handler blocks are compacted (insignificant whitespace
//     removed; the JSON value is unchanged), and a null one is absent.
func (in *DeployIntent) Normalize() {
	if v := in.Pack.Version; len(v) >= 2 && v[0] == 'v' && v[1] >= '0' && v[1] <= '9' {
		in.Pack.Version = v[1:]
	}
	if in.Tools != nil {
		for i := range in.Tools.Handlers {
			h := &in.Tools.Handlers[i]
			for _, r := range []*json.RawMessage{&h.Tool, &h.HTTPConfig, &h.OpenAPIConfig, &h.GRPCConfig, &h.MCPConfig, &h.ClientConfig, &h.Auth} {
				compactRaw(r)
			}
		}
	}
}

func compactRaw(r *json.RawMessage) {
	if len(*r) == 0 {
		return
	}
	if string(*r) == "null" {
		*r = nil // absent, as for every other optional field
		return
	}
	var b bytes.Buffer
	if json.Compact(&b, *r) == nil {
		*r = b.Bytes()
	}
}

// jsonError turns an encoding/json error into a DecodeError with the
// decoder's own message and offset.
func jsonError(path string, err error) *DecodeError {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return &DecodeError{Path: path, Offset: syn.Offset, Msg: "malformed JSON: " + syn.Error()}
	case errors.As(err, &typ):
		p := path
		if p == "" {
			p = typ.Field
		}
		return &DecodeError{Path: p, Offset: typ.Offset, Msg: "want " + jsonKindOf(typ.Type) + ", got " + typ.Value}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &DecodeError{Path: path, Offset: -1, Msg: "malformed JSON: unexpected end of input"}
	}
	return &DecodeError{Path: path, Offset: -1, Msg: "malformed JSON: " + err.Error()}
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// walker checks one JSON document against a Go type token by token.
type walker struct {
	dec *json.Decoder
}

func (w *walker) fail(path, msg string) *DecodeError {
	return &DecodeError{Path: path, Offset: w.dec.InputOffset(), Msg: msg}
}

func (w *walker) token(path string) (json.Token, error) {
	tok, err := w.dec.Token()
	if err != nil {
		return nil, jsonError(path, err)
	}
	return tok, nil
}

// value consumes one value of type t at path. bound is path with indices
// and map keys removed, to look caps up.
func (w *walker) value(t reflect.Type, path, bound string) error {
	tok, err := w.token(path)
	if err != nil {
		return err
	}
	if err := w.valueTok(tok, t, path, bound); err != nil {
		return err
	}
	if path == "" {
		// Nothing but whitespace may follow the document.
		if _, err := w.dec.Token(); err != io.EOF {
			return w.fail("", "trailing data after the JSON document")
		}
	}
	return nil
}

func (w *walker) valueTok(tok json.Token, t reflect.Type, path, bound string) error {
	if tok == nil {
		// null is "absent", and only an optional field can be absent
		// (object handles that); a null list entry or map value has no
		// meaning, and a required field must be there.
		return w.fail(path, "null is not a value here")
	}
	if t == rawMessageType {
		// A free-form block (a handler's tool, configs, auth) is copied
		// onto an object field of the ToolRegistry handler: any JSON
		// object.
		if tok != json.Delim('{') {
			return w.fail(path, "want an object, got "+tokenKind(tok))
		}
		return w.skip(tok, path, 0)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return w.valueTok(tok, t.Elem(), path, bound)
	case reflect.String:
		if _, ok := tok.(string); !ok {
			return w.fail(path, "want a string, got "+tokenKind(tok))
		}
	case reflect.Bool:
		if _, ok := tok.(bool); !ok {
			return w.fail(path, "want a boolean, got "+tokenKind(tok))
		}
	case reflect.Int32:
		n, ok := tok.(json.Number)
		if !ok {
			return w.fail(path, "want an integer, got "+tokenKind(tok))
		}
		if _, err := strconv.ParseInt(string(n), 10, 32); err != nil {
			return w.fail(path, "want a 32-bit integer, got "+string(n))
		}
	case reflect.Slice:
		return w.list(tok, t, path, bound)
	case reflect.Map:
		return w.mapping(tok, t, path, bound)
	case reflect.Struct:
		return w.object(tok, t, path, bound)
	default:
		return w.fail(path, "no JSON form for "+t.String())
	}
	return nil
}

func capAt(bound string) int {
	if n, ok := maxItemsAt[bound]; ok {
		return n
	}
	return MaxListItems
}

func (w *walker) list(tok json.Token, t reflect.Type, path, bound string) error {
	if tok != json.Delim('[') {
		return w.fail(path, "want an array, got "+tokenKind(tok))
	}
	max := capAt(bound)
	for i := 0; w.dec.More(); i++ {
		if i >= max {
			return w.fail(path, fmt.Sprintf("at most %d entries", max))
		}
		if err := w.value(t.Elem(), path+"["+strconv.Itoa(i)+"]", bound); err != nil {
			return err
		}
	}
	_, err := w.token(path) // ']'
	return err
}

func (w *walker) mapping(tok json.Token, t reflect.Type, path, bound string) error {
	if tok != json.Delim('{') {
		return w.fail(path, "want an object, got "+tokenKind(tok))
	}
	max := capAt(bound)
	seen := map[string]bool{}
	for w.dec.More() {
		k, err := w.token(path)
		if err != nil {
			return err
		}
		key := k.(string)
		kp := path + "[" + key + "]"
		if seen[key] {
			return w.fail(kp, "duplicate key")
		}
		seen[key] = true
		if len(seen) > max {
			return w.fail(path, fmt.Sprintf("at most %d keys", max))
		}
		if err := w.value(t.Elem(), kp, bound); err != nil {
			return err
		}
	}
	_, err := w.token(path) // '}'
	return err
}

func (w *walker) object(tok json.Token, t reflect.Type, path, bound string) error {
	if tok != json.Delim('{') {
		return w.fail(path, "want an object, got "+tokenKind(tok))
	}
	fields := jsonFields(t)
	seen := map[string]bool{}
	for w.dec.More() {
		k, err := w.token(path)
		if err != nil {
			return err
		}
		key := k.(string)
		kp, kb := join(path, key), join(bound, key)
		f, ok := fields[key]
		if !ok {
			return w.fail(kp, "unknown field "+strconv.Quote(key))
		}
		if seen[key] {
			return w.fail(kp, "duplicate key")
		}
		tok, err := w.token(kp)
		if err != nil {
			return err
		}
		seen[key] = true
		if tok == nil && !f.required {
			continue // null: the optional field is absent
		}
		if err := w.valueTok(tok, f.typ, kp, kb); err != nil {
			return err
		}
	}
	for _, name := range requiredFields(t) {
		if !seen[name] {
			return w.fail(join(path, name), "required")
		}
	}

	_, err := w.token(path) // '}'
	return err
}

// skip consumes the rest of a free-form value whose first token is tok.
func (w *walker) skip(tok json.Token, path string, depth int) error {
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	if depth >= MaxRawDepth {
		return w.fail(path, fmt.Sprintf("nested more than %d levels", MaxRawDepth))
	}
	_ = d // '[' or '{': the decoder checks the matching close
	for w.dec.More() {
		t, err := w.token(path)
		if err != nil {
			return err
		}
		if d == '{' { // t is the key; the value follows
			if t, err = w.token(path); err != nil {
				return err
			}
		}
		if err := w.skip(t, path, depth+1); err != nil {
			return err
		}
	}
	_, err := w.token(path)
	return err
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

type jsonField struct {
	typ      reflect.Type
	required bool
}

// fieldCache holds jsonFields by type; the wire types are few and fixed.
var fieldCache sync.Map // reflect.Type → map[string]jsonField

// jsonFields returns a struct's JSON fields by exact name. A field without
// omitempty is required: the schema of record marks it so
// (deploy-intent-fields.md: no "?"). The map is shared: do not modify it.
func jsonFields(t reflect.Type) map[string]jsonField {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]jsonField)
	}
	out := map[string]jsonField{}
	for i := range t.NumField() {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "-" || name == "" {
			continue
		}
		out[name] = jsonField{typ: sf.Type, required: !hasOpt(opts, "omitempty")}
	}
	fieldCache.Store(t, out)
	return out
}

// requiredFields returns a struct's required JSON field names, in field
// order (so a refusal names the first missing one).
func requiredFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if sf.IsExported() && name != "-" && name != "" && !hasOpt(opts, "omitempty") {
			out = append(out, name)
		}
	}
	return out
}

func hasOpt(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

func tokenKind(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "the number " + string(v)
	case string:
		return "a string"
	case json.Delim:
		if v == '[' {
			return "an array"
		}
		return "an object"
	}
	return fmt.Sprintf("%v", tok)
}

func jsonKindOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	default:
		return "a number"
	}
}
