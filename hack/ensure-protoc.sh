#!/usr/bin/env bash
# Makes sure protoc and the well-known .proto files (descriptor.proto, which
# gogo.proto imports) are there for go-to-protobuf (hack/update-codegen.sh).
# They come from the distribution's packages (Debian: protobuf-compiler and
# libprotobuf-dev), installed here when missing and this script runs as root;
# otherwise it says what to install. Prints nothing when both are there.
set -o errexit -o nounset -o pipefail

DESCRIPTOR=/usr/include/google/protobuf/descriptor.proto
if command -v protoc >/dev/null 2>&1 && [[ -f "${DESCRIPTOR}" ]]; then
    exit 0
fi
if [[ "$(id -u)" -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-protoc: protoc or ${DESCRIPTOR} is missing; install your distribution's protobuf compiler and headers (Debian: apt-get install protobuf-compiler libprotobuf-dev)" >&2
    exit 1
fi
echo "ensure-protoc: installing protobuf-compiler and libprotobuf-dev from the distribution's packages" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends protobuf-compiler libprotobuf-dev >&2
protoc --version >&2
