#!/usr/bin/env bash
# Fails when any generated file differs from what hack/update-codegen.sh would
# write: it regenerates in a temporary copy of the tree and compares.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "${TMP}"' EXIT

# Copy the tracked and the untracked-but-not-ignored files, nothing else.
cd "${ROOT}"
mkdir -p "${TMP}/tree"
git ls-files -z --cached --others --exclude-standard | \
    tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "${TMP}/tree"

"${TMP}/tree/hack/update-codegen.sh" >/dev/null

status=0
for d in pkg/apis pkg/generated artifacts/deploy/crds hack/api-rules-violations.list; do
    if ! diff -Naupr "${ROOT}/${d}" "${TMP}/tree/${d}"; then
        status=1
    fi
done
if [ "${status}" -ne 0 ]; then
    echo "Generated files are out of date: run hack/update-codegen.sh (never edit them by hand)." >&2
    exit 1
fi
echo "Generated files are up to date."
