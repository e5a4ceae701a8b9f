// Package schema validates Omnia objects against their generated CRDs
// offline, as the API server does: strict decoding of metadata, pruning of
// unknown fields, defaulting, object metadata validation, OpenAPI
// validation, list-type invariants and the CRD's CEL rules
// (x-kubernetes-validations), with CRD validation ratcheting on update.
// omniactl, the deploy API, the reconcilers and the background audit get
// the API server's answer without asking one.
//
// It is apart from the rule catalog (package rules, which turns the errors
// reported here into findings) because it follows the API server rather
// than the spec: it calls apiextensions-apiserver's validators and
// re-implements, for speed, the parts of them it cannot call as they are
// (the CEL plan and walk, the schema adaptor, the OpenAPI acceptor), each
// held to the upstream code by differential tests. What the API server
// does may change with any Kubernetes release, so this package must be
// revisited on each Kubernetes upgrade: the error texts, the order of the
// stages, the ratcheting and the cost limits are the API server's, not
// ours.
//
// The interface is small: Kinds and Namespaced describe the embedded CRDs;
// a Validator (Default, or New for other CRDs) answers ValidateCreate and
// ValidateUpdate with a Result. The rest (ValidateUpstream,
// CheckOpenAPIAcceptor, WalkJSON, CELValueSchema) is exported only for the
// differential tests of other packages and for the policies package's CEL,
// which reads objects through the same adaptor.
package schema
