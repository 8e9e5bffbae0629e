#!/usr/bin/env bash
# What the metrics cost (issue 19: at most 2 % of throughput): the same release binary twice,
# in memory, one with METRICS_ADDR set (everything counted) and one without (nothing counted),
# the authenticated cheap GET (`/api/auth/me`) driven by the same client (wrk -t2 -c64),
# alternating, RUNS rounds of DUR each. Prints the medians and their ratio; scrapes /metrics once at
# the end to show the requests were counted.
#
# Environment (optional): RUNS=5 DUR=8s SKIP_BUILD=1 CARGO_TARGET_DIR (default /tmp/bench-target)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS="${RUNS:-5}"
DUR="${DUR:-8s}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/bench-target}"
BIN="$CARGO_TARGET_DIR/release/creditflow"
need_wrk
need curl python3
build_release --bin creditflow
work_dir
WORK="$WORK_DIR"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
OFF="$(free_port)" ON="$(free_port)" SCRAPE="$(free_port)"

start() { # port [METRICS_ADDR]
    start_in "$WORK" "$WORK/service-$1.log" env STORE=memory BIND_ADDR="127.0.0.1:$1" DATA_DIR="$WORK/data-$1" \
        ${2:+METRICS_ADDR="$2"} RUST_LOG=warn LOG_FORMAT=json JWT_SECRET=bench-secret-0123456789abcdef0123456789 \
        ADMIN_EMAIL=bench@example.com ADMIN_PASSWORD=Bench-Passw0rd-123 "$BIN"
    wait_until_up "http://127.0.0.1:$1/health/live" "$!" "the service" "$WORK/service-$1.log"
}
start "$OFF"
start "$ON" "127.0.0.1:$SCRAPE"
token_off="$(sign_in "http://127.0.0.1:$OFF" bench@example.com Bench-Passw0rd-123)"
token_on="$(sign_in "http://127.0.0.1:$ON" bench@example.com Bench-Passw0rd-123)"
rps() { wrk -t2 -c64 -d"$DUR" -H "Authorization: Bearer $1" "http://127.0.0.1:$2/api/auth/me" | awk '/Requests\/sec/ {print $2}'; }
rps "$token_off" "$OFF" >/dev/null
rps "$token_on" "$ON" >/dev/null
off=() on=()
for _ in $(seq "$RUNS"); do
    off+=("$(rps "$token_off" "$OFF")")
    on+=("$(rps "$token_on" "$ON")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
M_OFF="$(median "${off[@]}")" M_ON="$(median "${on[@]}")"
echo "metrics off: $M_OFF req/s (runs: ${off[*]})"
echo "metrics on:  $M_ON req/s (runs: ${on[*]})"
curl -sf "http://127.0.0.1:$SCRAPE/metrics" | grep 'route="/api/auth/me",status="200"' | grep _total
python3 -c "print(f'on/off = {$M_ON / $M_OFF:.3f} (target >= 0.98)')"
