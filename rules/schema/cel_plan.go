package schema

import (
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
)

// celPlan is one CRD's x-kubernetes-validations, compiled once into a tree
// that holds only the schema nodes on the way to a rule. Evaluating an
// object (cel_walk.go) follows the plan, not the schema, so subtrees
// without rules are never looked at, and every schema adaptor CEL converts
// values through is built here once instead of on each field access.
//
// The plan answers exactly as the API server's CRD validator
// (apiextensions' schema/cel.Validator): the programs come from the same
// compiler call (cel.Compile with the stored-expression environment and
// the same per-call limit), and a node gets rules under the same conditions
// (which properties are visible to CEL, allOf branches, embedded resources).
type celPlan struct {
	root *celNode
}

// celNode is one schema node of the plan.
type celNode struct {
	// rules are the node's compiled x-kubernetes-validations, in order.
	rules []celRule
	// compileErr is set when the node's rules could not be compiled at all
	// (no CEL type for the node); the API server reports it on every value.
	compileErr error
	// schemaType is the node's OpenAPI type: the "value" of the
	// field.Invalid errors the API server reports for a rule it could not
	// run (it names the type, not the value).
	schemaType string
	// self converts the node's value (and old value) to CEL: the node's
	// adaptor, with apiVersion, kind and metadata added at a resource root
	// (the custom resource itself, or an embedded resource). Only set when
	// the node has rules.
	self common.Schema
	// bindsOldSelf: some rule reads oldSelf, so oldSelf is declared to CEL
	// (on update, for a value that has an old one); otherwise it is not, and
	// a messageExpression that reads it fails and falls back.
	bindsOldSelf bool

	// value is the adaptor of the node's schema, without the resource
	// metadata: what correlates old map-list items with new ones.
	value common.Schema
	// keyedList: the node is a list-type=map list with keys, whose items
	// are matched to old items by key (other lists have no old items).
	keyedList bool
	// correlatesKeys: a map whose old values are those under the same key
	// (map-type granular or atomic, the default); another map type has no
	// old values for its children.
	correlatesKeys bool

	// allOf are the rules declared inside allOf branches: they apply to
	// this same value.
	allOf []*celNode
	// items applies to every list item, additional to every map value.
	items, additional *celNode
	// properties are the declared properties with rules under them, in
	// name order (so a walk over them is deterministic).
	properties []celProperty
}

// celProperty is a declared property with rules under it.
type celProperty struct {
	name string
	node *celNode
}

// celRule is one compiled rule and what its errors say.
type celRule struct {
	compiled cel.CompilationResult
	// optionalOldSelf: oldSelf is an optional, set on update only; the rule
	// also runs on create.
	optionalOldSelf bool
	// reason is the field.Error type a failure is reported as (nil: invalid).
	reason *apiextensionsv1.FieldValueErrorReason
	// messageExpression is the source of the rule's messageExpression, as
	// its errors quote it.
	messageExpression string
	// failure is the message of a failure without (or with a failing)
	// messageExpression; named is how runtime errors name the rule.
	failure, named string
}

// newCELPlan compiles the rules of a resource's structural schema, or
// returns nil when the schema declares none (as the API server, it then
// runs no CEL at all). adaptor is s's adaptor (newCachedSchema(s)).
func newCELPlan(s *structuralschema.Structural, adaptor *cachedSchema, perCallLimit uint64) *celPlan {
	if !declaresRules(s) {
		return nil
	}
	b := planBuilder{perCallLimit: perCallLimit, env: environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())}
	return &celPlan{root: b.node(s, s, adaptor, true, model.SchemaDeclType(s, true))}
}

// declaresRules reports whether s or a property, item or additionalProperties
// schema under it has x-kubernetes-validations. Rules only inside allOf do
// not count: the API server builds no validator for such a CRD.
func declaresRules(s *structuralschema.Structural) bool {
	if s == nil {
		return false
	}
	if len(s.XValidations) > 0 || declaresRules(s.Items) {
		return true
	}
	if s.AdditionalProperties != nil && declaresRules(s.AdditionalProperties.Structural) {
		return true
	}
	for _, p := range s.Properties {
		if declaresRules(&p) {
			return true
		}
	}
	return false
}

type planBuilder struct {
	perCallLimit uint64
	env          *environment.EnvSet
}

