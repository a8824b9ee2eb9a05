#!/usr/bin/env bash
# Makes sure prometheus and promtool are there for the alerting tests and
# `make run`: a real Prometheus scrapes the simulator's metrics and evaluates
# artifacts/local/prometheus/rules.yaml. They come from the distribution's
# packages (Debian: prometheus, which ships /usr/bin/prometheus and
# /usr/bin/promtool), installed here when missing and this script runs as
# root; otherwise it says what to install. The package's own service does not
# matter: the stack runs the binary itself on a loopback port of its own.
# Prints the path of the prometheus binary.
set -o errexit -o nounset -o pipefail
SCRIPT=ensure-prometheus
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; then
    command -v prometheus
    exit 0
fi
apt_install "prometheus or promtool" \
    "your distribution's Prometheus server (Debian: apt-get install --no-install-recommends prometheus)" prometheus
prometheus --version >&2
command -v prometheus
