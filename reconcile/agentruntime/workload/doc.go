// Package workload builds an agent's children in memory: the Deployment and
// its pod (deployment.go; the facade, runtime and policy-broker containers'
// environment in env*.go, their volumes in volumes.go, the podOverrides
// merge in podoverrides.go, the listeners in ports.go), a rollout
// candidate's Deployment, the Service, ServiceAccount, Role and
// RoleBinding, the HPA or KEDA ScaledObject, the exposed facades'
// HTTPRoutes and a rollout's Istio routing objects.
//
// A builder takes the AgentRuntime and what the controller looked up for it
// (Resolved) and returns a fully specified object (TypeMeta, owner
// reference, labels from meta.go) for server-side apply. It reads nothing
// from the cluster, the clock or the environment, so the same inputs give
// byte-identical output: that is what lets the controller skip applying an
// unchanged child, and what lets a test or a benchmark build the workload
// without an API server. The controller (reconcile/agentruntime) decides
// whether to build at all, from rules/ findings, and applies the result.
//
// Validity is decided in rules/; the builders only lay the pod out as
// agentruntime.md describes. Where the spec is silent, the choice made is
// written on the function or constant.
package workload
