package agentruntime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/rules"
)

// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=toolregistries,verbs=get;list;watch

// status.compositionDigest (agentruntime.md#other-status-fields) is
// "sha256:<hex>" over everything resolved for the agent, and empty until
// every input has published its own identity. The inputs and what each
// one's identity is:
//
//   - the PromptPack promptPackRef resolves to: its status.contentDigest,
//     the sha256 of the pack.json its ConfigMap holds, which the PromptPack
//     controller publishes while the pack is Ready (with packName and
//     version). Published when status.observedGeneration equals the pack's
//     generation and the digest is set. A pack that did not resolve, a live
//     pack (its PromptPackSource reports on it, not the PromptPack
//     controller) and an Invalid pack have published nothing.
//   - the ToolRegistry the agent uses: its status.contentDigest, which the
//     ToolRegistry controller publishes over the resolved tool set (with the
//     registry's name). Published when status.observedGeneration equals its
//     generation and the digest is set. An agent without a registry — no
//     toolRegistryRef, a cross-namespace one, or a registry that does not
//     exist — runs without tools (agentruntime.md#conditions,
//     ToolRegistryReady), so "no tools" is the resolved input, encoded as
//     null, and there is nothing to wait for.
//   - each spec.providers[] entry's Provider: its UID and
//     metadata.generation (with the entry's name and the Provider's name).
//     The Provider controller publishes no content digest; the generation
//     moves on every spec edit, and the UID tells a re-created Provider from
//     the old one. Published when the Provider controller has observed that
//     generation (status.observedGeneration == metadata.generation). A
//     missing Provider has published nothing.
//
// The skill manifest the spec also names has no input here: an AgentRuntime
// references no skill source of its own (skills travel in the pack content,
// which the pack digest covers).
//
// The encoding is canonical: JSON of fixed structs (field order fixed by the
// type, strings escaped by encoding/json), with the providers sorted by
// entry name — spec.providers is keyed by name, so reordering the list does
// not change what the agent runs, nor its digest. A version field names the
// encoding, so a later change to it is a deliberate, visible one.

// compositionEncodingVersion names the canonical encoding below.
const compositionEncodingVersion = 1

// compositionInputs are an agent's resolved inputs, as looked up.
type compositionInputs struct {
	// PromptPack is the pack promptPackRef resolved to; nil when none did.
	PromptPack *v1alpha1.PromptPack
	// ToolRegistry is the registry the agent uses; nil when it runs
	// without tools.
	ToolRegistry *v1alpha1.ToolRegistry
	// Providers holds, by spec.providers[].name, the Provider each entry
	// names; an entry whose Provider does not exist is absent.
	Providers map[string]*v1alpha1.Provider
}

type compositionDocument struct {
	Version      int                `json:"version"`
	PromptPack   *packIdentity      `json:"promptPack"`
	ToolRegistry *registryIdentity  `json:"toolRegistry"`
	Providers    []providerIdentity `json:"providers"`
}

type packIdentity struct {
	PackName      string `json:"packName"`
	Version       string `json:"version"`
	ContentDigest string `json:"contentDigest"`
}

type registryIdentity struct {
	Name          string `json:"name"`
	ContentDigest string `json:"contentDigest"`
}

type providerIdentity struct {
	Entry      string `json:"entry"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
	Generation int64  `json:"generation"`
}

// digestComposition is status.compositionDigest for the agent's resolved
// inputs: "sha256:<hex>" over their canonical encoding, or "" while an
// input has not published its identity (see above). Pure.
func digestComposition(ar *v1alpha1.AgentRuntime, in compositionInputs) string {
	doc := compositionDocument{Version: compositionEncodingVersion, Providers: []providerIdentity{}}
	if ar.Spec.PromptPackRef != nil {
		p := in.PromptPack
		if p == nil || p.Status.ContentDigest == "" || p.Status.ObservedGeneration != p.Generation {
			return ""
		}
		doc.PromptPack = &packIdentity{PackName: p.Spec.PackName, Version: p.Spec.Version, ContentDigest: p.Status.ContentDigest}
	}
	if tr := in.ToolRegistry; tr != nil {
		if tr.Status.ContentDigest == "" || tr.Status.ObservedGeneration != tr.Generation {
			return ""
		}
		doc.ToolRegistry = &registryIdentity{Name: tr.Name, ContentDigest: tr.Status.ContentDigest}
	}
	for _, e := range ar.Spec.Providers {
		p := in.Providers[e.Name]
		if p == nil || p.UID == "" || p.Status.ObservedGeneration != p.Generation {
			return ""
		}
		doc.Providers = append(doc.Providers, providerIdentity{Entry: e.Name, Name: p.Name, UID: string(p.UID), Generation: p.Generation})
	}
	slices.SortFunc(doc.Providers, func(a, b providerIdentity) int { return strings.Compare(a.Entry, b.Entry) })
	raw, err := json.Marshal(doc)
	if err != nil {
		return "" // unreachable: strings and integers only
	}
	sum := sha256.Sum256(raw)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// compositionDigest looks up the agent's inputs from the facts, as resolve
// does, and
// returns their digest. An error is a lookup that could not be made: the
// digest is then unknown, not empty, and the reconcile is retried.
func (r *Reconciler) compositionDigest(ctx context.Context, ar *v1alpha1.AgentRuntime, facts *clusterfacts.Facts) (string, error) {
	in := compositionInputs{Providers: map[string]*v1alpha1.Provider{}}
	if ref := ar.Spec.PromptPackRef; ref != nil {
		in.PromptPack = rules.AgentRuntimeSelectPromptPack(facts.PromptPacks(ar.Namespace, ref.Name), ref)
	}
	for _, e := range ar.Spec.Providers {
		if p, ok := facts.Provider(ar.Namespace, e.ProviderRef.Name); ok {
			in.Providers[e.Name] = p
		}
	}
	if ref := ar.Spec.ToolRegistryRef; ref != nil && (ref.Namespace == "" || ref.Namespace == ar.Namespace) {
		if tr, ok := facts.ToolRegistry(ar.Namespace, ref.Name); ok {
			in.ToolRegistry = tr
		}
	}
	if err := facts.Err(); err != nil {
		return "", fmt.Errorf("looking up the composition: %w", err)
	}
	return digestComposition(ar, in), nil
}
