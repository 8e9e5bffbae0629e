# shellcheck shell=bash
# What the load and end-to-end scripts share: starting the release service and waiting for it,
# signing in, stopping what a script started and removing its files however it exits, and reading
# wrk's and /proc's numbers. Each script sources it right after `set -euo pipefail`:
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# Sourcing sets ROOT (the checkout) and SCRIPT (the script's name, for messages) and installs the
# EXIT trap that runs what stop_on_exit and remove_on_exit registered; INT and TERM exit through it.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRIPT="$(basename "$0")"

log() { printf '==> %s\n' "$*" >&2; }
die() {
    printf '%s: %s\n' "$SCRIPT" "$*" >&2
    exit 1
}

# need COMMAND...: dies naming the first command that is not installed.
need() {
    local command
    for command in "$@"; do
        command -v "$command" >/dev/null || die "$command is needed"
    done
}

# need_wrk: installs wrk with apt-get when it is missing.
need_wrk() {
    if ! command -v wrk >/dev/null; then
        log "installing wrk"
        apt-get install -y wrk >/dev/null || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
    fi
    command -v wrk >/dev/null || die "wrk is not installed"
}

# build_release CARGO_BUILD_ARGS...: `cargo build --release` in the checkout, unless SKIP_BUILD=1
# asks to reuse what CARGO_TARGET_DIR holds.
build_release() {
    [[ "${SKIP_BUILD:-0}" == 1 ]] && return 0
    log "building release binaries into ${CARGO_TARGET_DIR:-$ROOT/target}"
    (cd "$ROOT" && cargo build --release "$@")
}

# stop PID [SECONDS]: TERM, then KILL when it still runs after SECONDS (default 15, long enough for
# the embedded PostgreSQL cluster to shut down with the service). Nothing when PID is empty or gone.
stop() {
    local pid="$1" seconds="${2:-15}"
    [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq $((seconds * 10))); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
}

STOP_ON_EXIT=()
REMOVE_ON_EXIT=()

# stop_on_exit PID [SECONDS]: `stop PID SECONDS` when the script exits, in the order registered.
stop_on_exit() { STOP_ON_EXIT+=("$1:${2:-15}"); }

# remove_on_exit DIR: removes DIR when the script exits, after every registered process stopped.
remove_on_exit() { REMOVE_ON_EXIT+=("$1"); }

cleanup() {
    local entry
    for entry in "${STOP_ON_EXIT[@]}"; do
        stop "${entry%:*}" "${entry##*:}"
    done
    wait 2>/dev/null || true
    for entry in "${REMOVE_ON_EXIT[@]}"; do
        rm -rf "$entry"
    done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# work_dir: a new temporary directory, removed on exit, that the embedded cluster (which runs as the
# `postgres` user when the script runs as root) may enter. Call it as `work_dir; DIR="$WORK_DIR"`:
# a `$(work_dir)` subshell could not register the removal.
work_dir() {
    WORK_DIR="$(mktemp -d)"
    chmod 755 "$WORK_DIR"
    remove_on_exit "$WORK_DIR"
}

# start_in DIR LOG COMMAND...: runs COMMAND in the background from DIR (so that no .env of the
# checkout changes the service's configuration), its output in LOG, and stops it on exit; `$!` is
# its pid afterwards.
start_in() {
    local dir="$1" output="$2"
    shift 2
    (cd "$dir" && exec "$@") >"$output" 2>&1 &
    stop_on_exit "$!"
}

# wait_until_up URL PID NAME LOG [SECONDS]: polls URL every 0.2 s until it answers 2xx; dies when
# PID exits first (showing the end of LOG) or after SECONDS (default 60).
wait_until_up() {
    local url="$1" pid="$2" name="$3" output="$4" seconds="${5:-60}"
    for _ in $(seq $((seconds * 5))); do
        kill -0 "$pid" 2>/dev/null || die "$name exited during start-up: $(tail -20 "$output")"
        curl -sf -o /dev/null --max-time 1 "$url" && return 0
        sleep 0.2
    done
    die "$name did not answer $url within $seconds s"
}

# port_free PORT: whether nothing answers HTTP on 127.0.0.1:PORT.
port_free() {
    ! curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$1/" 2>/dev/null
}

# random_hex: 24 random bytes in hex, for throwaway secrets.
random_hex() { head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

# sign_in BASE_URL EMAIL PASSWORD: prints the access token of a password sign-in.
sign_in() {
    local body
    body="$(printf '{"email":"%s","password":"%s"}' "$2" "$3")"
    curl -sf --max-time 10 -H 'content-type: application/json' -d "$body" "$1/api/auth/login" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])'
}

# to_ms DURATION [DECIMALS]: a wrk duration ("812.00us", "1.23ms", "2.00s") in milliseconds, with
# DECIMALS decimals (default 2).
to_ms() {
    awk -v v="$1" -v decimals="${2:-2}" 'BEGIN {
        n = v + 0
        if (v ~ /us$/) n /= 1000
        else if (v ~ /ms$/) n = n
        else if (v ~ /m$/) n *= 60000
        else if (v ~ /s$/) n *= 1000
        printf "%." decimals "f", n
    }'
}

# cpu_ticks PID: CPU time (user + system) the process has used, in clock ticks; 0 once it is gone.
cpu_ticks() { [[ -r "/proc/$1/stat" ]] && sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}' || echo 0; }

# postgres_pids DATA_DIR: the embedded cluster's postmaster and its backends (the service's pool).
postgres_pids() {
    local postmaster
    postmaster="$(pgrep -f -- "-D $1/postgres" | head -1 || true)"
    [[ -n "$postmaster" ]] || return 0
    echo "$postmaster"
    pgrep -P "$postmaster" || true
}

# postgres_ticks DATA_DIR: the CPU ticks of the embedded cluster's processes.
postgres_ticks() {
    local ticks=0 pid
    for pid in $(postgres_pids "$1"); do ticks=$((ticks + $(cpu_ticks "$pid"))); done
    echo "$ticks"
}

# machine_ticks: busy ticks of the whole machine (every CPU): everything but idle and iowait.
machine_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }

# cores TICKS SECONDS: how many cores TICKS of CPU time kept busy over SECONDS.
cores() { awk -v t="$1" -v hz="$(getconf CLK_TCK)" -v d="$2" 'BEGIN {printf "%.2f", t / hz / d}'; }

# rss_kib PID: the process's resident memory, in KiB.
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
