#!/usr/bin/env bash
# Regenerates every generated file: protobuf (generated.proto, generated.pb.go
# and the protobuf tags of the versioned types), the internal types
# (hack/internaltypes), deepcopy, conversion and
# defaulter helpers beside the types, and OpenAPI definitions, clientset (with
# watch, without apply configurations), listers and informers under pkg/generated/,
# and the CustomResourceDefinitions of artifacts/deploy/crds (controller-gen,
# hack/ensure-controller-gen.sh) from the types of the CRD-served groups.
# The generators are the k8s.io/code-generator, kube-openapi and goimports
# versions pinned as tools in go.mod, built into _output/codegen-bin; protoc is
# the distribution's (hack/ensure-protoc.sh).
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

# Protobuf first: it rewrites the struct tags of the versioned types, which the
# other generators read. go-to-protobuf wants a GOPATH-like tree in which the
# proto import paths resolve: a temporary one of symbolic links.
"${ROOT}/hack/ensure-protoc.sh"
go build -o "${GOBIN}/" \
    k8s.io/code-generator/cmd/go-to-protobuf \
    k8s.io/code-generator/cmd/go-to-protobuf/protoc-gen-gogo \
    golang.org/x/tools/cmd/goimports
PROTO_TREE=$(mktemp -d)
trap 'rm -rf "${PROTO_TREE}"' EXIT
for m in "${MODULE}" k8s.io/apimachinery github.com/gogo/protobuf; do
    mkdir -p "${PROTO_TREE}/$(dirname "${m}")"
    go mod download "${m}" 2>/dev/null || true
    ln -s "$(go list -m -f '{{.Dir}}' "${m}")" "${PROTO_TREE}/${m}"
done
PATH="${GOBIN}:${PATH}" "${GOBIN}/go-to-protobuf" \
    --go-header-file "${ROOT}/hack/boilerplate.go.txt" \
    --output-dir "${PROTO_TREE}" \
    --proto-import "${PROTO_TREE}" \
    --proto-import /usr/include \
    --apimachinery-packages "-k8s.io/apimachinery/pkg/util/intstr,-k8s.io/apimachinery/pkg/api/resource,-k8s.io/apimachinery/pkg/runtime/schema,-k8s.io/apimachinery/pkg/runtime,-k8s.io/apimachinery/pkg/apis/meta/v1" \
    --packages "${MODULE}/pkg/apis/update/v1alpha1"

# The internal (hub) types are generated from the versioned ones
# (docs/api-decisions.md#the-internal-version); deepcopy and conversion read them.
go run ./hack/internaltypes

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
    --output-dir "${ROOT}/pkg/generated" \
    --output-pkg "${MODULE}/pkg/generated" \
    --boilerplate "${ROOT}/hack/boilerplate.go.txt" \
    "${ROOT}/pkg/apis"

# The CustomResourceDefinitions of the groups the kube-apiserver serves (only
# informers.update.openshift.io): their schemas, CEL rules and printer columns
# come from the +kubebuilder markers of the Go types, including those of the
# update.openshift.io/v1alpha1 insight types they embed.
CONTROLLER_GEN=$("${ROOT}/hack/ensure-controller-gen.sh")
"${CONTROLLER_GEN}" crd \
    paths="./pkg/apis/informers/..." \
    output:crd:dir="${ROOT}/artifacts/deploy/crds"
