package rules

// UnknownFieldName is the last part of the ID every unknown-field finding
// carries: <kind>/schema:unknown-field.
const UnknownFieldName = "unknown-field"

// UnknownFieldRuleID is the ID of the finding for a field a kind's schema
// does not declare, at any depth (spec.modle, spec.handlers[0].tol,
// metadata.lables). It is a derived schema ID: the API server refuses such a
// field under strict field validation (kubectl apply's default) before any
// other rule runs, so the one ID names every such field and the finding's
// field is its path.
func UnknownFieldRuleID(kind string) string {
	return schemaKind(kind) + "/schema:" + UnknownFieldName
}

// UnknownFieldMessage is the API server's strict decoding error for path.
func UnknownFieldMessage(path string) string {
	return `unknown field "` + path + `"`
}

// UnknownField is the finding for an unknown field at path of an object of
// kind. A removed field owned by a retired-field rule (Rule.PrunedFields,
// e.g. arenajob/loadtest-budgetlimit-removed) is reported by that rule alone,
// with its message; any other is a deny finding with the generic ID. It maps
// both what ValidateSchema reports and the paths of an API
// server's strict decoding error, so every path names the same rule.
func (c *Catalog) UnknownField(kind, path string, opts Options) Finding {
	if r, ok := c.pruned[path]; ok {
		return r.findingAt(path, r.PrunedMessage, opts)
	}
	return Finding{
		RuleID:   UnknownFieldRuleID(kind),
		Field:    path,
		Severity: SeverityDeny,
		Stage:    StageAdmission,
		Source:   SourceSchema,
		Message:  UnknownFieldMessage(path),
	}
}

// StrictDecoding reports whether f is a finding the API server's strict
// decoding gives, before any other check and on every request alike: an
// unknown field, or a removed field reported by its retired-field rule.
// Such a finding is never ratcheted on update (strict decoding refuses the
// request whatever the stored object holds).
func (c *Catalog) StrictDecoding(kind string, f Finding) bool {
	if f.RuleID == UnknownFieldRuleID(kind) {
		return true
	}
	r, ok := c.pruned[f.Field]
	return ok && r.ID == f.RuleID
}
