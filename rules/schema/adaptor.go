package schema

import (
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apiserver/pkg/cel/common"
)

// cachedSchema is the API server's schema adaptor for CEL
// (apiextensions' model.Structural) with its child schemas built once.
//
// The upstream adaptor answers Properties() by building a new map of new
// adaptors, each over a copy of the property's schema, on every call, and
// common.UnstructuredToVal calls it on every field access a CEL rule makes
// (unstructuredMap.Find); that was a third of omniactl check's time. Here the
// children are built when the schema is compiled and shared by every
// evaluation. Everything else (types, formats, bounds, list types, XValidations,
// allOf/anyOf/oneOf/not) is the upstream adaptor's own answer, so a value
// converted through this schema is the value the API server's CEL sees.
//
// A cachedSchema is immutable once built and safe for concurrent use.
type cachedSchema struct {
	*model.Structural

	properties map[string]common.Schema
	items      *cachedSchema
	additional *cachedSchemaOrBool
	// embedded is WithTypeAndObjectMeta's answer for an
	// x-kubernetes-embedded-resource node (its apiVersion, kind and
	// metadata.name/generateName made visible to CEL); nil otherwise, when
	// the upstream answer is computed on demand.
	embedded common.Schema
}

var _ common.Schema = (*cachedSchema)(nil)

// newCachedSchema builds the adaptor tree for s. s must not change afterwards
// (the compiled CRD schemas never do).
func newCachedSchema(s *structuralschema.Structural) *cachedSchema {
	c := &cachedSchema{Structural: &model.Structural{Structural: s}}
	if s.Properties != nil {
		// Nil stays nil: UnstructuredToVal tells an object with properties
		// from a map with additionalProperties by it.
		c.properties = make(map[string]common.Schema, len(s.Properties))
		for name, prop := range s.Properties {
			// The upstream adaptor points each child at a copy of the
			// property's schema; so does this one, once.
			c.properties[name] = newCachedSchema(&prop)
		}
	}
	if s.Items != nil {
		c.items = newCachedSchema(s.Items)
	}
	if s.AdditionalProperties != nil {
		c.additional = &cachedSchemaOrBool{sb: s.AdditionalProperties}
		if s.AdditionalProperties.Structural != nil {
			c.additional.schema = newCachedSchema(s.AdditionalProperties.Structural)
		}
	}
	if s.XEmbeddedResource {
		if withMeta := model.WithTypeAndObjectMeta(s); withMeta == s {
			c.embedded = c
		} else {
			// withMeta has the metadata added but is not itself embedded,
			// so this does not recurse further.
			c.embedded = newCachedSchema(withMeta)
		}
	}
	return c
}

// Properties returns the children built once (nil when the schema declares
// no properties), as the upstream adaptor would return them.
func (c *cachedSchema) Properties() map[string]common.Schema { return c.properties }

// Items returns the item schema built once, or nil.
func (c *cachedSchema) Items() common.Schema {
	if c.items == nil {
		return nil // a typed nil would read as a schema
	}
	return c.items
}

// AdditionalProperties returns the additionalProperties built once, or nil.
func (c *cachedSchema) AdditionalProperties() common.SchemaOrBool {
	if c.additional == nil {
		return nil
	}
	return c.additional
}

// WithTypeAndObjectMeta returns the schema with the type and object metadata
// the API server shows CEL at a resource root.
func (c *cachedSchema) WithTypeAndObjectMeta() common.Schema {
	if c.embedded != nil {
		return c.embedded
	}
	withMeta := model.WithTypeAndObjectMeta(c.Structural.Structural)
	if withMeta == c.Structural.Structural {
		return c
	}
	return newCachedSchema(withMeta)
}

// cachedSchemaOrBool is model.StructuralOrBool with its schema built once.
type cachedSchemaOrBool struct {
	sb     *structuralschema.StructuralOrBool
	schema *cachedSchema
}

func (b *cachedSchemaOrBool) Schema() common.Schema {
	if b.schema == nil {
		return nil
	}
	return b.schema
}

func (b *cachedSchemaOrBool) Allows() bool { return b.sb.Bool }

// CELValueSchema returns s's adaptor for reading objects as CEL values
// (common.UnstructuredToVal), with its child schemas built once: the same
// adaptor the schema stage's CEL plan uses, for the policies package's CEL
// rules, so the two read an object alike and the fix for the upstream
// adaptor's per-access rebuild lives in one place. s must not change
// afterwards.
func CELValueSchema(s *structuralschema.Structural) common.Schema {
	return newCachedSchema(s)
}
