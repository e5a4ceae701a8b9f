package schema

import (
	"math"
	"reflect"
	"regexp"
	"slices"
	"unicode/utf8"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
)

// openAPIAcceptor answers, for a value the API server is about to validate
// against a CRD's OpenAPI schema (decoded JSON, pruned and defaulted),
// either "this value certainly passes kube-openapi's validation" or "not
// sure". Only "not sure" costs the upstream validator's run, so every
// error message still comes from upstream, and the answer stays upstream's
// as long as "certainly passes" is never wrong.
//
// It is compiled once per CRD. Soundness comes by construction: a node
// whose schema uses anything the acceptor does not model is "not sure" for
// every value. Modelled: type (with nullable and x-kubernetes-int-or-string),
// properties, required, additionalProperties (schema, true or absent),
// min/maxProperties, items (one schema), min/maxItems, enum (scalars),
// pattern, min/maxLength (runes), minimum/maximum (exclusive or not, on
// integral bounds for integers), the int32/int64 formats of integers, and
// allOf/anyOf of modelled schemas. x-kubernetes-preserve-unknown-fields,
// x-kubernetes-embedded-resource, list and map types and CEL rules are not
// part of the OpenAPI validation and are ignored. Not modelled ("not
// sure"): string formats, any format of a non-integer number, multipleOf,
// uniqueItems, oneOf, not, patternProperties, dependencies,
// additionalProperties: false, additionalItems, tuple items, $ref, enums of
// objects or lists, and float values of integer fields.
type openAPIAcceptor struct {
	root *acceptNode
}

// acceptNode is one compiled schema node.
type acceptNode struct {
	// unsure: the schema uses a keyword the acceptor does not model.
	unsure bool

	// types are the JSON types allowed; empty means any (when format is
	// also empty, the upstream type check does not run).
	types    jsonTypes
	nullable bool
	format   string

	// Enum values, by kind. hasEnum with no match means "not sure".
	hasEnum    bool
	enumString map[string]struct{}
	enumOther  []any // bool, int64 or float64 values, compared exactly

	// Strings.
	minLength, maxLength *int64
	pattern              *regexp.Regexp

	// Numbers.
	minimum, maximum                   *float64
	exclusiveMinimum, exclusiveMaximum bool

	// Objects.
	properties                   map[string]*acceptNode
	required                     []string
	additional                   *acceptNode // nil: any extra property passes
	minProperties, maxProperties *int64

	// Arrays.
	items              *acceptNode
	minItems, maxItems *int64

	// Combinators.
	allOf, anyOf []*acceptNode
}

// jsonTypes is a set of JSON schema type names.
type jsonTypes uint8

const (
	typeObject jsonTypes = 1 << iota
	typeArray
	typeString
	typeInteger
	typeNumber
	typeBoolean
	typeNull
)

func typeBit(name string) (jsonTypes, bool) {
	switch name {
	case "object":
		return typeObject, true
	case "array":
		return typeArray, true
	case "string":
		return typeString, true
	case "integer":
		return typeInteger, true
	case "number":
		return typeNumber, true
	case "boolean":
		return typeBoolean, true
	case "null":
		return typeNull, true
	}
	return 0, false
}

// newOpenAPIAcceptor compiles s, the CRD version's internal schema (as
// apiservervalidation.NewSchemaValidator receives it).
func newOpenAPIAcceptor(s *apiextensions.JSONSchemaProps) *openAPIAcceptor {
	return &openAPIAcceptor{root: compileAcceptNode(s)}
}

// Accepts reports whether u certainly passes the OpenAPI validation of the
// schema the acceptor was compiled from. false means "not sure".
func (a *openAPIAcceptor) Accepts(u map[string]any) bool {
	if a == nil || a.root == nil {
		return false
	}
	return a.root.accepts(u)
}

