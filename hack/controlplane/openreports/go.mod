// This module only pins the OpenReports release whose CRDs the local cluster
// installs: they are read from the module cache (config/crd in
// github.com/openreports/reports-api), not copied into this repository. It
// is the version the operator's go.mod requires for the Go types. Nothing is
// built from it.
module omnia.local/hack/controlplane/openreports

go 1.26.0

require github.com/openreports/reports-api v0.2.1
