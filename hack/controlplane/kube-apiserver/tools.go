//go:build tools

// Package tools names every command this scratch module builds, so that
// `go mod tidy` keeps go.sum complete for all of them: kube-apiserver, and
// the kube-controller-manager and kube-scheduler that make the local control
// plane a cluster. kube-apiserver alone would leave out the
// kubelet-side modules the other two import.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
