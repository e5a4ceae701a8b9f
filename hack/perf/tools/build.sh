#!/usr/bin/env bash
# Builds the policy tools that `make perf-offline` compares omniactl with —
# gator (Gatekeeper) and the Kyverno CLI — from their Go modules through the
# Go module proxy only, each through its scratch module beside this script
# (hack/perf/tools/<tool>/go.mod pins the version). Built binaries are cached
# outside the repository, keyed by tool version and Go toolchain, so a rerun
# (or a fresh clone on the same machine) reuses them: the Kyverno CLI takes
# many minutes to build on a small machine.
#
# Usage: build.sh TOOL [--cached-only]
#   prints the path of the binary on stdout. With --cached-only nothing is
#   built: it exits 3 when the binary is not cached yet (the harness's -quick
#   run skips that tool rather than spend the build time).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
TOOL="${1:?usage: build.sh gator|kyverno [--cached-only]}"
CACHED_ONLY="${2:-}"

case "${TOOL}" in
  gator)
    MODULE=github.com/open-policy-agent/gatekeeper/v3
    PKG=github.com/open-policy-agent/gatekeeper/v3/cmd/gator
    ;;
  kyverno)
    MODULE=github.com/kyverno/kyverno
    PKG=github.com/kyverno/kyverno/cmd/cli/kubectl-kyverno
    ;;
  *) echo "build.sh: unknown tool ${TOOL} (gator or kyverno)" >&2; exit 2 ;;
esac

MODDIR="${ROOT}/hack/perf/tools/${TOOL}"
# The version go.mod requires, whether on a `require M v` line or in a block.
VERSION="$(awk -v m="${MODULE}" '$1==m{print $2; exit} $1=="require" && $2==m{print $3; exit}' "${MODDIR}/go.mod")"
[[ -n "${VERSION}" ]] || { echo "build.sh: no ${MODULE} version in ${MODDIR}/go.mod" >&2; exit 1; }

CACHE_ROOT="${OMNIA_PERF_TOOLS_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/omnia/perf-tools}"
CACHE_DIR="${CACHE_ROOT}/${TOOL}-${VERSION}_$(go env GOVERSION)_$(go env GOOS)-$(go env GOARCH)"
BIN="${CACHE_DIR}/${TOOL}"

if [[ -x "${BIN}" ]]; then
  echo "${BIN}"
  exit 0
fi
if [[ "${CACHED_ONLY}" == "--cached-only" ]]; then
  echo "build.sh: ${TOOL} ${VERSION} is not cached in ${CACHE_DIR}" >&2
  exit 3
fi

mkdir -p "${CACHE_DIR}"
# One build at a time per tool: a second caller (make perf-offline while a
# build started by hand runs) waits for it and reuses its binary.
exec 9>"${CACHE_DIR}/.lock"
flock 9
if [[ -x "${BIN}" ]]; then
  echo "${BIN}"
  exit 0
fi
echo "building ${TOOL} ${VERSION} from ${PKG} (once; cached in ${CACHE_DIR})" >&2
tmp="${CACHE_DIR}/.${TOOL}.$$"
trap 'rm -f "${tmp}"' EXIT
start="${SECONDS}"
# The Kyverno CLI stamps its version through ldflags in its own Makefile; the
# figures only need the binary, so the version is left as the module says.
(cd "${MODDIR}" && CGO_ENABLED=0 nice -n 15 go build -trimpath -ldflags="-s -w" -o "${tmp}" "${PKG}")
mv -f "${tmp}" "${BIN}"
echo "built ${TOOL} in $((SECONDS - start))s" >&2
echo "${BIN}"
