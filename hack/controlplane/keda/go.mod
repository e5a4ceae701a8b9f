// This module only pins the KEDA release whose CRDs the local cluster
// installs: they are read from the module cache (config/crd/bases in
// github.com/kedacore/keda/v2), not copied into this repository. Nothing is
// built from it.
module omnia.local/hack/controlplane/keda

go 1.26.0

require github.com/kedacore/keda/v2 v2.21.0
