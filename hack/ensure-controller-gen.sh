#!/usr/bin/env bash
# Builds controller-gen (sigs.k8s.io/controller-tools) at CONTROLLER_TOOLS_VERSION
# from the Go module proxy and prints its path as the last line of stdout; every
# other message goes to stderr. hack/update-codegen.sh runs it to generate the
# CustomResourceDefinitions of artifacts/deploy/crds. Usage:
#
#   CONTROLLER_GEN=$(hack/ensure-controller-gen.sh)
#
# `go install module@version` builds it in its own module, so its dependencies
# stay out of this repository's go.mod. The binary lives in a cache directory
# outside the clone and is rebuilt only when the version or the Go toolchain
# changes (a stamp file records both).
#
# Environment: CONTROLLER_GEN_CACHE_DIR overrides the cache root
# (default ${XDG_CACHE_HOME:-$HOME/.cache}/update-status-apiserver).
set -o errexit -o nounset -o pipefail

CONTROLLER_TOOLS_VERSION=v0.23.0
GO=${GO:-go}

SCRIPT=ensure-controller-gen
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
trap 'log "failed (line ${LINENO})"' ERR

OUT="$(cache_root "${CONTROLLER_GEN_CACHE_DIR:-}")/controller-gen-${CONTROLLER_TOOLS_VERSION}"
STAMP=$(echo "${CONTROLLER_TOOLS_VERSION}" | tool_stamp)

if up_to_date "${OUT}" "${STAMP}" "${OUT}/controller-gen"; then
    echo "${OUT}/controller-gen"
    exit 0
fi

mkdir -p "${OUT}"
rm -f "${OUT}/.stamp"
log "building controller-gen ${CONTROLLER_TOOLS_VERSION} into ${OUT}"
GOBIN="${OUT}" "${GO}" install "sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_TOOLS_VERSION}"
echo "${STAMP}" >"${OUT}/.stamp"
echo "${OUT}/controller-gen"
