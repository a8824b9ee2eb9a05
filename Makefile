# update-status-apiserver. `make help` lists the targets.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -o errexit -o nounset -o pipefail -c
.DEFAULT_GOAL := help

GO        ?= go
BIN_DIR   ?= $(CURDIR)/bin
# Go packages of the unit tier: everything except the integration suite.
UNIT_PKGS  = $(shell $(GO) list ./... | grep -v '/test/integration')

.PHONY: help
help: ## List the targets.
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

##@ Build

.PHONY: build
build: ## Build every command into ./bin.
	@mkdir -p $(BIN_DIR)
	$(GO) build -o $(BIN_DIR)/ ./cmd/...

.PHONY: codegen
codegen: ## Regenerate deepcopy, conversion, defaults, OpenAPI and the client.
	hack/update-codegen.sh

.PHONY: crds-hosted
crds-hosted: ## Regenerate pkg/hypershift/crds/manifests from the hypershift/api and cluster-api modules' CRD manifests.
	$(GO) run ./hack/hostedcrds

##@ Docs

.PHONY: docs
docs: ## Regenerate docs/api.md from the doc comments and markers of pkg/apis/update/v1alpha1 and pkg/apis/informers/v1alpha1.
	$(GO) run ./hack/apidocs -out docs/api.md

RULES_FILE      = artifacts/deploy/monitoring/update-status-rules.yaml
PROMETHEUS_RULE = artifacts/deploy/components/openshift/prometheusrule.yaml

.PHONY: rules
rules: ## Regenerate the alerting rules of the deploy manifests (update-status alert-rules, defaults).
	@mkdir -p $(dir $(PROMETHEUS_RULE))
	$(GO) run ./cmd/update-status alert-rules --format=rules > $(RULES_FILE)
	$(GO) run ./cmd/update-status alert-rules --format=prometheusrule > $(PROMETHEUS_RULE)

##@ Run

LOCAL_UP_FLAGS ?=

.PHONY: run
run: ## Local control plane + a cluster mid-update + the server; kubeconfigs in _output/local (Ctrl-C stops); LOCAL_UP_FLAGS adds flags (e.g. --hosted-clusters=200).
	@mkdir -p $(BIN_DIR)
	KUBE_BIN_DIR=$$(hack/build-kube.sh) && export KUBE_BIN_DIR && \
		PROMETHEUS=$$(hack/ensure-prometheus.sh) && export PROMETHEUS && \
		$(GO) build -o $(BIN_DIR)/local-up ./cmd/local-up && \
		exec $(BIN_DIR)/local-up --output-dir=_output/local $(LOCAL_UP_FLAGS)

##@ Test

.PHONY: test
test: test-rules test-unit test-integration ## Run every test, integration included.

.PHONY: test-unit
test-unit: ## Unit tests (race detector on).
	$(GO) test -race -count=1 $(UNIT_PKGS)

.PHONY: test-rules
test-rules: ## promtool check and unit tests of the alerting rules (artifacts/deploy/monitoring, artifacts/local/prometheus).
	hack/ensure-prometheus.sh >/dev/null
	cd artifacts/deploy/monitoring && promtool check rules update-status-rules.yaml && promtool test rules update-status-rules_test.yaml
	cd artifacts/local/prometheus && promtool check rules rules.yaml && promtool test rules rules_test.yaml

.PHONY: test-integration
test-integration: ## Integration tests through a real kube-apiserver, a real Prometheus and a headless Chromium (first build of etcd + kube-apiserver: ~11 min).
	KUBE_BIN_DIR=$$(hack/build-kube.sh) && export KUBE_BIN_DIR && \
		PROMETHEUS=$$(hack/ensure-prometheus.sh) && export PROMETHEUS && \
		CHROMIUM=$$(hack/ensure-chromium.sh) && export CHROMIUM && \
		$(GO) test -count=1 -timeout 30m ./test/integration/...

.PHONY: bench
bench: ## Cluster-scale benchmarks (1,000 and 5,000 nodes; docs/benchmarks.md says how long its run took) -> docs/benchmarks.md; BENCH_FLAGS adds flags.
	KUBE_BIN_DIR=$$(hack/build-kube.sh) && export KUBE_BIN_DIR && \
		$(GO) run ./test/bench/cmd/bench -out=docs/benchmarks.md -artifacts=_output/bench $(BENCH_FLAGS)

FUZZTIME      ?= 1m
SOAK_DURATION ?= 10m

