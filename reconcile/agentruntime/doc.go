// Package agentruntime builds the workload of an AgentRuntime: the
// Deployment (facade, runtime and policy-broker containers), the Service with
// the facade ports, and the ServiceAccount, Role and RoleBinding that let the
// facade read its own AgentRuntime and write its status; and the autoscaler
// that scales the Deployment: an autoscaling/v2 HorizontalPodAutoscaler
// (hpa.go) or a KEDA ScaledObject (scaledobject.go, unstructured).
//
// Everything here is pure: a builder takes the AgentRuntime and what the
// controller looked up for it (Resolved) and returns fully specified objects
// (TypeMeta, owner reference, labels) ready for server-side apply with one
// field manager. The same inputs give byte-identical output, so the
// controller can compare what it would apply with what it applied last and
// skip the write when nothing changed.
//
// The controller decides validity (rules/ findings, conditions, phase); these
// builders only lay the pod out as agentruntime.md describes. Where the spec
// is silent, the choice made is written on the function or constant.
package agentruntime
