#!/usr/bin/env bash
# Prints the packages whose tests need no local API server and no Redis:
# those whose test binary does not depend on test/controlplane or
# test/redis. `make test-unit` runs them, for the edit-test loop; `make
# test` runs everything.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
go list -test -f '{{.ImportPath}}|{{join .Deps ","}}' ./... |
  awk -F'|' '$1 ~ /\.test$/ &&
             $2 !~ /github\.com\/altairalabs\/omnia\/test\/controlplane/ &&
             $2 !~ /github\.com\/altairalabs\/omnia\/test\/redis/ {
               sub(/\.test$/, "", $1); print $1 }'
