package policies

import (
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apiserver/pkg/cel/common"
)

// cachedSchema is the structural schema as CEL's unstructured values read
// it, with each node's properties, items and additionalProperties built
// once. The API server's adaptor (model.Structural) rebuilds a node's whole
// property map on every field access; a policy iterating a list of objects
// then spends most of its time allocating, about 30 µs per element of a
// ToolRegistry's handlers, so a rule within its cost budget could hold a
// webhook worker for a minute. Everything else is the adaptor's.
type cachedSchema struct {
	*model.Structural
	props map[string]common.Schema
	items common.Schema
	addl  common.SchemaOrBool
}

var _ common.Schema = (*cachedSchema)(nil)

// newCachedSchema wraps s and, recursively, everything under it. A
// structural schema is a finite tree, built once per kind in NewEnv.
func newCachedSchema(s *structuralschema.Structural) *cachedSchema {
	c := &cachedSchema{Structural: &model.Structural{Structural: s}}
	if s.Properties != nil {
		c.props = make(map[string]common.Schema, len(s.Properties))
		for name := range s.Properties {
			p := s.Properties[name]
			c.props[name] = newCachedSchema(&p)
		}
	}
	if s.Items != nil {
		c.items = newCachedSchema(s.Items)
	}
	if s.AdditionalProperties != nil {
		ab := &cachedSchemaOrBool{allows: s.AdditionalProperties.Bool}
		if s.AdditionalProperties.Structural != nil {
			ab.schema = newCachedSchema(s.AdditionalProperties.Structural)
		}
		c.addl = ab
	}
	return c
}

func (c *cachedSchema) Properties() map[string]common.Schema { return c.props }
func (c *cachedSchema) Items() common.Schema                 { return c.items }
func (c *cachedSchema) AdditionalProperties() common.SchemaOrBool {
	return c.addl
}

// WithTypeAndObjectMeta is asked of embedded resources only (a root kind's
// schema already declares them, see withObjectMeta).
func (c *cachedSchema) WithTypeAndObjectMeta() common.Schema {
	return newCachedSchema(model.WithTypeAndObjectMeta(c.Structural.Structural))
}

type cachedSchemaOrBool struct {
	schema common.Schema
	allows bool
}

func (b *cachedSchemaOrBool) Schema() common.Schema { return b.schema }
func (b *cachedSchemaOrBool) Allows() bool          { return b.allows }
