package merge

import (
	"fmt"
	"strings"
)

// Tier is who owns a field of an AgentRuntime's spec on a redeploy
// (deploy-intent.md § What a redeploy preserves).
type Tier string

const (
	// Preserved: a deploy has no opinion; the live value is kept.
	Preserved Tier = "Preserved"
	// IntentOwned: assigned wholesale from the desired object; omission
	// means off (the field is cleared and the API server's default, if any,
	// applies).
	IntentOwned Tier = "IntentOwned"
	// FieldMerged: a parent whose sub-fields are split: the intent owns the
	// ones classified IntentOwned, the live object keeps the Preserved ones.
	FieldMerged Tier = "FieldMerged"
)

// classification is the tier of every field path of AgentRuntimeSpec, at
// any depth, in declaration order (SpecPaths spells the paths). Every path
// is listed exactly once, so a new CRD field fails the drift test
// (drift_test.go) until someone decides here who owns it. Only a
// FieldMerged parent may have children of another tier; below a Preserved
// or IntentOwned path every descendant has the same tier.
//
// The spec's table names the tier of each top-level field and of the
// field-merged parents' sub-fields it lists. Where it is silent this file
// decides, always for Preserved (a deploy never clears what it cannot
// express):
//   - a2aClients (top level, not in the table): Preserved, like its
//     deprecated twin facades[].a2a.clients;
//   - runtime.extraEnv, runtime.events, runtime.autoscaling: Preserved (the
//     table lists only replicas and resources as the intent's);
//   - promptPackRef.track: Preserved; no deploy ever writes track, and the
//     only change a deploy makes to it is the spec's "entering trigger mode
//     clears the track" (see mergePromptPackRef);
//   - facades[].handler: IntentOwned and always "runtime" (the spec: handler
//     is always forced to runtime);
//   - rollout.trigger and rollout.steps: IntentOwned (the intent's rollout
//     block is { trigger?, steps? }; the table lists the rest as Preserved).
//
// promptPackRef.version is IntentOwned subject to the rollout interaction:
// a live pin under a version trigger stays with the controller, and a track
// follower gets no version (mergePromptPackRef).
//
// Descendants of an IntentOwned parent are IntentOwned even where the
// intent cannot express them (memory.facet, memory.tools.notes,
// evals.podOverrides, externalAuth.oidc.sessionClaim,
// providers[].requiredCapabilities): the spec assigns those parents
// wholesale, so a deploy clears them.
//
// Descent stops at types outside api/v1alpha1 (core/v1 Volume, Affinity,
// ResourceRequirements, EnvVar, Toleration, resource.Quantity,
// runtime.RawExtension): such a field is one opaque leaf.
const classification = `
mode                                                          Preserved
inputSchema                                                   Preserved
outputSchema                                                  Preserved
outputFormat                                                  Preserved
promptPackRef                                                 FieldMerged
promptPackRef.name                                            IntentOwned
promptPackRef.version                                         IntentOwned
promptPackRef.track                                           Preserved
providers                                                     IntentOwned
providers[].name                                              IntentOwned
providers[].providerRef                                       IntentOwned
providers[].providerRef.name                                  IntentOwned
providers[].providerRef.namespace                             IntentOwned
providers[].role                                              IntentOwned
providers[].requiredCapabilities                              IntentOwned
framework                                                     Preserved
framework.type                                                Preserved
framework.image                                               Preserved
facades                                                       FieldMerged
facades[].type                                                IntentOwned
facades[].port                                                Preserved
facades[].handler                                             IntentOwned
facades[].image                                               Preserved
facades[].extraEnv                                            Preserved
facades[].drainTimeout                                        Preserved
facades[].clientToolTimeout                                   Preserved
facades[].managementPlane                                     IntentOwned
facades[].dataPlane                                           IntentOwned
facades[].a2a                                                 Preserved
facades[].a2a.port                                            Preserved
facades[].a2a.agentCard                                       Preserved
facades[].a2a.agentCard.name                                  Preserved
facades[].a2a.agentCard.description                           Preserved
facades[].a2a.agentCard.version                               Preserved
facades[].a2a.agentCard.organization                          Preserved
facades[].a2a.agentCard.skills                                Preserved
facades[].a2a.agentCard.skills[].id                           Preserved
facades[].a2a.agentCard.skills[].name                         Preserved
facades[].a2a.agentCard.skills[].description                  Preserved
facades[].a2a.agentCard.skills[].tags                         Preserved
facades[].a2a.agentCard.skills[].examples                     Preserved
facades[].a2a.agentCard.defaultInputModes                     Preserved
facades[].a2a.agentCard.defaultOutputModes                    Preserved
facades[].a2a.agentCard.capabilities                          Preserved
facades[].a2a.taskTTL                                         Preserved
facades[].a2a.conversationTTL                                 Preserved
facades[].a2a.taskStore                                       Preserved
facades[].a2a.taskStore.type                                  Preserved
facades[].a2a.taskStore.redisURL                              Preserved
facades[].a2a.taskStore.redisSecretRef                        Preserved
facades[].a2a.taskStore.redisSecretRef.name                   Preserved
facades[].a2a.clients                                         Preserved
facades[].a2a.clients[].name                                  Preserved
facades[].a2a.clients[].agentRuntimeRef                       Preserved
facades[].a2a.clients[].agentRuntimeRef.name                  Preserved
facades[].a2a.clients[].agentRuntimeRef.namespace             Preserved
facades[].a2a.clients[].url                                   Preserved
facades[].a2a.clients[].exposeAsTools                         Preserved
facades[].a2a.clients[].authentication                        Preserved
facades[].a2a.clients[].authentication.secretRef              Preserved
facades[].a2a.clients[].authentication.secretRef.name         Preserved
facades[].a2a.clients[].timeout                               Preserved
facades[].mcp                                                 Preserved
facades[].mcp.port                                            Preserved
facades[].async                                               Preserved
facades[].async.enabled                                       Preserved
facades[].async.workers                                       Preserved
facades[].expose                                              Preserved
facades[].expose.enabled                                      Preserved
facades[].expose.host                                         Preserved
toolRegistryRef                                               IntentOwned
toolRegistryRef.name                                          IntentOwned
toolRegistryRef.namespace                                     IntentOwned
a2aClients                                                    Preserved
a2aClients[].name                                             Preserved
a2aClients[].agentRuntimeRef                                  Preserved
a2aClients[].agentRuntimeRef.name                             Preserved
a2aClients[].agentRuntimeRef.namespace                        Preserved
a2aClients[].url                                              Preserved
a2aClients[].exposeAsTools                                    Preserved
a2aClients[].authentication                                   Preserved
a2aClients[].authentication.secretRef                         Preserved
a2aClients[].authentication.secretRef.name                    Preserved
a2aClients[].timeout                                          Preserved
sandbox                                                       Preserved
sandbox.enabled                                               Preserved
sandbox.maxConcurrent                                         Preserved
sandbox.maxPerSession                                         Preserved
sandbox.idleTimeout                                           Preserved
sandbox.releaseGrace                                          Preserved
sandbox.mountReleaseGrace                                     Preserved
sandbox.connections                                           Preserved
sandbox.connections[].sandbox                                 Preserved
sandbox.connections[].role                                    Preserved
sandbox.connections[].connection                              Preserved
sandbox.connections[].unbind                                  Preserved
context                                                       Preserved
context.type                                                  Preserved
context.ttl                                                   Preserved
context.storeRef                                              Preserved
context.storeRef.name                                         Preserved
media                                                         Preserved
media.basePath                                                Preserved
media.storage                                                 Preserved
media.storage.type                                            Preserved
media.storage.local                                           Preserved
media.storage.local.basePath                                  Preserved
media.storage.local.volumeClaim                               Preserved
media.storage.s3                                              Preserved
media.storage.s3.bucket                                       Preserved
media.storage.s3.region                                       Preserved
media.storage.s3.prefix                                       Preserved
media.storage.s3.endpoint                                     Preserved
media.storage.gcs                                             Preserved
media.storage.gcs.bucket                                      Preserved
media.storage.gcs.prefix                                      Preserved
media.storage.azure                                           Preserved
media.storage.azure.account                                   Preserved
media.storage.azure.container                                 Preserved
media.storage.azure.prefix                                    Preserved
media.storage.defaultTTL                                      Preserved
media.storage.uploadURLTTL                                    Preserved
media.storage.downloadURLTTL                                  Preserved
media.storage.maxFileSizeBytes                                Preserved
media.storage.secretRef                                       Preserved
media.storage.secretRef.name                                  Preserved
rateLimit                                                     Preserved
rateLimit.maxInvocationsPerMinute                             Preserved
rateLimit.burst                                               Preserved
runtime                                                       FieldMerged
runtime.replicas                                              IntentOwned
runtime.resources                                             IntentOwned
runtime.nodeSelector                                          Preserved
runtime.tolerations                                           Preserved
runtime.affinity                                              Preserved
runtime.volumes                                               Preserved
runtime.volumeMounts                                          Preserved
runtime.extraEnv                                              Preserved
runtime.events                                                Preserved
runtime.events.record                                         Preserved
runtime.autoscaling                                           Preserved
runtime.autoscaling.enabled                                   Preserved
runtime.autoscaling.type                                      Preserved
runtime.autoscaling.minReplicas                               Preserved
runtime.autoscaling.maxReplicas                               Preserved
runtime.autoscaling.targetMemoryUtilizationPercentage         Preserved
runtime.autoscaling.targetCPUUtilizationPercentage            Preserved
runtime.autoscaling.scaleDownStabilizationSeconds             Preserved
runtime.autoscaling.keda                                      Preserved
runtime.autoscaling.keda.pollingInterval                      Preserved
runtime.autoscaling.keda.cooldownPeriod                       Preserved
runtime.autoscaling.keda.triggers                             Preserved
runtime.autoscaling.keda.triggers[].type                      Preserved
runtime.autoscaling.keda.triggers[].metadata                  Preserved
runtime.autoscaling.keda.connectionThreshold                  Preserved
evals                                                         IntentOwned
evals.enabled                                                 IntentOwned
evals.inline                                                  IntentOwned
evals.inline.groups                                           IntentOwned
evals.worker                                                  IntentOwned
evals.worker.groups                                           IntentOwned
evals.podOverrides                                            IntentOwned
evals.podOverrides.serviceAccountName                         IntentOwned
evals.podOverrides.priorityClassName                          IntentOwned
evals.podOverrides.runtimeClassName                           IntentOwned
evals.podOverrides.labels                                     IntentOwned
evals.podOverrides.annotations                                IntentOwned
evals.podOverrides.nodeSelector                               IntentOwned
evals.podOverrides.tolerations                                IntentOwned
evals.podOverrides.imagePullSecrets                           IntentOwned
evals.podOverrides.extraVolumes                               IntentOwned
evals.podOverrides.extraEnv                                   IntentOwned
evals.podOverrides.extraEnvFrom                               IntentOwned
evals.podOverrides.extraVolumeMounts                          IntentOwned
memory                                                        IntentOwned
memory.enabled                                                IntentOwned
memory.retrieval                                              IntentOwned
memory.retrieval.enabled                                      IntentOwned
memory.retrieval.strategy                                     IntentOwned
memory.retrieval.limit                                        IntentOwned
memory.retrieval.accessFilter                                 IntentOwned
memory.retrieval.accessFilter.denyCEL                         IntentOwned
memory.tools                                                  IntentOwned
memory.tools.enabled                                          IntentOwned
memory.tools.notes                                            IntentOwned
memory.facet                                                  IntentOwned
rollout                                                       FieldMerged
rollout.candidate                                             Preserved
rollout.candidate.promptPackRef                               Preserved
rollout.candidate.promptPackRef.name                          Preserved
rollout.candidate.promptPackRef.version                       Preserved
rollout.candidate.promptPackRef.track                         Preserved
rollout.candidate.providerRefs                                Preserved
rollout.candidate.providerRefs[].name                         Preserved
rollout.candidate.providerRefs[].providerRef                  Preserved
rollout.candidate.providerRefs[].providerRef.name             Preserved
rollout.candidate.providerRefs[].providerRef.namespace        Preserved
rollout.candidate.providerRefs[].role                         Preserved
rollout.candidate.providerRefs[].requiredCapabilities         Preserved
rollout.candidate.toolRegistryRef                             Preserved
rollout.candidate.toolRegistryRef.name                        Preserved
rollout.candidate.toolRegistryRef.namespace                   Preserved
rollout.steps                                                 IntentOwned
rollout.steps[].setWeight                                     IntentOwned
rollout.steps[].pause                                         IntentOwned
rollout.steps[].pause.duration                                IntentOwned
rollout.steps[].analysis                                      IntentOwned
rollout.steps[].analysis.templateName                         IntentOwned
rollout.steps[].analysis.args                                 IntentOwned
rollout.steps[].analysis.args[].name                          IntentOwned
rollout.steps[].analysis.args[].value                         IntentOwned
rollout.stickySession                                         Preserved
rollout.stickySession.hashOn                                  Preserved
rollout.rollback                                              Preserved
rollout.rollback.mode                                         Preserved
rollout.rollback.progressDeadlineSeconds                      Preserved
rollout.trafficRouting                                        Preserved
rollout.trafficRouting.mode                                   Preserved
rollout.trafficRouting.mesh                                   Preserved
rollout.trafficRouting.mesh.hosts                             Preserved
rollout.trafficRouting.mesh.stableSubset                      Preserved
rollout.trafficRouting.mesh.candidateSubset                   Preserved
rollout.trafficRouting.mesh.waypoint                          Preserved
rollout.trafficRouting.istio                                  Preserved
rollout.trafficRouting.istio.virtualService                   Preserved
rollout.trafficRouting.istio.virtualService.name              Preserved
rollout.trafficRouting.istio.virtualService.routes            Preserved
rollout.trafficRouting.istio.destinationRule                  Preserved
rollout.trafficRouting.istio.destinationRule.name             Preserved
rollout.trafficRouting.istio.destinationRule.stableSubset     Preserved
rollout.trafficRouting.istio.destinationRule.candidateSubset  Preserved
rollout.trigger                                               IntentOwned
rollout.trigger.promptPackChannel                             IntentOwned
externalAuth                                                  IntentOwned
externalAuth.clientKeys                                       IntentOwned
externalAuth.clientKeys.defaultRole                           IntentOwned
externalAuth.clientKeys.trustEndUserHeader                    IntentOwned
externalAuth.oidc                                             IntentOwned
externalAuth.oidc.issuer                                      IntentOwned
externalAuth.oidc.audience                                    IntentOwned
externalAuth.oidc.claimMapping                                IntentOwned
externalAuth.oidc.claimMapping.subject                        IntentOwned
externalAuth.oidc.claimMapping.endUser                        IntentOwned
externalAuth.oidc.sessionClaim                                IntentOwned
externalAuth.edgeTrust                                        IntentOwned
externalAuth.edgeTrust.headerMapping                          IntentOwned
externalAuth.edgeTrust.headerMapping.subject                  IntentOwned
externalAuth.edgeTrust.headerMapping.endUser                  IntentOwned
externalAuth.edgeTrust.headerMapping.email                    IntentOwned
externalAuth.edgeTrust.claimsFromHeaders                      IntentOwned
console                                                       Preserved
console.allowedAttachmentTypes                                Preserved
console.allowedExtensions                                     Preserved
console.maxFileSize                                           Preserved
console.maxFiles                                              Preserved
console.mediaRequirements                                     Preserved
duplex                                                        Preserved
duplex.enabled                                                Preserved
duplex.audio                                                  Preserved
duplex.audio.recommendedSampleRate                            Preserved
duplex.audio.channels                                         Preserved
duplex.audio.format                                           Preserved
duplex.audio.chunkDurationMs                                  Preserved
duplex.mode                                                   Preserved
serviceGroup                                                  Preserved
privacyPolicyRef                                              Preserved
privacyPolicyRef.name                                         Preserved
extraPodAnnotations                                           Preserved
podOverrides                                                  Preserved
podOverrides.serviceAccountName                               Preserved
podOverrides.priorityClassName                                Preserved
podOverrides.runtimeClassName                                 Preserved
podOverrides.labels                                           Preserved
podOverrides.annotations                                      Preserved
podOverrides.nodeSelector                                     Preserved
podOverrides.tolerations                                      Preserved
podOverrides.imagePullSecrets                                 Preserved
podOverrides.extraVolumes                                     Preserved
podOverrides.extraEnv                                         Preserved
podOverrides.extraEnvFrom                                     Preserved
podOverrides.extraVolumeMounts                                Preserved
`

