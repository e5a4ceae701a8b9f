#!/usr/bin/env bash
# Fails when regenerating the committed generated files (CRDs, RBAC, deepcopy)
# would change any of them. Generates into a scratch directory and diffs, so
# it never touches the working tree.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
SCRATCH="$(mktemp -d)"
trap 'rm -rf "${SCRATCH}"' EXIT

"${ROOT}/hack/generate-manifests.sh" "${SCRATCH}"
mkdir -p "${SCRATCH}/deepcopy"
go tool controller-gen object:headerFile=hack/boilerplate.go.txt paths=./api/... \
  output:object:dir="${SCRATCH}/deepcopy"

status=0
diff -ru config/crd/bases "${SCRATCH}/config/crd/bases" || status=1
diff -u docs/api-bounds.md "${SCRATCH}/docs/api-bounds.md" || status=1
diff -u config/rbac/role.yaml "${SCRATCH}/config/rbac/role.yaml" || status=1
diff -u config/namespaced/rbac.yaml "${SCRATCH}/config/namespaced/rbac.yaml" || status=1
diff -u config/webhook/manifests.yaml "${SCRATCH}/config/webhook/manifests.yaml" || status=1
diff -u api/v1alpha1/zz_generated.deepcopy.go "${SCRATCH}/deepcopy/zz_generated.deepcopy.go" || status=1
if [[ ${status} -ne 0 ]]; then
  echo "generated files are stale: run 'make generate manifests' and commit the result" >&2
  exit 1
fi
echo "generated files are up to date"
