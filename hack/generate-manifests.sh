#!/usr/bin/env bash
# Regenerates the CRDs, RBAC and webhook configuration into the directory
# given as $1 (the repository root, or a scratch copy when verifying).
set -euo pipefail
OUT="${1:?output root}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
mkdir -p "${OUT}/config/crd/bases" "${OUT}/config/rbac" "${OUT}/config/webhook" "${OUT}/config/namespaced" "${OUT}/docs"
go tool controller-gen \
  crd \
  rbac:roleName=omnia-operator \
  webhook \
  paths=./... \
  output:crd:artifacts:config="${OUT}/config/crd/bases" \
  output:rbac:artifacts:config="${OUT}/config/rbac" \
  output:webhook:artifacts:config="${OUT}/config/webhook"
# Every spec list gets a maxItems (the embedded Kubernetes types carry no
# marker); the bounds are listed in docs/api-bounds.md.
go run ./hack/crdbounds "${OUT}/config/crd/bases" "${OUT}/docs/api-bounds.md"
# The namespace-scoped install's two roles are the ClusterRole above split by
# scope (docs/install.md § Namespace-scoped install).
go run ./hack/namespacedrbac "${OUT}/config/rbac/role.yaml" "${OUT}/config/namespaced/rbac.yaml"
