package rules

import (
	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/licensing"
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
	// ExposureBaseDomain is the operator's --exposure-base-domain, the
	// domain the default exposure hosts are under
	// (`<agent>.<namespace>.<domain>`): an operator setting, not cluster
	// state, handed to rules as the licence is. Empty when exposure is off
	// (no default-exposure Gateway, so no HTTPRoute is ever made): then no
	// host is judged against a namespace's domain. omniactl answers its
	// --exposure-base-domain.
	ExposureBaseDomain() string
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
// It is the key existing installations use. The PromptPack controller adds
// it from spec.packName to a pack that has none; promptpack/label-matches
// reports one that names another pack.
const PromptPackLabel = "omnia.altairalabs.ai/promptpack"

// PromptPackFoundAs is the pack name agents find p under: its label, or
// spec.packName when it has none (the label the PromptPack controller adds).
// Offline checks use it so a manifest's pack is found as it will be on the
// cluster.
func PromptPackFoundAs(p *v1alpha1.PromptPack) string {
	if label, ok := p.Labels[PromptPackLabel]; ok {
		return label
	}
	return p.Spec.PackName
}

// License is what a verified licence grants, as rules see it. licensing/
// produces it (verified from the arena-license Secret, or the open-core
// licence); the zero value is the open-core licence.
type License = licensing.License

// LicenseSource hands out the licence in force. A License is its own
// (fixed) source; the operator hands the reconcilers and the webhook a
// licensing.Store, which a change of the licence Secret updates without a
// restart.
type LicenseSource = licensing.Source

// CurrentLicense reads src, the open-core licence when src is nil.
func CurrentLicense(src LicenseSource) License {
	if src == nil {
		return licensing.OpenCore()
	}
	return src.Current()
}

// The licence features gates ask for (licensing.Feature*).
const (
	FeatureCustomFacade       = licensing.FeatureCustomFacade
	FeatureLoadTesting        = licensing.FeatureLoadTesting
	FeatureDataGeneration     = licensing.FeatureDataGeneration
	FeatureScheduling         = licensing.FeatureScheduling
	FeatureDistributedWorkers = licensing.FeatureDistributedWorkers
	FeatureGitSource          = licensing.FeatureGitSource
)

// LicenseFacts are NoFacts with the licence of a source: the facts of the
// webhook's admission-stage rules, which need the licence alone.
type LicenseFacts struct {
	NoFacts
	Source LicenseSource
}

// License implements Facts.
func (f LicenseFacts) License() License { return CurrentLicense(f.Source) }

// NoFacts knows nothing about the cluster and grants the open-core licence.
type NoFacts struct{}

var _ Facts = NoFacts{}

func (NoFacts) Provider(string, string) (*v1alpha1.Provider, bool) { return nil, false }
func (NoFacts) PromptPacks(string, string) []v1alpha1.PromptPack   { return nil }
func (NoFacts) SecretKeys(string, string) ([]string, bool)         { return nil, false }
func (NoFacts) Workspace(string) (*v1alpha1.Workspace, bool)       { return nil, false }
func (NoFacts) License() License                                   { return licensing.OpenCore() }
func (NoFacts) CRDInstalled(string) bool                           { return false }
func (NoFacts) StatusObserved() bool                               { return false }
func (NoFacts) ExposureBaseDomain() string                         { return "" }

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
