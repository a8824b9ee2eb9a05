#!/usr/bin/env bash
# Regenerates every generated file: deepcopy, conversion and defaulter helpers
# beside the types, and OpenAPI definitions, clientset (with apply
# configurations and watch), listers and informers under pkg/generated/.
# The generators are the k8s.io/code-generator and kube-openapi versions pinned
# in go.mod; kube_codegen.sh builds them into _output/codegen-bin.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"

MODULE=$(go list -m)
# `go list -m -f {{.Dir}}` prints nothing for a module that is not in the module
# cache yet (a fresh machine): download it first.
go mod download k8s.io/code-generator
CODEGEN_PKG=$(go list -m -f '{{.Dir}}' k8s.io/code-generator)
if [[ -z "${CODEGEN_PKG}" || ! -f "${CODEGEN_PKG}/kube_codegen.sh" ]]; then
    echo "update-codegen: cannot find k8s.io/code-generator in the module cache" >&2
    exit 1
fi
export GOBIN="${ROOT}/_output/codegen-bin"
mkdir -p "${GOBIN}"

# shellcheck source=/dev/null
source "${CODEGEN_PKG}/kube_codegen.sh"

kube::codegen::gen_helpers \
    --boilerplate "${ROOT}/hack/boilerplate.go.txt" \
    "${ROOT}/pkg/apis"

kube::codegen::gen_openapi \
    --output-dir "${ROOT}/pkg/generated/openapi" \
    --output-pkg "${MODULE}/pkg/generated/openapi" \
    --output-model-name-file zz_generated.model_name.go \
    --report-filename "${ROOT}/hack/api-rules-violations.list" \
    --update-report \
    --boilerplate "${ROOT}/hack/boilerplate.go.txt" \
    "${ROOT}/pkg/apis"

kube::codegen::gen_client \
    --with-watch \
    --with-applyconfig \
    --output-dir "${ROOT}/pkg/generated" \
    --output-pkg "${MODULE}/pkg/generated" \
    --boilerplate "${ROOT}/hack/boilerplate.go.txt" \
    "${ROOT}/pkg/apis"
