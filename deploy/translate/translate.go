// Package translate turns a published-pack deploy intent into the objects it
// materializes (deploy-intent.md § What one intent materializes): the pack
// ConfigMap, the PromptPack, the ToolRegistry, the credential Secret, the
// ToolPolicy and one desired AgentRuntime per agent. It is pure: no client,
// no clock. deploy/apply writes what it returns, in the spec's order.
//
// The intent reaching Translate has been decoded and validated (deploy/intent):
// Translate does not re-check the validation-only rules. What it cannot build
// it reports per object (Objects.ToolRegistryErr, Agent.Err) so the apply
// fails that object's result and still applies the rest; field-level
// validation stays with the API server.
//
// Names (decided here; the spec fixes only <pack>-tools-credentials):
//   - PromptPack: PackObjectName(pack.name, version): "<pack>-<version>", or
//     "<pack>" for a pack without a version. A pack is immutable by version,
//     so each version is its own create-only object, and an agent's
//     promptPackRef {name, version} finds it by its spec.packName label.
//   - ConfigMap: "<PromptPack name>-content", key pack.json (the spec's
//     example: PromptPack my-pack, ConfigMap my-pack-content).
//   - ToolRegistry: "<pack>-tools"; Secret: "<pack>-tools-credentials";
//     ToolPolicy: "<pack>-tools-policy".
//
// Credential values go into the Secret's data and nowhere else: no spec,
// label, annotation or error of this package carries one.
package translate

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/deploy/merge"
	"github.com/altairalabs/omnia/rules"
)

// PackContentKey is the pack ConfigMap's one key: the raw pack.json.
const PackContentKey = "pack.json"

// Kinds of the results, as deploy-intent.md spells them.
const (
	KindConfigMap    = "ConfigMap"
	KindPromptPack   = "PromptPack"
	KindToolRegistry = "ToolRegistry"
	KindSecret       = "Secret"
	KindToolPolicy   = "ToolPolicy"
	KindAgentRuntime = "AgentRuntime"
)

// Objects is what one published-pack intent materializes. A nil object is
// one the intent does not ask for.
type Objects struct {
	ConfigMap  *corev1.ConfigMap
	PromptPack *v1alpha1.PromptPack
	// ToolRegistry is set when tools.handlers is given. ToolRegistryName is
	// its name even when ToolRegistryErr says a handler block could not be
	// decoded (ToolRegistry is then nil).
	ToolRegistry     *v1alpha1.ToolRegistry
	ToolRegistryName string
	ToolRegistryErr  error
	// Secret is set when credentials is given.
	Secret *corev1.Secret
	// ToolPolicy is set when policy.toolBlocklist is given.
	ToolPolicy *v1alpha1.ToolPolicy
	Agents     []Agent
}

// Agent is one agent's desired AgentRuntime and how to merge it.
type Agent struct {
	// Name is the AgentRuntime's name (set even when Err is).
	Name string
	// Desired is the intent translated; nil when Err is set.
	Desired *v1alpha1.AgentRuntime
	// Options are merge.OptionsFor the intent agent.
	Options merge.Options
	// Create is agents[].create: the deploy makes the agent and must not
	// update an existing one.
	Create bool
	// Err says why the agent could not be translated (an unparsable cpu or
	// memory quantity): the apply fails this agent's result.
	Err error
}

var notDNS = regexp.MustCompile(`[^a-z0-9.-]+`)

// PackObjectName is the PromptPack object's name for a pack name and a
// stripped version: "<pack>-<version>" when the version can be part of a
// DNS subdomain name as written (1.2.3, 1.0.0-rc.1), else the version
// lowercased with every other run of characters replaced by '-' plus eight
// hex characters of its hash, so 1.0.0+build and 1.0.0-build differ; the
// pack name alone without a version.
func PackObjectName(pack, version string) string {
	if version == "" {
		return pack
	}
	if len(validation.IsDNS1123Subdomain(pack+"-"+version)) == 0 {
		return pack + "-" + version
	}
	sum := sha256.Sum256([]byte(version))
	clean := strings.Trim(notDNS.ReplaceAllString(strings.ToLower(version), "-"), "-.")
	name := pack + "-" + clean + "-" + hex.EncodeToString(sum[:4])
	if clean == "" || len(validation.IsDNS1123Subdomain(name)) > 0 {
		// Nothing of the version can be kept (an empty label such as
		// "1..2", or a name too long): the hash alone names it.
		return pack + "-" + hex.EncodeToString(sum[:4])
	}
	return name
}

// ContentConfigMapName is the pack ConfigMap's name for a PromptPack name.
func ContentConfigMapName(packObject string) string { return packObject + "-content" }

// ToolRegistryName is the registry a pack's tools.handlers create.
func ToolRegistryName(pack string) string { return pack + "-tools" }

// CredentialsSecretName is the Secret credentials.data is written to.
func CredentialsSecretName(pack string) string { return pack + "-tools-credentials" }

// ToolPolicyName is the ToolPolicy policy.toolBlocklist is written to.
func ToolPolicyName(pack string) string { return pack + "-tools-policy" }