func compileAcceptNode(s *apiextensions.JSONSchemaProps) *acceptNode {
	n := &acceptNode{}
	if s == nil {
		n.unsure = true
		return n
	}
	if s.Ref != nil || s.MultipleOf != nil || s.UniqueItems || len(s.OneOf) > 0 || s.Not != nil ||
		len(s.PatternProperties) > 0 || len(s.Dependencies) > 0 || s.AdditionalItems != nil {
		n.unsure = true
		return n
	}
	if s.Type != "" {
		bit, ok := typeBit(s.Type)
		if !ok {
			n.unsure = true
			return n
		}
		n.types = bit
	}
	if s.XIntOrString {
		// The API server's conversion replaces the type with both.
		n.types = typeInteger | typeString
	}
	n.nullable = s.Nullable
	n.format = s.Format

	if len(s.Enum) > 0 {
		n.hasEnum = true
		for _, e := range s.Enum {
			switch v := e.(type) {
			case string:
				if n.enumString == nil {
					n.enumString = map[string]struct{}{}
				}
				n.enumString[v] = struct{}{}
			case bool, int64, float64:
				n.enumOther = append(n.enumOther, v)
			}
			// Other enum values (objects, lists, null) never match here:
			// such a value is "not sure".
		}
	}

	n.minLength, n.maxLength = s.MinLength, s.MaxLength
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			// Upstream reports a broken pattern on every string.
			n.unsure = true
			return n
		}
		n.pattern = re
	}
	n.minimum, n.maximum = s.Minimum, s.Maximum
	n.exclusiveMinimum, n.exclusiveMaximum = s.ExclusiveMinimum, s.ExclusiveMaximum

	if len(s.Properties) > 0 {
		n.properties = make(map[string]*acceptNode, len(s.Properties))
		for name := range s.Properties {
			p := s.Properties[name]
			n.properties[name] = compileAcceptNode(&p)
		}
	}
	n.required = s.Required
	if ap := s.AdditionalProperties; ap != nil {
		switch {
		case !ap.Allows:
			// additionalProperties: false (upstream looks at Allows before
			// any schema) — an extra key is an error; not modelled.
			n.additional = &acceptNode{unsure: true}
		case ap.Schema != nil:
			n.additional = compileAcceptNode(ap.Schema)
		}
	}
	n.minProperties, n.maxProperties = s.MinProperties, s.MaxProperties

	if s.Items != nil {
		if s.Items.Schema == nil || len(s.Items.JSONSchemas) > 0 {
			n.unsure = true
			return n
		}
		n.items = compileAcceptNode(s.Items.Schema)
	}
	n.minItems, n.maxItems = s.MinItems, s.MaxItems

	for i := range s.AllOf {
		n.allOf = append(n.allOf, compileAcceptNode(&s.AllOf[i]))
	}
	for i := range s.AnyOf {
		n.anyOf = append(n.anyOf, compileAcceptNode(&s.AnyOf[i]))
	}
	return n
}

// accepts reports whether v certainly passes n.
func (n *acceptNode) accepts(v any) bool {
	if n.unsure {
		return false
	}
	if v == nil {
		// Upstream runs only the type check and the enum on null (not
		// allOf/anyOf): it passes a nullable or untyped schema without an
		// enum.
		return !n.hasEnum && (n.types == 0 || n.types&typeNull != 0 || n.nullable)
	}
	if !n.typeAccepts(v) || !n.enumAccepts(v) {
		return false
	}
	switch t := v.(type) {
	case string:
		if !n.stringAccepts(t) {
			return false
		}
	case int64:
		if !n.integerAccepts(t) {
			return false
		}
	case float64:
		if !n.floatAccepts(t) {
			return false
		}
	case bool:
	case map[string]any:
		if !n.objectAccepts(t) {
			return false
		}
	case []any:
		if !n.arrayAccepts(t) {
			return false
		}
	default:
		// Not a decoded JSON value.
		return false
	}
	return n.combinatorsAccept(v)
}

// typeAccepts is the type check for a non-null value.
func (n *acceptNode) typeAccepts(v any) bool {
	if n.types == 0 {
		// Upstream checks the type only when a type or a format is set;
		// a format alone has rules of its own: not modelled.
		return n.format == ""
	}
	switch v.(type) {
	case string:
		return n.types&typeString != 0
	case bool:
		return n.types&typeBoolean != 0
	case int64:
		// An integer passes a number schema too.
		return n.types&(typeInteger|typeNumber) != 0
	case float64:
		// A float is an integer upstream when it is integral; the API
		// server's decoder gives int64 for those, so the acceptor only
		// vouches for number schemas.
		return n.types&typeNumber != 0
	case map[string]any:
		return n.types&typeObject != 0
	case []any:
		return n.types&typeArray != 0
	}
	return false
}

