//go:build tools

// Package tools names the command this scratch module builds, so that
// `go mod tidy` keeps go.mod and go.sum complete for it.
package tools

import _ "github.com/kyverno/kyverno/cmd/cli/kubectl-kyverno"
