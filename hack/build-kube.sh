#!/usr/bin/env bash
# Builds etcd and kube-apiserver from the tools module hack/tools/kube (Go module
# proxy only) into a cache directory outside the clone, and prints that directory
# as the last line of stdout; every other message goes to stderr. Usage:
#
#   KUBE_BIN_DIR=$(hack/build-kube.sh)
#
# The binaries are rebuilt only when they are missing or when the tools module
# (go.mod, go.sum, cmd/) or the build flags below change: a stamp file in the
# directory records the hash of those inputs. A cold build takes about 10.5
# minutes on two cores; an up-to-date check takes well under a second.
#
# Environment: KUBE_CACHE_DIR overrides the cache root
# (default ${XDG_CACHE_HOME:-$HOME/.cache}/update-status-apiserver).
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS="${ROOT}/hack/tools/kube"
GO=${GO:-go}

SCRIPT=build-kube
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
trap 'log "failed (line ${LINENO})"' ERR

# The Kubernetes version comes from the tools module's go.mod, so that bumping it
# there is the only edit needed.
KUBE_VERSION=$(cd "${TOOLS}" && "${GO}" list -m -f '{{.Version}}' k8s.io/kubernetes)
if [[ -z "${KUBE_VERSION}" ]]; then
    log "cannot find the k8s.io/kubernetes version of ${TOOLS}/go.mod"
    exit 1
fi
KUBE_MINOR=$(echo "${KUBE_VERSION}" | cut -d. -f2)

OUT="$(cache_root "${KUBE_CACHE_DIR:-}")/kube-${KUBE_VERSION}"

# Same flags for every binary of the tools module: build-cache keys include the
# tags, so etcd reuses what kube-apiserver compiled. Tags and static linking follow
# Kubernetes' own hack/lib/golang.sh; -X sets what /version reports.
TAGS="selinux,notest,grpcnotrace"
LDFLAGS="-s -w"
for p in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
    LDFLAGS+=" -X ${p}.gitVersion=${KUBE_VERSION} -X ${p}.gitMajor=1 -X ${p}.gitMinor=${KUBE_MINOR}"
    LDFLAGS+=" -X ${p}.gitTreeState=clean"
done

# The stamp: a hash of every input that changes the binaries.
STAMP=$(
    {
        cat "${TOOLS}/go.mod" "${TOOLS}/go.sum"
        find "${TOOLS}/cmd" -type f -name '*.go' | LC_ALL=C sort | xargs cat
        echo "tags=${TAGS}"
        echo "ldflags=${LDFLAGS}"
    } | tool_stamp
)

mkdir -p "${OUT}"
# Two builds at once (make run in one terminal, make test in another) would
# waste ten minutes of both cores: serialise them.
exec 9>"${OUT}/.lock"
if ! flock -n 9; then
    log "another build holds ${OUT}/.lock; waiting for it"
    flock 9
fi

if up_to_date "${OUT}" "${STAMP}" "${OUT}/etcd" "${OUT}/kube-apiserver"; then
    log "etcd and kube-apiserver ${KUBE_VERSION} are up to date in ${OUT}"
else
    log "building etcd and kube-apiserver ${KUBE_VERSION} into ${OUT} (cold: about 10.5 minutes)"
    start=$(date +%s)
    rm -f "${OUT}/.stamp"
    TMP=$(mktemp -d "${OUT}/.build.XXXXXX")
    trap 'rm -rf "${TMP}"' EXIT
    (
        cd "${TOOLS}"
        CGO_ENABLED=0 "${GO}" build -trimpath -tags="${TAGS}" -ldflags "${LDFLAGS}" -o "${TMP}/" \
            k8s.io/kubernetes/cmd/kube-apiserver ./cmd/etcd
    ) >&2
    # No pipes here: with pipefail, `etcd --version | head -1` fails on SIGPIPE.
    "${TMP}/kube-apiserver" --version >&2
    "${TMP}/etcd" --version >&2
    mv -f "${TMP}/kube-apiserver" "${TMP}/etcd" "${OUT}/"
    echo "${STAMP}" >"${OUT}/.stamp"
    log "built in $(($(date +%s) - start)) s"
fi

echo "${OUT}"