// enumAccepts: with an enum, the value must equal one of its scalar values
// of the same Go type (upstream converts the value to each enum value's
// type and compares; an equal value of the same type always matches).
func (n *acceptNode) enumAccepts(v any) bool {
	if !n.hasEnum {
		return true
	}
	if s, ok := v.(string); ok {
		_, found := n.enumString[s]
		return found
	}
	for _, e := range n.enumOther {
		if reflect.TypeOf(e) == reflect.TypeOf(v) && e == v {
			return true
		}
	}
	return false
}

func (n *acceptNode) stringAccepts(s string) bool {
	if n.format != "" {
		// String formats (date-time, …) have validators of their own.
		return false
	}
	if n.maxLength != nil || n.minLength != nil {
		runes := int64(utf8.RuneCountInString(s))
		if n.maxLength != nil && runes > *n.maxLength {
			return false
		}
		if n.minLength != nil && runes < *n.minLength {
			return false
		}
	}
	return n.pattern == nil || n.pattern.MatchString(s)
}

// exactFloat is the largest magnitude below which every integer is a float64
// exactly: comparisons there mean the same in int64 and float64 arithmetic.
const exactFloat = 1 << 53

func (n *acceptNode) integerAccepts(i int64) bool {
	switch n.format {
	case "", "int64":
	case "int32":
		if i < math.MinInt32 || i > math.MaxInt32 {
			return false
		}
	default:
		return false
	}
	if n.minimum == nil && n.maximum == nil {
		return true
	}
	// Upstream compares integers with integer bounds (truncating the
	// bound) or as floats depending on the format: vouch only where both
	// mean the same.
	if i > exactFloat || i < -exactFloat {
		return false
	}
	f := float64(i)
	if b := n.maximum; b != nil {
		if !exactIntegral(*b) || f > *b || (n.exclusiveMaximum && f == *b) {
			return false
		}
	}
	if b := n.minimum; b != nil {
		if !exactIntegral(*b) || f < *b || (n.exclusiveMinimum && f == *b) {
			return false
		}
	}
	return true
}

func exactIntegral(f float64) bool {
	return f == math.Trunc(f) && f <= exactFloat && f >= -exactFloat
}

func (n *acceptNode) floatAccepts(f float64) bool {
	if n.format != "" || math.IsNaN(f) || math.IsInf(f, 0) {
		return false
	}
	if b := n.maximum; b != nil && (f > *b || (n.exclusiveMaximum && f == *b)) {
		return false
	}
	if b := n.minimum; b != nil && (f < *b || (n.exclusiveMinimum && f == *b)) {
		return false
	}
	return true
}

func (n *acceptNode) objectAccepts(m map[string]any) bool {
	count := int64(len(m))
	if n.maxProperties != nil && count > *n.maxProperties {
		return false
	}
	if n.minProperties != nil && count < *n.minProperties {
		return false
	}
	for k, v := range m {
		if p, ok := n.properties[k]; ok {
			if !p.accepts(v) {
				return false
			}
		} else if n.additional != nil && !n.additional.accepts(v) {
			return false
		}
	}
	for _, k := range n.required {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

func (n *acceptNode) arrayAccepts(l []any) bool {
	count := int64(len(l))
	if n.maxItems != nil && count > *n.maxItems {
		return false
	}
	if n.minItems != nil && count < *n.minItems {
		return false
	}
	if n.items != nil {
		for _, e := range l {
			if !n.items.accepts(e) {
				return false
			}
		}
	}
	return true
}

// combinatorsAccept: every allOf schema and at least one anyOf schema must
// certainly pass.
func (n *acceptNode) combinatorsAccept(v any) bool {
	for _, s := range n.allOf {
		if !s.accepts(v) {
			return false
		}
	}
	if len(n.anyOf) == 0 {
		return true
	}
	return slices.ContainsFunc(n.anyOf, func(s *acceptNode) bool { return s.accepts(v) })
}
