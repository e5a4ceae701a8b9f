package promptpack

import "github.com/altairalabs/omnia/rules"

// Condition types of a PromptPack. The spec names none (it names only the
// phases Ready and Invalid, agentruntime.md#promptpackref); these are the
// controller's.
const (
	// ConditionReady is the roll-up: True when the pack validated (phase
	// Ready), False when it did not (phase Invalid).
	ConditionReady = "Ready"
	// ConditionSourceValid: the source resolved and its content validated
	// (for a ConfigMap source: the ConfigMap exists, its pack.json parses
	// and names this pack and version). Set from the findings of the rules
	// naming it (promptpack/configmap-found, promptpack/pack-json-valid,
	// promptpack/pack-identity-matches).
	ConditionSourceValid = rules.PromptPackConditionSourceValid
)

// Reasons. Those of a False SourceValid are the rules' own.
const (
	// ReasonPackValid (Ready=True): the pack validated.
	ReasonPackValid = "PackValid"
	// ReasonSourceValid (SourceValid=True): the ConfigMap holds a pack.json
	// naming this pack and version.
	ReasonSourceValid = "SourceValid"
	// ReasonConfigMapNotFound (SourceValid=False, rule
	// promptpack/configmap-found).
	ReasonConfigMapNotFound = rules.PromptPackReasonConfigMapNotFound
	// ReasonInvalidPackJSON (SourceValid=False, rule
	// promptpack/pack-json-valid).
	ReasonInvalidPackJSON = rules.PromptPackReasonInvalidPackJSON
	// ReasonPackIdentityMismatch (SourceValid=False, rule
	// promptpack/pack-identity-matches).
	ReasonPackIdentityMismatch = rules.PromptPackReasonPackIdentityMismatch
	// ReasonInvalidSpec (Ready=False): a deny rule naming no condition
	// found a problem in the spec (an object that got in with the webhook
	// off); the rule's own reason is used when it has one.
	ReasonInvalidSpec = "InvalidSpec"
)
