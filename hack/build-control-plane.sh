#!/usr/bin/env bash
# Builds the local cluster's binaries from their Go modules (through the Go
# module proxy only) and links them into bin/: etcd, kube-apiserver,
# kube-controller-manager and kube-scheduler (one k8s.io/kubernetes module,
# hack/controlplane/kube-apiserver), and kwok, which simulates nodes
# (hack/controlplane/kwok). Built binaries are kept in a cache
# directory outside the repository, keyed by version, so a fresh clone (which
# is what CI runs) reuses them instead of spending minutes rebuilding.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN_DIR="${ROOT}/bin"
# required MODULE GO.MOD: the version go.mod requires, whether on a
# `require M v` line or inside a require block.
required() { awk -v m="$1" '$1==m{print $2; exit} $1=="require" && $2==m{print $3; exit}' "$2"; }
K8S_VERSION="$(required k8s.io/kubernetes "${ROOT}/hack/controlplane/kube-apiserver/go.mod")"
KWOK_VERSION="$(required sigs.k8s.io/kwok "${ROOT}/hack/controlplane/kwok/go.mod")"
ETCD_VERSION="$(required go.etcd.io/etcd/server/v3 "${ROOT}/hack/controlplane/etcd/go.mod")"
for v in K8S_VERSION KWOK_VERSION ETCD_VERSION; do
  [[ -n "${!v}" ]] || { echo "build-control-plane: no ${v} found in hack/controlplane/*/go.mod" >&2; exit 1; }
done
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
PLATFORM="${GO_VERSION}_$(go env GOOS)-$(go env GOARCH)_r${RECIPE}"
# The Kubernetes binaries share one directory keyed by the k8s.io/kubernetes
# and etcd versions; each binary is built when it is missing from it, so a
# cache holding only etcd and kube-apiserver gains the other two.
CACHE_DIR="${CACHE_ROOT}/kube-apiserver-${K8S_VERSION}_etcd-${ETCD_VERSION}_${PLATFORM}"
# kwok has its own version, hence its own directory.
KWOK_CACHE_DIR="${CACHE_ROOT}/kwok-${KWOK_VERSION}_${PLATFORM}"

build() { # cache-dir name module-dir package [ldflags]
  local cache="$1" name="$2" dir="$3" pkg="$4" ldflags="${5:-}"
  if [[ -x "${cache}/${name}" ]]; then
    return
  fi
  echo "building ${name} from ${pkg} (once; cached in ${cache})" >&2
  mkdir -p "${cache}"
  local tmp="${cache}/.${name}.$$" start="${SECONDS}"
  (cd "${ROOT}/hack/controlplane/${dir}" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w ${ldflags}" -o "${tmp}" "${pkg}")
  mv -f "${tmp}" "${cache}/${name}"
  echo "built ${name} in $((SECONDS - start))s" >&2
}

build "${CACHE_DIR}" etcd etcd go.etcd.io/etcd/server/v3
# Stamp the version a release build would, so clients (kubectl version,
# discovery) see v1.37.x rather than v0.0.0-master.
K8S_MINOR="$(cut -d. -f2 <<<"${K8S_VERSION}")"
VERSION_PKG=k8s.io/component-base/version
K8S_LDFLAGS="-X ${VERSION_PKG}.gitVersion=${K8S_VERSION} -X ${VERSION_PKG}.gitMajor=1 -X ${VERSION_PKG}.gitMinor=${K8S_MINOR} -X ${VERSION_PKG}.gitTreeState=clean"
for name in kube-apiserver kube-controller-manager kube-scheduler; do
  build "${CACHE_DIR}" "${name}" kube-apiserver "k8s.io/kubernetes/cmd/${name}" "${K8S_LDFLAGS}"
done
# kwok stamps the version its releases do (kwok --version).
build "${KWOK_CACHE_DIR}" kwok kwok sigs.k8s.io/kwok/cmd/kwok "-X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION}"

mkdir -p "${BIN_DIR}"
for name in etcd kube-apiserver kube-controller-manager kube-scheduler; do
  ln -sfn "${CACHE_DIR}/${name}" "${BIN_DIR}/${name}"
done
ln -sfn "${KWOK_CACHE_DIR}/kwok" "${BIN_DIR}/kwok"
echo "${BIN_DIR}"
