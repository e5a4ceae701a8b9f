// Package agentruntime is the AgentRuntime controller: it reconciles each
// agent into its workload and reports what happened through the agent's
// status and conditions. It holds three kinds of code, not yet in separate
// packages:
//
//   - the controller (controller.go: SetupWithManager and Reconcile, with
//     the watches of its feature files: watches*.go, autoscaling.go,
//     rollout*.go, exposure*.go, externalauth.go, async.go, quota_watches.go)
//     and its steps that talk to the API server: apply.go (every child
//     through reconcile/internal/ssa, skipped when unchanged), idle.go,
//     replicas_handoff.go, composition.go, the rollout, exposure, external
//     auth and async steps;
//   - the pure builders of the children: deployment.go and env*.go (the
//     facade, runtime and policy-broker containers), volumes.go,
//     podoverrides*.go, ports.go, service.go, serviceaccount.go, role.go,
//     rolebinding.go, hpa.go, scaledobject.go, httproute.go, istio.go and
//     meta.go. A builder takes the AgentRuntime and what the controller
//     resolved for it (resolved.go, Resolved) and returns a fully specified
//     object (TypeMeta, owner reference, labels) for server-side apply; the
//     same inputs give byte-identical output, which is what lets the applier
//     skip an unchanged child;
//   - the status: status.go computes it in memory from the rule findings and
//     what the steps recorded, session_conditions.go and a2a_status.go
//     add their parts, and it is written once per reconcile
//     (reconcile/internal/statuswrite).
//
// Validity is decided in rules/ (findings become conditions); the builders
// only lay the pod out as agentruntime.md describes. Where the spec is
// silent, the choice made is written on the function or constant.
package agentruntime
