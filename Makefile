# Omnia control plane. `make run` and `make test` are the two commands;
# everything else is a step they use.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

CONTROLLER_GEN := go tool controller-gen
BIN            := $(CURDIR)/bin
# Tests find kube-apiserver and etcd here (controller-runtime envtest), and
# test/controlplane the cluster components (kube-controller-manager, kube-scheduler, kwok).
export KUBEBUILDER_ASSETS := $(BIN)

FUZZTIME ?= 3s
FUZZLONG ?= 10m
BENCHTIME ?= 1s
BENCHCOUNT ?= 6
# Packages with benchmarks (others would start a control plane for nothing).
BENCH_PKGS ?= ./rules/ ./policies/ ./admission/ ./cmd/omniactl/ ./deploy/intent/ ./deploy/plan/ ./deploy/catalog/ ./cmd/omnia-operator/
# Agents the AgentRuntime scale benchmark creates (make bench-agents N=1000).
N ?= 100

.PHONY: all
all: generate manifests build

##@ Generation

.PHONY: generate
generate: ## Regenerate deepcopy functions.
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./api/...

.PHONY: manifests
manifests: ## Regenerate CRDs, RBAC and webhook configuration under config/.
	hack/generate-manifests.sh "$(CURDIR)"

.PHONY: verify-generated
verify-generated: ## Fail when regenerating would change a committed generated file.
	hack/verify-generated.sh

.PHONY: verify
verify: verify-generated ## Every staleness check: generated code and manifests, and the docs generated from the code (rules, conditions, performance).
	go test -count=1 -run '^(TestRulesDocUpToDate|TestPerformancePageIsCurrent|TestConditionsDocUpToDate)$$' ./cmd/omniactl ./hack/perf/perfreport ./hack/conditionsdoc

##@ Build

.PHONY: build
build: ## Build every package and command.
	go build ./...

.PHONY: redis
redis: ## Install Debian's redis-server when absent (the Arena work queue; tests start their own).
	hack/ensure-redis.sh

.PHONY: control-plane
control-plane: ## Build etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok from their Go modules into bin/ (once; cached).
	hack/build-control-plane.sh

##@ Run and test

# OPEN_CORE=1 starts `make run` without its development licence.
OPEN_CORE ?=
# ISTIO=1 also installs Istio's CRDs in `make run`'s cluster.
ISTIO ?=

.PHONY: run
run: control-plane redis ## Start the local cluster under .local/ (API server, controllers, scheduler, kwok node), install CRDs and a development licence, run the operator, serve until interrupted (OPEN_CORE=1: no licence).
	hack/run-local.sh $(if $(OPEN_CORE),--open-core) $(if $(ISTIO),--istio)

.PHONY: test
test: control-plane redis verify lint fuzz-smoke ## Everything CI runs.
	go test -count=1 -timeout 15m ./...

.PHONY: test-unit
test-unit: ## The tests that need no local API server or Redis (hack/unit-packages.sh), for the edit-test loop.
	go test -count=1 $$(hack/unit-packages.sh)

.PHONY: lint
# golangci-lint is pinned in its own module (hack/tools/go.mod) so its many
# dependencies stay out of the operator's go.mod.
GOLANGCI_LINT = go tool -modfile=hack/tools/go.mod golangci-lint

lint: ## golangci-lint (gofmt, goimports, misspell: .golangci.yml), go vet and staticcheck.
	$(GOLANGCI_LINT) run ./...
	go vet ./...
	go tool staticcheck ./...

.PHONY: fmt
fmt: ## Rewrite the Go files as make lint wants them (gofmt, goimports).
	$(GOLANGCI_LINT) fmt ./...

# Go runs one -fuzz target per invocation: one line per fuzz function.
.PHONY: fuzz
fuzz: ## Run every fuzz target for FUZZTIME each (default 3s; e.g. make fuzz FUZZTIME=10m).
	go test -run '^$$' -fuzz '^FuzzHandler$$' -fuzztime $(FUZZTIME) ./admission/
	go test -run '^$$' -fuzz '^FuzzEvaluate$$' -fuzztime $(FUZZTIME) ./rules/
	go test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./deploy/intent/
	go test -run '^$$' -fuzz '^FuzzCompile$$' -fuzztime $(FUZZTIME) ./policies/

.PHONY: fuzz-smoke
fuzz-smoke: ## Every fuzz target for 2s (part of make test).
	$(MAKE) --no-print-directory fuzz FUZZTIME=2s

.PHONY: bench
bench: ## Go benchmarks (compare runs with `go tool benchstat old.txt new.txt`).
	go test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -count $(BENCHCOUNT) $(BENCH_PKGS)

.PHONY: bench-agents
bench-agents: control-plane ## AgentRuntime scale benchmark on the local cluster (not in make test): N agents (default 100), time to Running, operator peak RSS, steady-state API writes.
	go run ./hack/bench-agents -n $(N)

##@ Performance (not part of make test)

# Section JSON the harnesses write; hack/perf/report renders docs/performance.md from it.
PERF_DIR ?= docs/performance
# PERF_QUICK=1 runs every harness briefly (a smoke run; its figures are not the report's).
PERF_QUICK ?=
PERF_FLAGS = -out $(PERF_DIR) $(if $(PERF_QUICK),-quick)

.PHONY: perf
perf: control-plane redis ## Every harness below, then docs/performance.md (about an hour on this machine).
	$(MAKE) --no-print-directory perf-webhook perf-admission perf-offline perf-scale perf-faults
	go run ./hack/perf/report -in $(PERF_DIR) -out docs/performance.md

.PHONY: perf-webhook
perf-webhook: control-plane ## 1. AdmissionReviews over TLS to the operator's webhook server at 500/1000/2000 per second.
	go run ./hack/perf/webhookload $(PERF_FLAGS)

.PHONY: perf-admission
perf-admission: control-plane ## 2. Creates on the local API server with and without the webhooks registered.
	go run ./hack/perf/admission $(PERF_FLAGS)

.PHONY: perf-offline
perf-offline: control-plane ## 3. omniactl check, gator, the Kyverno CLI and kubectl dry-run on one 5,000-document file.
	go run ./hack/perf/offline $(PERF_FLAGS)

.PHONY: perf-scale
perf-scale: control-plane redis ## 4. Reconcile 1,000 and 10,000 mixed objects; RSS, requests per object, steady-state writes.
	go run ./hack/perf/scale $(PERF_FLAGS)

.PHONY: perf-faults
perf-faults: control-plane redis ## 5. Kill kube-apiserver, restart etcd, kill the leader under load; compare with a run without faults.
	go run ./hack/perf/faults $(PERF_FLAGS)

.PHONY: fuzz-long
fuzz-long: ## 6. Every fuzz target for FUZZLONG each (default 10m), then its section of docs/performance.md.
	go run ./hack/perf/fuzzlong -fuzztime $(FUZZLONG) -out $(PERF_DIR)
	go run ./hack/perf/report -in $(PERF_DIR) -out docs/performance.md

.PHONY: help
help:
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*?##/ { printf "  %-18s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
