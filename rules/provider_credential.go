package rules

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// providerTypesWithoutCredential are the types provider.md's "Requires
// Credentials" column marks No: vllm (auth via custom headers), ollama, mock.
var providerTypesWithoutCredential = map[v1alpha1.ProviderType]bool{
	v1alpha1.ProviderTypeVLLM:   true,
	v1alpha1.ProviderTypeOllama: true,
	v1alpha1.ProviderTypeMock:   true,
}

func init() {
	Default.Register(Rule{
		ID:        "provider/credential-required",
		Kinds:     []string{kindProvider},
		Stage:     StageAdmission,
		Severity:  SeverityWarn,
		Condition: v1alpha1.ProviderConditionCredentialConfigured,
		Reason:    v1alpha1.ProviderReasonCredentialMissing,
		Doc: "A type whose \"Requires Credentials\" column says Yes (claude, openai and gemini unless hosted via spec.platform; voyageai, cohere, " +
			"cartesia, elevenlabs, imagen, huggingface) needs spec.credential. The spec names no refusal, so it warns and CredentialConfigured is False.",
		Spec:  "provider.md#type",
		Check: checkProviderCredentialRequired,
	})
}

func checkProviderCredentialRequired(in Input) field.ErrorList {
	p := providerOf(in)
	if p == nil || p.Spec.Credential != nil || providerTypesWithoutCredential[p.Spec.Type] || p.Spec.Platform != nil {
		return nil
	}
	return field.ErrorList{field.Required(field.NewPath("spec", "credential"),
		"type "+string(p.Spec.Type)+" needs a credential: set spec.credential.secretRef (a Secret holding the API key), "+
			"credential.envVar or credential.filePath")}
}
