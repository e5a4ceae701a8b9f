package rules

import (
	"encoding/json"
	"strconv"

	"golang.org/x/mod/semver"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// AgentRuntime reconcile-stage rules on the state of what the agent
// references: is the Provider Ready, did the resolved PromptPack validate,
// does the ToolRegistry exist, does every A2A client resolve, does every
// PersistentVolumeClaim the pod mounts exist. Like the lookups in
// agentruntime_facts.go they never act at admission; the reconciler turns
// them into conditions and the phase (agentruntime.md#conditions, #phase).

func init() {
	Default.Register(Rule{
		ID:        "agentruntime/provider-ready",
		Kinds:     agentRuntimeKinds,
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.AgentRuntimeConditionProviderReady,
		Reason:    v1alpha1.AgentRuntimeReasonProviderNotReady,
		Doc: "A referenced Provider's status.phase is Ready; one that exists but is not Ready (Error, Unavailable, or not reconciled yet) " +
			"holds the agent Pending with no Deployment change, and the agent is reconciled again when the Provider's status changes. " +
			"The spec names no reason for it: ProviderNotReady.",
		Spec:  "agentruntime.md#providers",
		Check: checkAgentRuntimeProviderReady,
	})
	Default.Register(Rule{
		ID:        "agentruntime/promptpack-valid",
		Kinds:     agentRuntimeKinds,
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.AgentRuntimeConditionPromptPackReady,
		Reason:    v1alpha1.AgentRuntimeReasonPromptPackInvalid,
		Doc: "The PromptPack spec.promptPackRef resolves to (the pick of AgentRuntimeSelectPromptPack: the exact version, or the highest " +
			"on the track) has not failed source or schema validation (status.phase Invalid); phase Failed otherwise.",
		Spec:  "agentruntime.md#promptpackref",
		Check: checkAgentRuntimePromptPackValid,
	})
	Default.Register(Rule{
		ID:        "agentruntime/promptpack-validated",
		Kinds:     agentRuntimeKinds,
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.AgentRuntimeConditionPromptPackReady,
		Reason:    v1alpha1.AgentRuntimeReasonPromptPackNotValidated,
		Doc: "The resolved PromptPack has been validated (status.phase set by the PromptPack controller); until then the agent is held " +
			"Pending with no Deployment change. The spec names no reason for it: PromptPackNotValidated.",
		Spec:  "agentruntime.md#promptpackref",
		Check: checkAgentRuntimePromptPackValidated,
	})
	Default.Register(Rule{
		ID:        "agentruntime/tool-registry-exists",
		Kinds:     agentRuntimeKinds,
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.AgentRuntimeConditionToolRegistryReady,
		Reason:    v1alpha1.AgentRuntimeReasonToolRegistryNotFound,
		Doc: "spec.toolRegistryRef names an existing ToolRegistry in the agent's namespace; a missing one sets ToolRegistryReady False " +
			"and the agent runs without tools (no tool registry in its pod) until it is created.",
		Spec:  "agentruntime.md#conditions",
		Check: checkAgentRuntimeToolRegistryExists,
	})
	Default.Register(Rule{
		ID:        "agentruntime/a2a-client-resolves",
		Kinds:     agentRuntimeKinds,
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.AgentRuntimeConditionA2AClientsResolved,
		Reason:    v1alpha1.AgentRuntimeReasonUnresolved,
		Doc: "Every A2A client (spec.a2aClients, else the deprecated facades[].a2a.clients) resolves: an agentRuntimeRef to an existing " +
			"AgentRuntime with an a2a facade serving a data plane (its in-cluster A2A URL), a url as given; two clients resolving to the " +
			"same endpoint leave the second unresolved. An unresolved client is left out of the runtime and the agent starts without it.",
		Spec:  "agentruntime.md#a2aclients",
		Check: checkAgentRuntimeA2AClientResolves,
	})
	Default.Register(Rule{
		ID:        "agentruntime/volume-claims-exist",
		Kinds:     agentRuntimeKinds,
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.AgentRuntimeConditionVolumes,
		Reason:    v1alpha1.AgentRuntimeReasonPersistentVolumeClaimNotFound,
		Doc: "Every PersistentVolumeClaim the pod mounts (media.storage.local.volumeClaim, runtime.volumes, podOverrides.extraVolumes) " +
			"exists; Volumes is False naming the missing claims otherwise. The Deployment is still applied: its pods stay Pending, as " +
			"Kubernetes keeps any pod whose claim is missing, and start once the claim is created.",
		Spec:  "agentruntime.md#conditions",
		Check: checkAgentRuntimeVolumeClaimsExist,
	})
}

// ---- PromptPack selection ----

// agentRuntimeVersionLess orders pack versions by semver precedence (build
// metadata ignored, a prerelease below its release), with versions that are
// not semver below those that are, and string order as the tie-break so the
// pick is deterministic.
func agentRuntimeVersionLess(a, b string) bool {
	va, vb := "v"+a, "v"+b
	if c := semver.Compare(va, vb); c != 0 {
		return c < 0
	}
	return a < b
}

// AgentRuntimeSelectPromptPack is the PromptPack ref resolves to among the
// packs labelled with its name (Facts.PromptPacks), nil when none:
//
//   - a live pack resolves a bare ref, when the name has no published
//     version (a version or track on it, or a name with both, resolves for
//     nothing: promptpack-live-ref and promptpack-name-conflict say why);
//   - version: the pack with exactly that version (string equality, build
//     metadata included);
//   - track prerelease: the highest version;
//   - track stable, or neither: the highest non-prerelease version.
//
// The controller deploys this pack and the rules judge it: one function, so
// both pick the same.
func AgentRuntimeSelectPromptPack(packs []v1alpha1.PromptPack, ref *v1alpha1.AgentRuntimePromptPackRef) *v1alpha1.PromptPack {
	if ref == nil {
		return nil
	}
	var live, best *v1alpha1.PromptPack
	published := 0
	for i := range packs {
		p := &packs[i]
		if p.Spec.Source.Live != nil {
			if live == nil {
				live = p
			}
			continue
		}
		published++
		switch {
		case ref.Version != "":
			if p.Spec.Version == ref.Version && best == nil {
				best = p
			}
		case ref.Track != v1alpha1.AgentRuntimePromptPackTrackPrerelease && agentRuntimeIsPrerelease(p.Spec.Version):
		case best == nil || agentRuntimeVersionLess(best.Spec.Version, p.Spec.Version):
			best = p
		}
	}
	if live != nil {
		if published == 0 && ref.Version == "" && ref.Track == "" {
			return live
		}
		return nil
	}
	return best
}

// agentRuntimeSelectedPack is the pack spec.promptPackRef resolves to.
func agentRuntimeSelectedPack(in Input, ar *v1alpha1.AgentRuntime) *v1alpha1.PromptPack {
	if ar.Spec.PromptPackRef == nil {
		return nil
	}
	return AgentRuntimeSelectPromptPack(in.Facts.PromptPacks(ar.Namespace, ar.Spec.PromptPackRef.Name), ar.Spec.PromptPackRef)
}

func checkAgentRuntimePromptPackValid(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	p := agentRuntimeSelectedPack(in, ar)
	if p == nil || p.Status.Phase != v1alpha1.PromptPackPhaseInvalid {
		return nil
	}
	fp := field.NewPath("spec", "promptPackRef", "name")
	return field.ErrorList{field.Invalid(fp, ar.Spec.PromptPackRef.Name,
		"PromptPack "+p.Name+" (version "+p.Spec.Version+") failed validation (status.phase Invalid; its conditions say why); "+
			"fix the pack's source, or pin another version")}
}

func checkAgentRuntimePromptPackValidated(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil || !in.Facts.StatusObserved() {
		return nil
	}
	p := agentRuntimeSelectedPack(in, ar)
	if p == nil || p.Status.Phase != "" {
		return nil
	}
	fp := field.NewPath("spec", "promptPackRef", "name")
	return field.ErrorList{field.Invalid(fp, ar.Spec.PromptPackRef.Name,
		"PromptPack "+p.Name+" (version "+p.Spec.Version+") has not been validated yet (no status.phase); "+
			"the agent waits for the PromptPack controller")}
}

// ---- Provider readiness ----

// AgentRuntimeProviderUsable is the Provider readiness an agent waits for:
// phase Ready, or no phase yet when statuses are not observed (an offline
// check sees no status). The deploy plan asks with statusObserved false:
// deploy-intent.md accepts a Provider whose "phase is Ready or empty".
func AgentRuntimeProviderUsable(p *v1alpha1.Provider, statusObserved bool) bool {
	return p.Status.Phase == v1alpha1.ProviderPhaseReady || (p.Status.Phase == "" && !statusObserved)
}

func checkAgentRuntimeProviderReady(in Input) field.ErrorList {
	var errs field.ErrorList
	observed := in.Facts.StatusObserved()
	agentRuntimeProviderEntries(in, func(_ *v1alpha1.AgentRuntimeProvider, p *v1alpha1.Provider, ref string, path *field.Path) {
		phase := p.Status.Phase
		if AgentRuntimeProviderUsable(p, observed) {
			return
		}
		state := "phase " + string(phase)
		if phase == "" {
			state = "no status yet: the Provider controller has not reconciled it"
		}
		fp := path.Child("providerRef", "name")
		errs = append(errs, field.Invalid(fp, p.Name,
			"Provider "+ref+" is not Ready ("+state+"); the agent stays Pending until it is (see the Provider's conditions)"))
	})
	return errs
}

// ---- ToolRegistry ----

func checkAgentRuntimeToolRegistryExists(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil || ar.Spec.ToolRegistryRef == nil || agentRuntimeForeignNamespace(ar, ar.Spec.ToolRegistryRef.Namespace) {
		return nil // tool-registry-cross-namespace reports a foreign one
	}
	name := ar.Spec.ToolRegistryRef.Name
	if _, ok := in.Facts.ToolRegistry(ar.Namespace, name); ok {
		return nil
	}
	fp := field.NewPath("spec", "toolRegistryRef", "name")
	e := field.NotFound(fp, name)
	e.Detail = "ToolRegistry " + ar.Namespace + "/" + name + " named by " + fp.String() +
		" does not exist; the agent runs without tools until it is created"
	return field.ErrorList{e}
}

// ---- A2A clients ----

// AgentRuntimeA2AClientResolution is how one A2A client resolved.
type AgentRuntimeA2AClientResolution struct {
	// Name is the client's name.
	Name string
	// URL is the endpoint it resolved to; empty when unresolved.
	URL string
	// Error says why it is unresolved; empty when resolved.
	Error string
	// CrossNamespace marks a client unresolved because its agentRuntimeRef
	// names another namespace (a2a-client-cross-namespace's finding).
	CrossNamespace bool
	// Field is the path of the entry's offending field.
	Field *field.Path
}

// Resolved reports whether the client resolved.
func (r AgentRuntimeA2AClientResolution) Resolved() bool { return r.Error == "" }

// AgentRuntimeA2AClients is the list of A2A clients in force and its path:
// spec.a2aClients, else the deprecated facades[].a2a.clients (honoured while
// spec.a2aClients is unset).
func AgentRuntimeA2AClients(ar *v1alpha1.AgentRuntime) ([]v1alpha1.AgentRuntimeA2AClient, *field.Path) {
	if len(ar.Spec.A2AClients) > 0 {
		return ar.Spec.A2AClients, field.NewPath("spec", "a2aClients")
	}
	for i := range ar.Spec.Facades {
		if a := AgentRuntimeFacadeA2A(&ar.Spec.Facades[i]); a != nil && len(a.Clients) > 0 {
			return a.Clients, field.NewPath("spec", "facades").Index(i).Child("a2a", "clients")
		}
	}
	return nil, nil
}

// Ports the spec fixes for an agent's A2A listener: the primary facade's
// port when a2a is the only agent-mode facade, else a2a.port.
const (
	AgentRuntimeDefaultFacadePort int32 = 8080
	AgentRuntimeDefaultA2APort    int32 = 9999
)

// AgentRuntimeA2AEndpoint is the in-cluster A2A URL of an agent with an a2a
// facade, http://<name>.<namespace>.svc.cluster.local:<port> on the
// Service port of its a2a data plane; empty when it has no a2a facade or
// that facade serves no data plane (dataPlane: false).
func AgentRuntimeA2AEndpoint(ar *v1alpha1.AgentRuntime) string {
	primary := agentRuntimePrimaryFacade(ar.Spec.Facades)
	for i := range ar.Spec.Facades {
		f := &ar.Spec.Facades[i]
		if agentRuntimeFacadeType(f) != v1alpha1.AgentRuntimeFacadeTypeA2A {
			continue
		}
		if f.DataPlane != nil && !*f.DataPlane {
			return ""
		}
		port := AgentRuntimeDefaultA2APort
		switch {
		case i == primary:
			port = AgentRuntimeDefaultFacadePort
			if f.Port != nil {
				port = *f.Port
			}
		case f.A2A != nil && f.A2A.Port != nil:
			port = *f.A2A.Port
		}
		return "http://" + ar.Name + "." + ar.Namespace + ".svc.cluster.local:" + strconv.Itoa(int(port))
	}
	return ""
}

// AgentRuntimeA2AClientResolutions resolves each A2A client in force, in
// order (agentruntime.md#a2aclients): an agentRuntimeRef to the target's
// A2A endpoint, a url as given. The controller reports these in
// status.a2a.clients[] and wires only the resolved ones into the runtime;
// a2a-client-resolves reports the unresolved ones.
func AgentRuntimeA2AClientResolutions(ar *v1alpha1.AgentRuntime, facts Facts) []AgentRuntimeA2AClientResolution {
	clients, base := AgentRuntimeA2AClients(ar)
	if len(clients) == 0 {
		return nil
	}
	out := make([]AgentRuntimeA2AClientResolution, 0, len(clients))
	seen := map[string]string{} // URL → first client resolving to it
	for i := range clients {
		c := &clients[i]
		r := AgentRuntimeA2AClientResolution{Name: c.Name, Field: base.Index(i)}
		switch ref := c.AgentRuntimeRef; {
		case ref != nil && agentRuntimeForeignNamespace(ar, ref.Namespace):
			r.Field = r.Field.Child("agentRuntimeRef", "namespace")
			r.CrossNamespace = true
			r.Error = "agentRuntimeRef names namespace " + ref.Namespace + "; only the agent's own namespace " + ar.Namespace + " is allowed"
		case ref != nil:
			r.Field = r.Field.Child("agentRuntimeRef", "name")
			target, ok := facts.AgentRuntime(ar.Namespace, ref.Name)
			switch {
			case !ok:
				r.Error = "AgentRuntime " + ar.Namespace + "/" + ref.Name + " does not exist"
			default:
				if r.URL = AgentRuntimeA2AEndpoint(target); r.URL == "" {
					r.Error = "AgentRuntime " + ar.Namespace + "/" + ref.Name + " has no a2a facade serving a data plane"
				}
			}
		case c.URL != "":
			r.Field = r.Field.Child("url")
			r.URL = c.URL
		default:
			r.Error = "neither agentRuntimeRef nor url is set"
		}
		if r.Error == "" {
			if first, dup := seen[r.URL]; dup {
				r.Error = "resolves to the same endpoint as client " + first + " (" + r.URL + ")"
			} else {
				seen[r.URL] = c.Name
			}
		}
		if r.Error != "" {
			r.URL = ""
		}
		out = append(out, r)
	}
	return out
}

func checkAgentRuntimeA2AClientResolves(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	var errs field.ErrorList
	for _, r := range AgentRuntimeA2AClientResolutions(ar, in.Facts) {
		if r.Resolved() || r.CrossNamespace {
			continue
		}
		errs = append(errs, field.Invalid(r.Field, r.Name,
			"A2A client "+r.Name+" is unresolved: "+r.Error+"; the agent starts without it"))
	}
	return errs
}

// ---- Volumes ----

// agentRuntimeClaim is one PersistentVolumeClaim the pod mounts and the
// field that names it.
type agentRuntimeClaim struct {
	name string
	path *field.Path
}

// agentRuntimeClaims lists the claims the pod mounts, in the order the pod
// lists its volumes, first mention only: media.storage.local.volumeClaim,
// runtime.volumes, then podOverrides.extraVolumes (an entry that is not a
// Volume mounts nothing; the Deployment builder reports it).
func agentRuntimeClaims(ar *v1alpha1.AgentRuntime) []agentRuntimeClaim {
	var out []agentRuntimeClaim
	add := func(name string, p *field.Path) {
		if name == "" {
			return
		}
		for _, c := range out {
			if c.name == name {
				return
			}
		}
		out = append(out, agentRuntimeClaim{name, p})
	}
	if m := ar.Spec.Media; m != nil && m.Storage != nil && m.Storage.Type == "local" && m.Storage.Local != nil {
		add(m.Storage.Local.VolumeClaim, field.NewPath("spec", "media", "storage", "local", "volumeClaim"))
	}
	if rt := ar.Spec.Runtime; rt != nil {
		for i := range rt.Volumes {
			if c := rt.Volumes[i].PersistentVolumeClaim; c != nil {
				add(c.ClaimName, field.NewPath("spec", "runtime", "volumes").Index(i).Child("persistentVolumeClaim", "claimName"))
			}
		}
	}
	if po := ar.Spec.PodOverrides; po != nil {
		for i, raw := range po.ExtraVolumes {
			var v struct {
				PersistentVolumeClaim *struct {
					ClaimName string `json:"claimName"`
				} `json:"persistentVolumeClaim"`
			}
			if json.Unmarshal(raw.Raw, &v) == nil && v.PersistentVolumeClaim != nil {
				add(v.PersistentVolumeClaim.ClaimName,
					field.NewPath("spec", "podOverrides", "extraVolumes").Index(i).Child("persistentVolumeClaim", "claimName"))
			}
		}
	}
	return out
}

// AgentRuntimePersistentVolumeClaims are the names of the
// PersistentVolumeClaims the agent's pod mounts, in pod order, without
// repeats.
func AgentRuntimePersistentVolumeClaims(ar *v1alpha1.AgentRuntime) []string {
	claims := agentRuntimeClaims(ar)
	out := make([]string, 0, len(claims))
	for _, c := range claims {
		out = append(out, c.name)
	}
	return out
}

func checkAgentRuntimeVolumeClaimsExist(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	var errs field.ErrorList
	for _, c := range agentRuntimeClaims(ar) {
		if in.Facts.PersistentVolumeClaimExists(ar.Namespace, c.name) {
			continue
		}
		e := field.NotFound(c.path, c.name)
		e.Detail = "PersistentVolumeClaim " + c.name + " does not exist in " + namespaceText(ar.Namespace) +
			"; the Deployment is applied and its pods stay Pending until the claim is created"
		errs = append(errs, e)
	}
	return errs
}
