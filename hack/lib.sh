# Shell helpers of the hack/ scripts that fetch or build a tool; they source it
# (`source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"`) after setting SCRIPT, the
# name their messages start with. Messages go to stderr: the scripts print only
# the path of what they ensure on stdout.

# log prints its arguments on stderr, after the script's name.
log() { echo "${SCRIPT}: $*" >&2; }

# apt_install MISSING HINT PACKAGE...: installs the distribution's PACKAGEs when
# this runs as root on a system with apt-get; otherwise it says that MISSING is
# missing and to install HINT, and exits 1.
apt_install() {
    local missing=$1 hint=$2
    shift 2
    if [[ "$(id -u)" -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
        log "${missing} is missing; install ${hint}"
        exit 1
    fi
    log "installing $* from the distribution's packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "$@" >&2
}

# cache_root ENV_VALUE: the directory that holds the tools built outside the
# clone: ENV_VALUE (a script's *_CACHE_DIR) when set, else the user's cache.
cache_root() { echo "${1:-${XDG_CACHE_HOME:-${HOME}/.cache}/update-status-apiserver}"; }

# tool_stamp: a hash of stdin (what the build depends on) and of the Go
# toolchain that builds it (${GO}).
tool_stamp() { { cat; "${GO}" env GOVERSION GOOS GOARCH; } | sha256sum | cut -d' ' -f1; }

# up_to_date DIR STAMP BINARY...: true when every BINARY is an executable and
# DIR/.stamp records STAMP.
up_to_date() {
    local dir=$1 stamp=$2
    shift 2
    local bin
    for bin in "$@"; do
        [[ -x "${bin}" ]] || return 1
    done
    [[ -f "${dir}/.stamp" && "$(cat "${dir}/.stamp")" == "${stamp}" ]]
}
