package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// ConfigHashAnnotation is on the pod template: a digest of the spec the
// facade and runtime read from the AgentRuntime when they start
// (rateLimit, memory, externalAuth, schemas, console, …). Those fields are
// not otherwise in the pod template, and the spec says changing them rolls
// the pods ("part of the Deployment's config hash"; "the operator rolls the
// agent's pods whenever spec.memory changes"). The operator's value wins
// over a podOverrides.annotations entry of the same key, so it cannot be
// pinned.
const ConfigHashAnnotation = "omnia.altairalabs.ai/config-hash"

// ConfigHash is the hex SHA-256 of the agent's spec without the fields
// that never need new pods: runtime.replicas and runtime.autoscaling (the
// replica count), and rollout (a rollout runs its own candidate
// Deployment); facades and providers are hashed in a fixed order. JSON of a typed spec is deterministic (struct order, sorted
// map keys), so an unchanged spec gives an unchanged hash.
func ConfigHash(ar *v1alpha1.AgentRuntime) string {
	spec := ar.Spec.DeepCopy()
	if spec.Runtime != nil {
		spec.Runtime.Replicas = nil
		spec.Runtime.Autoscaling = nil
		if reflect.DeepEqual(*spec.Runtime, v1alpha1.AgentRuntimeRuntime{}) {
			spec.Runtime = nil // runtime: {replicas: 3} hashes as no runtime
		}
	}
	spec.Rollout = nil
	// The order of facades (types are unique) and providers (names are
	// unique) means nothing to the pod.
	slices.SortFunc(spec.Facades, func(a, b v1alpha1.AgentRuntimeFacade) int {
		return strings.Compare(string(rules.AgentRuntimeFacadeType(&a)), string(rules.AgentRuntimeFacadeType(&b)))
	})
	slices.SortFunc(spec.Providers, func(a, b v1alpha1.AgentRuntimeProvider) int { return strings.Compare(a.Name, b.Name) })
	b, err := json.Marshal(spec)
	if err != nil { // a typed spec always marshals; RawExtension holds JSON the API server stored
		b = []byte(err.Error())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
