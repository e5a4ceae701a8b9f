package rules

import (
	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Facts answers the cluster-state questions reconcile-stage rules ask. The
// reconcilers answer from the manager's cache, omniactl from the other
// documents it was given, the webhook from its cache for the rules marked
// AdmissionFacts and with the licence alone for the others.
//
// Rules see answers only: found or not found. A source that can fail to look
// (a cache that has not synced, a Forbidden) keeps that to itself and tells
// its caller, which then discards the evaluation (see clusterfacts.Facts.Err).
type Facts interface {
	// Provider returns the Provider namespace/name, if it exists.
	Provider(namespace, name string) (*v1alpha1.Provider, bool)
	// PromptPacks returns the PromptPacks in namespace labelled
	// PromptPackLabel=packName.
	PromptPacks(namespace, packName string) []v1alpha1.PromptPack
	// SecretKeys returns the data keys of the Secret namespace/name, if it
	// exists. Values are never handed to rules.
	SecretKeys(namespace, name string) ([]string, bool)
	// SecretValueMatches applies match to the value of key in the Secret
	// namespace/name and returns match's label. The value itself is never
	// handed to a rule: a rule learns only the label of a pure predicate
	// (e.g. which placeholder pattern a credential matches). False when the
	// Secret or key is missing, or the facts hold no values (omniactl keeps
	// Secret keys only).
	SecretValueMatches(namespace, name, key string, match func(value []byte) (string, bool)) (string, bool)
	// ConfigMapValue returns the value of key in the ConfigMap
	// namespace/name (its data, else its binaryData), whether the key is
	// there, and whether the ConfigMap exists. ConfigMaps hold no secrets:
	// a rule may read the value (e.g. a PromptPack's pack.json).
	ConfigMapValue(namespace, name, key string) (value []byte, hasKey, found bool)
	// Workspace returns the Workspace whose spec.namespace.name is
	// namespace, if any.
	Workspace(namespace string) (*v1alpha1.Workspace, bool)
	// License returns the verified licence in force.
	License() License
	// CRDInstalled reports whether an optional CRD (group/kind, e.g.
	// "omnia.altairalabs.ai/ToolPolicy") is installed.
	CRDInstalled(groupKind string) bool
	// ToolRegistry returns the ToolRegistry namespace/name, if it exists.
	ToolRegistry(namespace, name string) (*v1alpha1.ToolRegistry, bool)
	// AgentRuntime returns the AgentRuntime namespace/name, if it exists
	// (the target of an A2A client's agentRuntimeRef).
	AgentRuntime(namespace, name string) (*v1alpha1.AgentRuntime, bool)
	// PersistentVolumeClaimExists reports whether the PersistentVolumeClaim
	// namespace/name exists (its metadata is all a rule learns).
	PersistentVolumeClaimExists(namespace, name string) bool
	// StatusObserved reports whether the objects these facts return carry
	// the status their controllers write: true in a cluster, where an empty
	// status means "not reconciled yet"; false offline, where manifests
	// carry no status. Rules that judge another object's status (is the
	// Provider Ready, did the PromptPack validate) judge an empty status
	// only when it is observed, and a status a manifest does carry always.
	StatusObserved() bool
}

// PromptPackLabel labels a PromptPack with its pack name: an agent's
// spec.promptPackRef.name finds the PromptPacks labelled
// PromptPackLabel=<name> in its namespace (agentruntime.md, promptPackRef).
// It is the key existing installations use; promptpack/label-matches checks
// that it equals spec.packName.
const PromptPackLabel = "omnia.altairalabs.ai/promptpack"

// License is what a verified licence grants, as rules see it.
type License struct {
	// Features granted, e.g. "custom-facade".
	Features map[string]bool
}

// Has reports whether the licence grants feature.
func (l License) Has(feature string) bool { return l.Features[feature] }

// FeatureCustomFacade is the enterprise feature a `custom` facade needs.
const FeatureCustomFacade = "custom-facade"

// NoFacts knows nothing about the cluster and grants no licence features;
// until licensing exists it is the licence every consumer sees.
type NoFacts struct{}

var _ Facts = NoFacts{}

func (NoFacts) Provider(string, string) (*v1alpha1.Provider, bool) { return nil, false }
func (NoFacts) PromptPacks(string, string) []v1alpha1.PromptPack   { return nil }
func (NoFacts) SecretKeys(string, string) ([]string, bool)         { return nil, false }
func (NoFacts) Workspace(string) (*v1alpha1.Workspace, bool)       { return nil, false }
func (NoFacts) License() License                                   { return License{} }
func (NoFacts) CRDInstalled(string) bool                           { return false }
func (NoFacts) StatusObserved() bool                               { return false }

func (NoFacts) ToolRegistry(string, string) (*v1alpha1.ToolRegistry, bool) { return nil, false }
func (NoFacts) AgentRuntime(string, string) (*v1alpha1.AgentRuntime, bool) { return nil, false }
func (NoFacts) PersistentVolumeClaimExists(string, string) bool            { return false }

func (NoFacts) ConfigMapValue(string, string, string) ([]byte, bool, bool) { return nil, false, false }

func (NoFacts) SecretValueMatches(string, string, string, func([]byte) (string, bool)) (string, bool) {
	return "", false
}

// namespaceText names a namespace in a message; an object read from a
// manifest without one lives in whatever namespace it is applied to.
func namespaceText(ns string) string {
	if ns == "" {
		return "the object's namespace"
	}
	return "namespace " + ns
}
