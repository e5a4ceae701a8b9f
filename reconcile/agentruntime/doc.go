// Package agentruntime is the AgentRuntime controller: it reconciles each
// agent into its workload and reports what happened through the agent's
// status and conditions. It holds:
//
//   - the controller: setup.go (SetupWithManager: the field indexes and
//     every watch, each with why) and controller.go (Reconcile, in the
//     order its steps depend on each other); the map functions and
//     predicates of the watches stay with their topic (watches*.go,
//     quota_watches.go, composition_watch.go, exposure*.go,
//     externalauth.go, async.go, rollout.go);
//   - the steps that read the cluster and write to it: resolve.go (what
//     the builders need, looked up once per reconcile), apply.go (every
//     child through reconcile/internal/ssa, skipped when unchanged),
//     idle.go, replicas_handoff.go, composition.go, and the rollout,
//     exposure, external auth and async steps;
//   - the status: status.go computes it in memory from the rule findings
//     and what the steps recorded, session_conditions.go, a2a_status.go
//     and podoverrides_security.go add their parts, and it is written once
//     per reconcile (reconcile/internal/statuswrite).
//
// The children themselves are built by reconcile/agentruntime/workload,
// from the agent and what the controller resolved for it (workload.
// Resolved), without a client: the controller decides whether to build and
// applies what is built. Validity is decided in rules/ (findings become
// conditions).
package agentruntime
