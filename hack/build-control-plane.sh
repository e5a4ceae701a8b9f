#!/usr/bin/env bash
# Builds kube-apiserver and etcd from their Go modules (through the Go module
# proxy only) and links them into bin/. Built binaries are kept in a cache
# directory outside the repository, keyed by version, so a fresh clone (which
# is what CI runs) reuses them instead of spending minutes rebuilding.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN_DIR="${ROOT}/bin"
K8S_VERSION="$(awk '$1=="k8s.io/kubernetes"{print $2}' "${ROOT}/hack/controlplane/kube-apiserver/go.mod" | head -1)"
ETCD_VERSION="$(awk '$1=="go.etcd.io/etcd/server/v3"{print $2}' "${ROOT}/hack/controlplane/etcd/go.mod" | head -1)"
GO_VERSION="$(go env GOVERSION)"
API_VERSION="$(awk '$1=="k8s.io/api"{print $2}' "${ROOT}/go.mod" | head -1)"

# The API server must be the same minor as the k8s.io/api the project builds
# against (v1.37.x serves what v0.37.x describes).
if [[ "$(cut -d. -f2 <<<"${K8S_VERSION}")" != "$(cut -d. -f2 <<<"${API_VERSION}")" ]]; then
  echo "kube-apiserver ${K8S_VERSION} is not the minor of k8s.io/api ${API_VERSION}: update hack/controlplane/kube-apiserver/go.mod" >&2
  exit 1
fi
CACHE_ROOT="${OMNIA_CONTROL_PLANE_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/omnia/control-plane}"
# RECIPE names how the binaries are built; bump it when the flags change so
# caches built the old way are not reused.
RECIPE=2
CACHE_DIR="${CACHE_ROOT}/kube-apiserver-${K8S_VERSION}_etcd-${ETCD_VERSION}_${GO_VERSION}_$(go env GOOS)-$(go env GOARCH)_r${RECIPE}"

build() { # name module-dir package [ldflags]
  local name="$1" dir="$2" pkg="$3" ldflags="${4:-}"
  if [[ -x "${CACHE_DIR}/${name}" ]]; then
    return
  fi
  echo "building ${name} from ${pkg} (once; cached in ${CACHE_DIR})" >&2
  mkdir -p "${CACHE_DIR}"
  local tmp="${CACHE_DIR}/.${name}.$$"
  (cd "${ROOT}/hack/controlplane/${dir}" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w ${ldflags}" -o "${tmp}" "${pkg}")
  mv -f "${tmp}" "${CACHE_DIR}/${name}"
}

build etcd etcd go.etcd.io/etcd/server/v3
# Stamp the version a release build would, so clients (kubectl version,
# discovery) see v1.37.x rather than v0.0.0-master.
K8S_MINOR="$(cut -d. -f2 <<<"${K8S_VERSION}")"
VERSION_PKG=k8s.io/component-base/version
build kube-apiserver kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver \
  "-X ${VERSION_PKG}.gitVersion=${K8S_VERSION} -X ${VERSION_PKG}.gitMajor=1 -X ${VERSION_PKG}.gitMinor=${K8S_MINOR} -X ${VERSION_PKG}.gitTreeState=clean"

mkdir -p "${BIN_DIR}"
for name in etcd kube-apiserver; do
  ln -sfn "${CACHE_DIR}/${name}" "${BIN_DIR}/${name}"
done
echo "${BIN_DIR}"
