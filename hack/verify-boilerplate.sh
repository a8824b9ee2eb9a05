#!/usr/bin/env bash
# Fails when a Go file of the tree does not begin with the license header of
# hack/boilerplate.go.txt (the header the code generators also write), and
# lists those files. Build constraints may stand before the header, as
# deepcopy-gen and openapi-gen write them. With --fix it puts the header (which
# ends with a blank line) at the top of each of those files instead.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"

fix=false
case "${1:-}" in
"") ;;
--fix) fix=true ;;
*)
    echo "usage: $0 [--fix]" >&2
    exit 2
    ;;
esac

HEADER="${ROOT}/hack/boilerplate.go.txt"
lines=$(wc -l <"${HEADER}")
missing=()
has_header() {
    # Skip build constraints (//go:build, // +build) and the blank lines
    # after them.
    local start
    start=$(awk '!/^\/\/go:build / && !/^\/\/ \+build / && !/^$/ { print NR; exit }' "$1")
    sed -n "${start:-1},$((${start:-1} + lines - 1))p" "$1" | cmp -s - "${HEADER}"
}
while IFS= read -r -d '' f; do
    if ! has_header "${f}"; then
        missing+=("${f}")
    fi
done < <(git ls-files -z --cached --others --exclude-standard '*.go')

if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi
if ${fix}; then
    for f in "${missing[@]}"; do
        cat "${HEADER}" "${f}" >"${f}.boilerplate"
        mv "${f}.boilerplate" "${f}"
        echo "verify-boilerplate: added the header to ${f}"
    done
    # gofmt moves a build constraint back above the header.
    gofmt -w "${missing[@]}"
    exit 0
fi
echo "These Go files lack the license header of hack/boilerplate.go.txt (hack/verify-boilerplate.sh --fix adds it):" >&2
printf '  %s\n' "${missing[@]}" >&2
exit 1
