#!/usr/bin/env bash
# `make run`: starts the local control plane and serves until interrupted.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
go build -o "${ROOT}/bin/run-local" ./hack/run-local
go build -o "${ROOT}/bin/omnia-operator" ./cmd/omnia-operator
exec "${ROOT}/bin/run-local" "$@"
