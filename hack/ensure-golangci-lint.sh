#!/usr/bin/env bash
# Builds the golangci-lint of .custom-gcl.yml (golangci-lint plus the
# kube-api-linter and logcheck module plugins) and prints its path as the last
# line of stdout; every other message goes to stderr. Usage:
#
#   GOLANGCI_LINT=$(hack/ensure-golangci-lint.sh)
#
# Everything comes from the Go module proxy:
#  1. `go install` builds the golangci-lint release named by `version:` in
#     .custom-gcl.yml;
#  2. its `golangci-lint custom` builds the binary with the plugins. That
#     command starts with a `git clone` of golangci-lint's repository at the
#     version's tag; the clone is pointed (git's url.<base>.insteadOf, passed in
#     the environment) at a local git repository made from the module proxy's
#     copy of the same version, the very files `go install` compiled.
# The binaries live in a cache directory outside the clone, and are rebuilt
# only when .custom-gcl.yml or the Go version changes: a stamp file records the
# hash of both. A cold build takes several minutes; a check, well under a second.
#
# Environment: GOLANGCI_LINT_CACHE_DIR overrides the cache root
# (default ${XDG_CACHE_HOME:-$HOME/.cache}/update-status-apiserver).
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CONFIG="${ROOT}/.custom-gcl.yml"
GO=${GO:-go}
MODULE=github.com/golangci/golangci-lint/v2

SCRIPT=ensure-golangci-lint
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
trap 'log "failed (line ${LINENO})"' ERR

VERSION=$(sed -n 's/^version:[[:space:]]*\([^[:space:]#]*\).*/\1/p' "${CONFIG}")
NAME=$(sed -n 's/^name:[[:space:]]*\([^[:space:]#]*\).*/\1/p' "${CONFIG}")
if [[ -z "${VERSION}" || -z "${NAME}" ]]; then
    log "${CONFIG} must set version: and name:"
    exit 1
fi

OUT="$(cache_root "${GOLANGCI_LINT_CACHE_DIR:-}")/golangci-lint-${VERSION}"
STAMP=$(tool_stamp <"${CONFIG}")

if up_to_date "${OUT}" "${STAMP}" "${OUT}/${NAME}"; then
    echo "${OUT}/${NAME}"
    exit 0
fi

mkdir -p "${OUT}"
rm -f "${OUT}/.stamp"
TMP=$(mktemp -d)
trap 'rm -rf "${TMP}"' EXIT

log "building golangci-lint ${VERSION} into ${OUT}"
GOBIN="${OUT}" "${GO}" install "${MODULE}/cmd/golangci-lint@${VERSION}"

# The local repository that `golangci-lint custom` clones: the module's files
# at the version, committed and tagged with it.
SRC=$("${GO}" mod download -json "${MODULE}@${VERSION}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [[ -z "${SRC}" || ! -d "${SRC}" ]]; then
    log "cannot find ${MODULE}@${VERSION} in the module cache"
    exit 1
fi
REPO="${TMP}/golangci-lint.git"
cp -R "${SRC}" "${REPO}"
chmod -R u+w "${REPO}"
git -C "${REPO}" init -q
git -C "${REPO}" add -A
git -C "${REPO}" -c user.name=ensure-golangci-lint -c user.email=ensure-golangci-lint@localhost \
    commit -q -m "${MODULE}@${VERSION} from the Go module proxy"
git -C "${REPO}" tag "${VERSION}"

log "building ${NAME} (golangci-lint custom, plugins of .custom-gcl.yml)"
(
    cd "${ROOT}"
    GIT_CONFIG_COUNT=1 \
        GIT_CONFIG_KEY_0="url.file://${REPO}.insteadOf" \
        GIT_CONFIG_VALUE_0=https://github.com/golangci/golangci-lint.git \
        "${OUT}/golangci-lint" custom --destination "${OUT}" >&2
)
"${OUT}/${NAME}" version >&2
echo "${STAMP}" >"${OUT}/.stamp"
echo "${OUT}/${NAME}"