.PHONY: fuzz
fuzz: ## Run every Go fuzz target of the tree for FUZZTIME each (default 1m).
	@targets=$$(grep -rln --include='*_test.go' --exclude-dir=_output --exclude-dir=.git '^func Fuzz' . | xargs grep -h -o '^func Fuzz[A-Za-z0-9_]*' | wc -l); \
	echo "fuzz: $$targets targets, $(FUZZTIME) each"; \
	for f in $$(grep -rl --include='*_test.go' --exclude-dir=_output --exclude-dir=.git '^func Fuzz' . | sort); do \
		pkg=./$$(dirname $$f); \
		for fn in $$(grep -h -o '^func Fuzz[A-Za-z0-9_]*' $$f | sed 's/^func //'); do \
			echo "fuzz: $$pkg $$fn"; \
			$(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

.PHONY: soak
soak: ## Load run on the local stack as production runs (test/soak): two replicas scraped by Prometheus, 5,000 nodes, 1,000 watchers of every kind, 200 GET/s, replicas killed, for SOAK_DURATION (default 10m).
	KUBE_BIN_DIR=$$(hack/build-kube.sh) && export KUBE_BIN_DIR && \
		SOAK_DURATION=$(SOAK_DURATION) $(GO) test -tags soak -count=1 -v -timeout 2h -run TestSoak ./test/soak/

##@ Verify

.PHONY: verify
verify: verify-codegen verify-crds-hosted verify-docs verify-rules verify-gofmt verify-vet verify-tidy verify-boilerplate verify-lint ## Every check CI runs besides the tests.

.PHONY: verify-codegen
verify-codegen: ## Fail if generated files are stale or hand-edited.
	hack/verify-codegen.sh

.PHONY: verify-crds-hosted
verify-crds-hosted: ## Fail if pkg/hypershift/crds/manifests is stale (make crds-hosted regenerates it).
	$(GO) run ./hack/hostedcrds -verify

.PHONY: verify-docs
verify-docs: ## Fail if docs/api.md is stale (make docs regenerates it).
	$(GO) run ./hack/apidocs -verify -out docs/api.md

.PHONY: verify-rules
verify-rules: ## Fail if the generated alerting rules are stale (make rules regenerates them).
	@$(GO) run ./cmd/update-status alert-rules --format=rules | diff -u $(RULES_FILE) - || \
		{ echo "$(RULES_FILE) is stale: run make rules"; exit 1; }
	@$(GO) run ./cmd/update-status alert-rules --format=prometheusrule | diff -u $(PROMETHEUS_RULE) - || \
		{ echo "$(PROMETHEUS_RULE) is stale: run make rules"; exit 1; }

.PHONY: verify-gofmt
verify-gofmt: ## Fail if any Go file is not gofmt-formatted.
	@out=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

.PHONY: verify-vet
verify-vet: ## go vet.
	$(GO) vet ./...

.PHONY: verify-tidy
verify-tidy: ## Fail if go.mod/go.sum are not tidy.
	$(GO) mod tidy -diff

.PHONY: verify-boilerplate
verify-boilerplate: ## Fail if a Go file lacks the license header (hack/verify-boilerplate.sh --fix adds it).
	hack/verify-boilerplate.sh

.PHONY: verify-lint
verify-lint: ## golangci-lint (.golangci.yml) with kube-api-linter and logcheck; the first run builds it (several minutes).
	GOLANGCI_LINT=$$(hack/ensure-golangci-lint.sh) && \
		"$$GOLANGCI_LINT" run ./...

##@ Deploy

IMAGE ?= update-status-apiserver:latest

.PHONY: image
image: ## Build the container image with podman, buildah or docker, where one works here.
	@for b in podman buildah docker; do \
		if command -v $$b >/dev/null 2>&1 && $$b info >/dev/null 2>&1; then \
			if [ $$b = buildah ]; then exec buildah bud -f Containerfile -t $(IMAGE) .; fi; \
			exec $$b build -f Containerfile -t $(IMAGE) .; \
		fi; \
	done; \
	echo "make image: no working container builder (podman, buildah or a docker engine) on this machine" >&2; exit 1

.PHONY: deploy
deploy: ## Install on the cluster of the current kubeconfig (the kubernetes variant; docs/deploy.md lists the others).
	kubectl apply -k artifacts/deploy

.PHONY: undeploy
undeploy: ## Uninstall; the APIService goes first so discovery never points at a missing server.
	kubectl delete --ignore-not-found apiservice v1alpha1.update.openshift.io
	kubectl delete --ignore-not-found -k artifacts/deploy
