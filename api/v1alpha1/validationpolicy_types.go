package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ValidationPolicy is the name kept for a platform team's own rules on Omnia
// objects. It mirrors the vocabulary of Kubernetes' ValidatingAdmissionPolicy
// (validationActions Deny/Warn/Audit, CEL over object/oldObject/
// namespaceObject/params) so a reader who knows that kind knows this one, but
// drops "Admission" from the name: its rules are answered at admission, by
// the reconcilers (conditions), by omniactl offline and by the live audit,
// not only by the webhook.

// ValidationAction is what admission does with a policy rule's finding.
// +kubebuilder:validation:Enum=Deny;Warn;Audit
type ValidationAction string

const (
	// ValidationActionDeny lets a deny-severity finding refuse the object
	// (in a namespace whose enforcement mode is enforce).
	ValidationActionDeny ValidationAction = "Deny"
	// ValidationActionWarn returns findings as admission warnings.
	ValidationActionWarn ValidationAction = "Warn"
	// ValidationActionAudit records findings as audit annotations of the
	// API server's audit event and in the admission metrics.
	ValidationActionAudit ValidationAction = "Audit"
)

// PolicySeverity is a policy rule's default severity, as a built-in rule's.
// +kubebuilder:validation:Enum=deny;warn
type PolicySeverity string

// PolicyMatchKind is an Omnia kind a policy can match: the kinds the
// operator's webhooks validate.
// +kubebuilder:validation:Enum=AgentRuntime;Provider;ToolRegistry;PromptPack;ArenaJob;ArenaRun
type PolicyMatchKind string

// ValidationPolicySpec declares the rules and what they apply to.
// +kubebuilder:validation:XValidation:rule="!(self.validationActions.exists(a, a == 'Deny') && self.validationActions.exists(a, a == 'Warn'))",message="[validationpolicy/deny-and-warn] validationActions may not hold both Deny and Warn: a deny finding is already reported in the refusal, a warn one as a warning"
type ValidationPolicySpec struct {
	// matchKinds are the Omnia kinds whose objects the rules judge.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=6
	// +listType=set
	// +required
	MatchKinds []PolicyMatchKind `json:"matchKinds"`

	// namespaceSelector limits the policy to objects in namespaces whose
	// labels match. Omitted, every namespace matches.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	// objectSelector limits the policy to objects whose labels match.
	// Omitted, every object matches.
	// +optional
	ObjectSelector *metav1.LabelSelector `json:"objectSelector,omitempty"`

	// validationActions say what admission does with a finding: Deny
	// refuses (a deny-severity finding, where the namespace's enforcement
	// mode is enforce), Warn returns an admission warning, Audit records
	// an audit annotation. Without Deny a finding is at most a warning;
	// with Audit alone it is only recorded. Reconcilers, omniactl and the
	// live audit report every finding whatever the actions.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=3
	// +listType=set
	// +kubebuilder:default={Deny}
	// +optional
	ValidationActions []ValidationAction `json:"validationActions,omitempty"`

	// params is free-form data the rules read as `params` (CEL) or
	// `input.params` (Rego), so one module can serve several policies.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +optional
	Params *runtime.RawExtension `json:"params,omitempty"`

	// rules are the checks. Each becomes the catalog entry
	// `policy/<policy name>/<rule id>`.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +listType=map
	// +listMapKey=id
	// +required
	Rules []ValidationPolicyRule `json:"rules"`
}

