#!/usr/bin/env bash
# Makes sure protoc and the well-known .proto files (descriptor.proto, which
# gogo.proto imports) are there for go-to-protobuf (hack/update-codegen.sh).
# They come from the distribution's packages (Debian: protobuf-compiler and
# libprotobuf-dev), installed here when missing and this script runs as root;
# otherwise it says what to install. Prints nothing when both are there.
set -o errexit -o nounset -o pipefail
SCRIPT=ensure-protoc
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DESCRIPTOR=/usr/include/google/protobuf/descriptor.proto
if command -v protoc >/dev/null 2>&1 && [[ -f "${DESCRIPTOR}" ]]; then
    exit 0
fi
apt_install "protoc or ${DESCRIPTOR}" \
    "your distribution's protobuf compiler and headers (Debian: apt-get install protobuf-compiler libprotobuf-dev)" \
    protobuf-compiler libprotobuf-dev
protoc --version >&2
