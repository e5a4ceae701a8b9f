package main

import (
	"os"
	"strings"

	"github.com/altairalabs/omnia/admission"
)

// serviceAccountNamespaceFile holds the namespace of a pod's service account:
// the namespace the operator runs in.
const serviceAccountNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// ownNamespace returns the namespace the operator runs in, or
// admission.DefaultExcludedNamespace outside a pod (make run).
func ownNamespace() string {
	if data, err := os.ReadFile(serviceAccountNamespaceFile); err == nil {
		if ns := strings.TrimSpace(string(data)); ns != "" {
			return ns
		}
	}
	return admission.DefaultExcludedNamespace
}