// ValidationPolicyRule is one check, written in exactly one of CEL or Rego.
// +kubebuilder:validation:XValidation:rule="has(self.cel) != has(self.rego)",message="[validationpolicy/one-language] set exactly one of cel and rego"
// +kubebuilder:validation:XValidation:rule="!(has(self.message) && has(self.messageExpression))",message="[validationpolicy/one-message] set at most one of message and messageExpression"
// +kubebuilder:validation:XValidation:rule="!has(self.rego) || !has(self.messageExpression)",message="[validationpolicy/rego-message] messageExpression is CEL: a Rego rule's violation carries its own msg, or set message"
// +kubebuilder:validation:XValidation:rule="!has(self.cel) || !has(self.allowNondeterministic) || !self.allowNondeterministic",message="[validationpolicy/cel-nondeterministic] allowNondeterministic applies to Rego: CEL has no time or random functions"
type ValidationPolicyRule struct {
	// id names the rule within the policy, in kebab case.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]+(-[a-z0-9]+)*$`
	// +required
	ID string `json:"id"`

	// cel is a CEL expression over `object`, `oldObject` (null on create),
	// `namespaceObject` and `params`, with the Kubernetes CEL libraries. It
	// is true when the object complies; false is a finding at fieldPath.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=10240
	// +optional
	CEL string `json:"cel,omitempty"`

	// rego is a Rego module (v1 syntax) whose `violation` set holds the
	// findings, each `{"msg": string, "field": string}`. Its input is
	// `{"object", "oldObject", "namespaceObject", "params"}`.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=65536
	// +optional
	Rego string `json:"rego,omitempty"`

	// allowNondeterministic lets a Rego module call the builtins whose
	// answer changes between evaluations of the same object (time.now_ns,
	// rand.intn, uuid.rfc4122). Off, a module calling one is refused.
	// +optional
	AllowNondeterministic bool `json:"allowNondeterministic,omitempty"`

	// fieldPath is the field a CEL finding names, e.g. `spec.rateLimit`.
	// Omitted, it is `spec`.
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:Pattern=`^[A-Za-z][A-Za-z0-9]*(\[[0-9]+\]|\.[A-Za-z][A-Za-z0-9]*)*$`
	// +optional
	FieldPath string `json:"fieldPath,omitempty"`

	// message is the finding's message. Omitted, a CEL rule says the
	// expression failed; a Rego rule uses each violation's msg.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Message string `json:"message,omitempty"`

	// messageExpression is a CEL expression (same variables as cel) that
	// returns the message.
	// +kubebuilder:validation:MaxLength=10240
	// +optional
	MessageExpression string `json:"messageExpression,omitempty"`

	// severity is the rule's default severity; --rule-severity on the
	// operator and omniactl overrides it like a built-in rule's.
	// +kubebuilder:default=deny
	// +optional
	Severity PolicySeverity `json:"severity,omitempty"`

	// condition is a condition type the reconcilers set on a matched
	// object from this rule (False with reason PolicyViolation while it
	// has a finding, True otherwise). Omitted, the finding is listed in
	// the object's PolicyCompliant condition.
	// +kubebuilder:validation:MaxLength=316
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`
	// +optional
	Condition string `json:"condition,omitempty"`
}

// ValidationPolicyRuleError is one rule's compile error.
type ValidationPolicyRuleError struct {
	// rule is the catalog ID, `policy/<policy>/<rule>`.
	Rule string `json:"rule"`
	// field is the policy field at fault, e.g. `spec.rules[0].cel`.
	Field string `json:"field"`
	// message says what is wrong.
	Message string `json:"message"`
}

// ValidationPolicyStatus is the observed state of a ValidationPolicy.
type ValidationPolicyStatus struct {
	// observedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready is True when every rule compiled and the policy is
	// in force.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ruleErrors are the compile errors, by rule. A policy with any is not
	// in force.
	// +kubebuilder:validation:MaxItems=128
	// +optional
	RuleErrors []ValidationPolicyRuleError `json:"ruleErrors,omitempty"`
}

// ValidationPolicy is a platform team's own rules on Omnia objects, in CEL or
// Rego, answered by the webhook, the reconcilers, omniactl and the audit.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=ovp,categories=omnia
// +kubebuilder:printcolumn:name="READY",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="ACTIONS",type=string,JSONPath=`.spec.validationActions`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type ValidationPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec declares the policy.
	// +required
	Spec ValidationPolicySpec `json:"spec"`

	// status is set by the operator.
	// +optional
	Status ValidationPolicyStatus `json:"status,omitempty"`
}

// ValidationPolicyList is a list of ValidationPolicies.
// +kubebuilder:object:root=true
type ValidationPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ValidationPolicy `json:"items"`
}

func init() {
	SchemeBuilder.Register(&ValidationPolicy{}, &ValidationPolicyList{})
}