// Translate builds the objects of a published-pack intent in namespace.
// A pack.project intent is not one: the caller routes it elsewhere.
//
// The intent is read in its one spelling (intent.Normalize, which Decode
// has already applied; it is idempotent): pack.version without its leading
// v. Normalizing a copy leaves in's own fields as they are, except that its
// handler blocks may be compacted (the same JSON values).
func Translate(in *intent.DeployIntent, namespace string) *Objects {
	norm := *in
	norm.Normalize()
	in = &norm
	version := in.Pack.Version
	packObject := PackObjectName(in.Pack.Name, version)
	packLabels := labels(in.Labels, map[string]string{rules.PromptPackLabel: in.Pack.Name})
	out := &Objects{
		ConfigMap: &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: KindConfigMap},
			ObjectMeta: meta(ContentConfigMapName(packObject), namespace, packLabels),
			Data:       map[string]string{PackContentKey: in.Pack.Content},
		},
		PromptPack: &v1alpha1.PromptPack{
			TypeMeta:   typeMeta(KindPromptPack),
			ObjectMeta: meta(packObject, namespace, packLabels),
			Spec: v1alpha1.PromptPackSpec{
				PackName: in.Pack.Name,
				Version:  version,
				Source: v1alpha1.PromptPackContentSource{
					ConfigMapRef: &v1alpha1.LocalObjectReference{Name: ContentConfigMapName(packObject)},
				},
				Skills:       packSkills(in.Pack.Skills),
				SkillsConfig: packSkillsConfig(in.Pack.SkillsConfig),
			},
		},
	}
	registry := ""
	if in.Tools != nil {
		registry = in.Tools.Ref
		if len(in.Tools.Handlers) > 0 {
			registry = ToolRegistryName(in.Pack.Name)
			out.ToolRegistryName = registry
			out.ToolRegistry, out.ToolRegistryErr = toolRegistry(in, namespace, registry)
		}
	}
	if in.Credentials != nil {
		out.Secret = credentialsSecret(in, namespace)
	}
	if in.Policy != nil && len(in.Policy.ToolBlocklist) > 0 {
		out.ToolPolicy = toolPolicy(in, namespace, registry)
	}
	for _, a := range in.Agents {
		out.Agents = append(out.Agents, agent(in, a, namespace, version, registry))
	}
	return out
}

func typeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: kind}
}

func meta(name, namespace string, l map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: l}
}

// labels is the intent's labels with fixed ones overlaid: an intent label
// never overrides what the server sets. nil when both are empty.
func labels(intentLabels, fixed map[string]string) map[string]string {
	if len(intentLabels) == 0 && len(fixed) == 0 {
		return nil
	}
	out := make(map[string]string, len(intentLabels)+len(fixed))
	for k, v := range intentLabels {
		out[k] = v
	}
	for k, v := range fixed {
		out[k] = v
	}
	return out
}

// LabelManagedBy and ManagedByDeployAPI mark the upserted objects a deploy
// made (the credential Secret, the ToolPolicy): a later deploy updates only
// an object carrying the mark, so an editor's intent can never make the
// operator overwrite a Secret or a policy someone else wrote under the same
// name. An intent's own labels cannot set or override it.
const (
	LabelManagedBy     = "app.kubernetes.io/managed-by"
	ManagedByDeployAPI = "omnia-deploy-api"
)

var deployedBy = map[string]string{LabelManagedBy: ManagedByDeployAPI}

// MadeByDeploy reports whether a live object carries the deploy's mark.
func MadeByDeploy(obj metav1.Object) bool {
	return obj.GetLabels()[LabelManagedBy] == ManagedByDeployAPI
}

// credentialsSecret is the Secret credentials.data is written to, keys
// verbatim. The owner reference to the ToolRegistry is the apply's (it
// needs the registry's UID).
func credentialsSecret(in *intent.DeployIntent, namespace string) *corev1.Secret {
	data := make(map[string][]byte, len(in.Credentials.Data))
	for k, v := range in.Credentials.Data {
		data[k] = []byte(v)
	}
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: KindSecret},
		ObjectMeta: meta(CredentialsSecretName(in.Pack.Name), namespace, labels(in.Labels, deployedBy)),
		Type:       corev1.SecretTypeOpaque,
		Data:       data,
	}
}

// toolPolicy selects the intent's registry (tools.ref or the created one)
// and refuses the blocklist's tools (spec.toolBlocklist).
func toolPolicy(in *intent.DeployIntent, namespace, registry string) *v1alpha1.ToolPolicy {
	m := meta(ToolPolicyName(in.Pack.Name), namespace, labels(in.Labels, deployedBy))
	return &v1alpha1.ToolPolicy{
		TypeMeta:   typeMeta(KindToolPolicy),
		ObjectMeta: m,
		Spec: v1alpha1.ToolPolicySpec{Selector: v1alpha1.ToolPolicySelector{Registry: registry},
			ToolBlocklist: append([]string(nil), in.Policy.ToolBlocklist...)},
	}
}

// packSkills is pack.skills on the PromptPack (spec.skills), in order.
func packSkills(in []intent.Skill) []v1alpha1.PromptPackSkill {
	if len(in) == 0 {
		return nil
	}
	out := make([]v1alpha1.PromptPackSkill, 0, len(in))
	for _, s := range in {
		out = append(out, v1alpha1.PromptPackSkill{Source: s.Source, Include: append([]string(nil), s.Include...), MountAs: s.MountAs})
	}
	return out
}

// packSkillsConfig is pack.skillsConfig on the PromptPack.
func packSkillsConfig(in *intent.SkillsConfig) *v1alpha1.PromptPackSkillsConfig {
	if in == nil {
		return nil
	}
	out := &v1alpha1.PromptPackSkillsConfig{Selector: in.Selector}
	if in.MaxActive != nil {
		out.MaxActive = ptr.To(*in.MaxActive)
	}
	return out
}
