// Package rules is the catalog of every rule the spec states, written once
// and asked by every consumer: the validating webhooks, the reconcilers, the
// deploy API and omniactl. It is pure: no Kubernetes client, no clock, no
// network. Cluster state comes in through Facts.
//
// Rules come from two sources. Schema rules are markers on the API types; the
// API server enforces them, package rules/schema evaluates the same
// generated CRDs offline with the API server's own validators, and this
// package names each error it reports as a finding with a rule ID
// (schemafindings.go). Go rules are the checks only a webhook or a
// controller can make (one file per kind).
package rules

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Stage says what a rule needs to run.
type Stage string

const (
	// StageAdmission rules look at the object alone, plus the old object on
	// update. They deny or warn at admission and set conditions on reconcile.
	StageAdmission Stage = "admission"
	// StageReconcile rules need cluster facts (does the Provider exist, is its
	// role right). They never deny or warn at admission — objects arrive in
	// any order — and set conditions and phase on reconcile.
	StageReconcile Stage = "reconcile"
)

// Severity is what a finding does at admission.
type Severity string

const (
	// SeverityDeny refuses the object (enforce mode).
	SeverityDeny Severity = "deny"
	// SeverityWarn admits the object with an admission warning.
	SeverityWarn Severity = "warn"
)

// Source says where a rule is written.
type Source string

const (
	// SourceSchema: an OpenAPI constraint or CEL rule in the CRD, enforced by
	// the API server itself before any webhook.
	SourceSchema Source = "schema"
	// SourceGo: a check in this package, enforced by the webhook and the
	// reconcilers.
	SourceGo Source = "go"
	// SourcePolicy: a rule of a ValidationPolicy (CEL or Rego), compiled by
	// policies/ and added to the catalog at run time (Catalog.With).
	SourcePolicy Source = "policy"
)

// Check inspects one object and returns the field errors it finds. The
// error's Detail is the finding's message: it names the field and says how to
// fix it.
type Check func(in Input) field.ErrorList

// Rule is one catalog entry.
type Rule struct {
	// ID is stable, `<kind>/<kebab-name>`, and never reused once retired.
	ID string
	// Kinds the rule applies to (e.g. "AgentRuntime").
	Kinds []string
	// Stage is admission or reconcile.
	Stage Stage
	// Severity is the default severity; configuration may raise it.
	Severity Severity
	// Reason is the spec's reason string for the condition this rule sets,
	// where the spec names one.
	Reason string
	// Condition is the condition type the reconciler sets from this rule,
	// where the spec names one.
	Condition string
	// Doc says what the rule checks and where the spec states it.
	Doc string
	// Spec is the spec page and section, e.g. "agentruntime.md#facades".
	Spec string
	// Source is schema or go.
	Source Source
	// AdmissionFacts marks a reconcile-stage rule the spec says the webhook
	// refuses too (e.g. a promptPackRef version on a live PromptPack): the
	// webhook runs it with facts from its cache, and denies while that cache
	// cannot answer. Other reconcile-stage rules never run at admission.
	AdmissionFacts bool
	// Check is nil for schema rules (the CRD carries them) and for rules on
	// pruned fields.
	Check Check
	// PrunedFields are removed fields the API server prunes as unknown (paths
	// as the schema evaluator reports them). The typed object cannot hold
	// them, so instead of a Check the rule reports a manifest that still sets
	// one, with PrunedMessage — omniactl and the deploy API see the manifest
	// before the API server drops it.
	PrunedFields  []string
	PrunedMessage string
	// AdmissionActions, on a policy rule, are its policy's
	// validationActions; nil on a built-in rule (see policyrules.go).
	AdmissionActions *AdmissionActions
	// Match, on a policy rule, says whether its policy selects the object
	// (namespaceSelector, objectSelector): Evaluate runs Check only on a
	// selected object, and a reconciler reports a policy condition only on
	// one. Nil selects every object of Kinds (every built-in rule).
	Match func(in Input) bool
}

// Input is what a check sees.
type Input struct {
	// Object is the typed object under evaluation (e.g. *v1alpha1.AgentRuntime).
	Object runtime.Object
	// Old is the stored object on update, nil on create.
	Old runtime.Object
	// Facts answers lookups of cluster state; never nil inside a check.
	Facts Facts

	// scratch is shared by every check of one Catalog.Evaluate call; see
	// Scratch.
	scratch *Scratch
}

// Scratch is the per-evaluation state every check of one Catalog.Evaluate
// call shares (nil outside Evaluate, e.g. a check called directly in a test:
// every LoadOrStore then computes afresh).
func (in Input) Scratch() *Scratch { return in.scratch }

// Finding is one rule's verdict on one field.
type Finding struct {
	RuleID    string   `json:"ruleID"`
	Field     string   `json:"field"`
	Severity  Severity `json:"severity"`
	Stage     Stage    `json:"stage"`
	Source    Source   `json:"source"`
	Reason    string   `json:"reason,omitempty"`
	Condition string   `json:"condition,omitempty"`
	Message   string   `json:"message"`
	// Ratcheted marks a finding the update ratchet (ratchet.go) let through:
	// its rule would deny, but the old object already had it at this field,
	// or the update left spec unchanged or was made to a Terminating object.
	// Its Severity is then warn, so it is reported and never refuses.
	Ratcheted bool `json:"ratcheted,omitempty"`
	// AuditOnly marks a policy rule's finding whose policy's
	// validationActions are Audit alone: admission records it (an audit
	// annotation, a metric) and neither warns nor denies. Every other
	// surface reports it as usual.
	AuditOnly bool `json:"auditOnly,omitempty"`
	// Audit marks a policy rule's finding whose policy's validationActions
	// hold Audit: admission also records it as an audit annotation.
	Audit bool `json:"audit,omitempty"`
}

// String renders a finding the way every surface prints it.
func (f Finding) String() string {
	return "[" + f.RuleID + "] " + f.Field + ": " + f.Message
}

// GetReason lets conditions build a condition from findings (with String)
// without importing this package.
func (f Finding) GetReason() string { return f.Reason }
