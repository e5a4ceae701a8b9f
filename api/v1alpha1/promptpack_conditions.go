package v1alpha1

// The conditions a PromptPack's status carries and their reasons: one
// const block per condition type, its reasons after it (hack/conditionsdoc
// generates docs/conditions.md from this file). The spec names none (it
// names only the phases Ready and Invalid, agentruntime.md#promptpackref);
// these are the controller's. The reasons of a False SourceValid are the
// rules' own.

const (
	// PromptPackConditionReady is the roll-up: True when the pack validated (phase
	// Ready), False when it did not (phase Invalid).
	PromptPackConditionReady = "Ready"
	// PromptPackReasonPackValid (Ready=True): the pack validated.
	PromptPackReasonPackValid = "PackValid"
	// PromptPackReasonInvalidSpec (Ready=False): a deny rule naming no condition
	// found a problem in the spec (an object that got in with the webhook
	// off); the rule's own reason is used when it has one.
	PromptPackReasonInvalidSpec = "InvalidSpec"
)

const (
	// PromptPackConditionSourceValid: the source resolved and its content validated
	// (for a ConfigMap source: the ConfigMap exists, its pack.json parses
	// and names this pack and version). Set from the findings of the rules
	// naming it (promptpack/configmap-found, promptpack/pack-json-valid,
	// promptpack/pack-identity-matches).
	PromptPackConditionSourceValid = "SourceValid"
	// PromptPackReasonSourceValid (SourceValid=True): the ConfigMap holds a pack.json
	// naming this pack and version.
	PromptPackReasonSourceValid = "SourceValid"
	// PromptPackReasonConfigMapNotFound: spec.source.configMapRef names no
	// ConfigMap in the pack's namespace.
	PromptPackReasonConfigMapNotFound = "ConfigMapNotFound"
	// PromptPackReasonInvalidPackJSON: the ConfigMap has no pack.json key, or
	// its value is not a JSON object.
	PromptPackReasonInvalidPackJSON = "InvalidPackJSON"
	// PromptPackReasonPackIdentityMismatch: pack.json's id or version is not
	// the PromptPack's spec.packName or spec.version.
	PromptPackReasonPackIdentityMismatch = "PackIdentityMismatch"
)

const (
	// PromptPackConditionLabelMatches says whether the label
	// omnia.altairalabs.ai/promptpack equals spec.packName, the name agents
	// find the pack by (an AgentRuntime's promptPackRef.name lists packs by
	// that label). The controller adds the label to a pack that has none;
	// it never rewrites one a user set. It does not feed Ready: the pack is
	// valid, only not found under its spec.packName.
	PromptPackConditionLabelMatches = "LabelMatches"
	// PromptPackReasonLabelMatches (LabelMatches=True, not named by the
	// spec): the label equals spec.packName.
	PromptPackReasonLabelMatches = "LabelMatches"
	// PromptPackReasonLabelMismatch (LabelMatches=False, not named by the
	// spec, rule promptpack/label-matches): the label names another pack,
	// so agents find this pack under the label's value, not spec.packName.
	PromptPackReasonLabelMismatch = "LabelMismatch"
)
