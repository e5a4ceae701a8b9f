// This module only pins the Istio API release whose CRDs the local cluster
// installs: they are read from the module cache
// (kubernetes/customresourcedefinitions.gen.yaml in istio.io/api), not
// copied into this repository. Nothing is built from it.
module omnia.local/hack/controlplane/istio

go 1.26.0

require istio.io/api v1.32.0