// node plans the rules of rulesFrom applied to values of schema value.
// Outside allOf both are the same schema; an allOf branch brings its own
// rules (rulesFrom) for the values of the enclosing schema, whose types the
// branch may not restate. declType is value's CEL type as the enclosing
// node's type declares it. It returns nil when nothing under the node has
// rules.
func (b planBuilder) node(rulesFrom, value *structuralschema.Structural, adaptor *cachedSchema, resourceRoot bool, declType *apiservercel.DeclType) *celNode {
	// The rules are compiled against the value's schema (types, and the
	// fieldPath each rule names is resolved in it).
	compileWith := *value
	compileWith.XValidations = rulesFrom.XValidations
	compiled, err := cel.Compile(&compileWith, declType, b.perCallLimit, b.env, cel.StoredExpressionsEnvLoader())

	n := &celNode{compileErr: err, schemaType: value.Type, value: adaptor}
	for i, c := range compiled {
		n.rules = append(n.rules, newCELRule(rulesFrom.XValidations[i], c))
		n.bindsOldSelf = n.bindsOldSelf || c.UsesOldSelf
	}
	if len(n.rules) > 0 {
		n.self = adaptor
		if resourceRoot {
			n.self = adaptor.WithTypeAndObjectMeta()
		}
	}
	n.keyedList = value.Type == "array" && value.XListType != nil && *value.XListType == "map" && len(value.XListMapKeys) > 0
	n.correlatesKeys = value.XMapType == nil || *value.XMapType == "granular" || *value.XMapType == "atomic"

	var elem *apiservercel.DeclType
	if declType != nil {
		elem = declType.ElemType
	}
	if rulesFrom.Items != nil && value.Items != nil {
		n.items = b.node(rulesFrom.Items, value.Items, adaptor.items, value.Items.XEmbeddedResource, elem)
	}
	if ra, va := rulesFrom.AdditionalProperties, value.AdditionalProperties; ra != nil && ra.Structural != nil && va != nil && va.Structural != nil {
		n.additional = b.node(ra.Structural, va.Structural, adaptor.additional.schema, va.Structural.XEmbeddedResource, elem)
	}
	for name, rp := range rulesFrom.Properties {
		vp, ok := value.Properties[name]
		if !ok {
			continue // rules only reach the properties the value's schema declares
		}
		propType, ok := propertyDeclType(declType, name, &vp)
		if !ok {
			continue // a property CEL has no type for is not validated at all
		}
		if child := b.node(&rp, &vp, adaptor.properties[name].(*cachedSchema), vp.XEmbeddedResource, propType); child != nil {
			n.properties = append(n.properties, celProperty{name: name, node: child})
		}
	}
	slices.SortFunc(n.properties, func(x, y celProperty) int { return strings.Compare(x.name, y.name) })
	if rulesFrom.ValueValidation != nil {
		for i := range rulesFrom.ValueValidation.AllOf {
			if branch := b.node(allOfRules(&rulesFrom.ValueValidation.AllOf[i]), value, adaptor, resourceRoot, declType); branch != nil {
				n.allOf = append(n.allOf, branch)
			}
		}
	}

	if len(n.rules) == 0 && n.compileErr == nil && n.items == nil && n.additional == nil && len(n.properties) == 0 && len(n.allOf) == 0 {
		return nil
	}
	return n
}

// propertyDeclType is the CEL type of property name of a value of type
// parent. A name CEL can address (possibly escaped) takes its type from the
// parent's field; a name it cannot address still gets rules on its own
// value, typed from its schema.
func propertyDeclType(parent *apiservercel.DeclType, name string, prop *structuralschema.Structural) (*apiservercel.DeclType, bool) {
	escaped, addressable := apiservercel.Escape(name)
	if !addressable {
		t := model.SchemaDeclType(prop, prop.XEmbeddedResource)
		return t, t != nil
	}
	if parent == nil {
		return nil, false
	}
	f, ok := parent.Fields[escaped]
	if !ok {
		return nil, false
	}
	return f.Type, true
}

// allOfRules is the rule-bearing part of an allOf branch as a schema: its
// rules, and those of its items, properties, additionalProperties and
// nested allOf branches. Nothing else of the branch matters to CEL (types
// come from the enclosing schema).
func allOfRules(branch *structuralschema.NestedValueValidation) *structuralschema.Structural {
	if branch == nil {
		return nil
	}
	s := &structuralschema.Structural{
		ValueValidation:      &branch.ValueValidation,
		ValidationExtensions: branch.ValidationExtensions,
		Items:                allOfRules(branch.Items),
	}
	if len(branch.Properties) > 0 {
		s.Properties = make(map[string]structuralschema.Structural, len(branch.Properties))
		for name, p := range branch.Properties {
			s.Properties[name] = *allOfRules(&p)
		}
	}
	if branch.AdditionalProperties != nil {
		s.AdditionalProperties = &structuralschema.StructuralOrBool{Structural: allOfRules(branch.AdditionalProperties)}
	}
	return s
}