// tiers is classification parsed; parseErrs are its malformed or duplicate
// rows, which the drift test reports. Merge treats a path missing from
// tiers as Preserved, the safe side.
var tiers, parseErrs = parseClassification(classification)

func parseClassification(s string) (map[string]Tier, []string) {
	out := map[string]Tier{}
	var errs []string
	for i, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			errs = append(errs, fmt.Sprintf("line %d: want \"path tier\", got %q", i, line))
			continue
		}
		t := Tier(f[1])
		switch t {
		case Preserved, IntentOwned, FieldMerged:
		default:
			errs = append(errs, fmt.Sprintf("line %d: %s: unknown tier %q", i, f[0], f[1]))
			continue
		}
		if prev, dup := out[f[0]]; dup {
			errs = append(errs, fmt.Sprintf("line %d: %s is classified twice (%s and %s)", i, f[0], prev, t))
			continue
		}
		out[f[0]] = t
	}
	return out, errs
}

// TierOf returns the tier of a spec field path (as SpecPaths spells it).
func TierOf(path string) (Tier, bool) {
	t, ok := tiers[path]
	return t, ok
}

// Classification returns a copy of the whole classification.
func Classification() map[string]Tier {
	out := make(map[string]Tier, len(tiers))
	for p, t := range tiers {
		out[p] = t
	}
	return out
}

// preserveUnsetPaths are the intent-owned fields agents[].preserveUnset
// keeps when the intent leaves them empty (deploy-intent.md § Rules that
// live only in validation).
var preserveUnsetPaths = map[string]bool{"memory": true, "evals": true, "externalAuth": true}
