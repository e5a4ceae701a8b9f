package v1alpha1

// The conditions a PromptPackSource's status carries and their reasons
// (hack/conditionsdoc generates docs/conditions.md from this file). The
// spec names none; these are the controller's.

const (
	// PromptPackSourceConditionReady says whether the source's live PromptPack
	// (named spec.packName, sourced live from the project) is in place.
	PromptPackSourceConditionReady = "Ready"
	// PromptPackSourceReasonPackMaterialized (Ready=True): the live PromptPack
	// exists, controlled by this source.
	PromptPackSourceReasonPackMaterialized = "PackMaterialized"
	// PromptPackSourceReasonPackNameTaken (Ready=False): a PromptPack of that
	// name exists that this source does not control; it is not taken over.
	PromptPackSourceReasonPackNameTaken = "PackNameTaken"
)
