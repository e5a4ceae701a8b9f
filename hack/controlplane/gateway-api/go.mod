// This module only pins the Gateway API release whose CRDs the local
// cluster installs: they are read from the module cache
// (config/crd/standard in sigs.k8s.io/gateway-api), not copied into this
// repository. Nothing is built from it. Keep it at the version the main
// go.mod requires for the typed API (apis/v1).
module omnia.local/hack/controlplane/gateway-api

go 1.26.0

require sigs.k8s.io/gateway-api v1.6.3
