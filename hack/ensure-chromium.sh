#!/usr/bin/env bash
# Makes sure a headless-capable Chromium is there for the browser test of
# `update-status web` (test/integration/web_test.go). It comes from the
# distribution's packages (Debian: chromium, which ships /usr/bin/chromium),
# installed here when missing and this script runs as root; otherwise it says
# what to install. $CHROMIUM, when set to an executable, wins.
# Prints the path of the chromium binary.
set -o errexit -o nounset -o pipefail

if [[ -n "${CHROMIUM:-}" && -x "${CHROMIUM}" ]]; then
    echo "${CHROMIUM}"
    exit 0
fi
for name in chromium chromium-browser; do
    if command -v "${name}" >/dev/null 2>&1; then
        command -v "${name}"
        exit 0
    fi
done
if [[ "$(id -u)" -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-chromium: chromium is missing; install your distribution's Chromium (Debian: apt-get install --no-install-recommends chromium)" >&2
    exit 1
fi
echo "ensure-chromium: installing chromium from the distribution's packages" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends chromium fonts-liberation >&2
chromium --version >&2
command -v chromium
