#!/usr/bin/env bash
# Makes sure a headless-capable Chromium is there for the browser test of
# `update-status web` (test/integration/web_test.go). It comes from the
# distribution's packages (Debian: chromium, which ships /usr/bin/chromium),
# installed here when missing and this script runs as root; otherwise it says
# what to install. $CHROMIUM, when set to an executable, wins.
# Prints the path of the chromium binary.
set -o errexit -o nounset -o pipefail
SCRIPT=ensure-chromium
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

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
apt_install chromium "your distribution's Chromium (Debian: apt-get install --no-install-recommends chromium)" \
    chromium fonts-liberation
chromium --version >&2
command -v chromium
