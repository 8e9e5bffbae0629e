#!/usr/bin/env bash
# End-to-end latency of the three quantitative analyses (JSON, not streamed) at 16 connections, with
# the market data read from the sample mirror (examples/market-data) so no network is involved:
# release build, in-memory store, a rate limit high enough never to refuse, wrk with a POST script.
#
# Environment (optional): DURATION=10 CONNECTIONS=16 THREADS=2 PORT=18110 SKIP_BUILD=1
#   CARGO_TARGET_DIR (default /tmp/bench-target)
set -euo pipefail

DURATION="${DURATION:-10}"
CONNECTIONS="${CONNECTIONS:-16}"
THREADS="${THREADS:-2}"
PORT="${PORT:-18110}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/bench-target}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$CARGO_TARGET_DIR/release/creditflow"
WORK="$(mktemp -d)"
PID=""
cleanup() {
    [[ -n "$PID" ]] && kill -TERM "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

command -v wrk >/dev/null || apt-get install -y wrk >/dev/null
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    (cd "$ROOT" && cargo build --release --bin creditflow)
fi

(cd "$WORK" && exec env STORE=memory BIND_ADDR="127.0.0.1:$PORT" DATA_DIR="$WORK" RUST_LOG=warn \
    MARKET_DATA_DIR="$ROOT/examples/market-data" RATE_LIMIT_PER_MINUTE=4000000000 \
    JWT_SECRET="load-quant-secret-of-at-least-32-bytes-long" \
    ADMIN_EMAIL=bench@example.com ADMIN_PASSWORD='bench password 12345' "$BIN") >"$WORK/service.log" 2>&1 &
PID=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/health/live" >/dev/null && break; sleep 0.2; done
TOKEN="$(curl -sf "http://127.0.0.1:$PORT/api/auth/login" -H 'content-type: application/json' \
    -d '{"email":"bench@example.com","password":"bench password 12345"}' |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')"

run() { # name path body
    cat >"$WORK/$1.lua" <<LUA
wrk.method = "POST"
wrk.body = '$3'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $TOKEN"
LUA
    curl -sf -o /dev/null "http://127.0.0.1:$PORT$2" -H 'content-type: application/json' \
        -H "authorization: Bearer $TOKEN" -d "$3" || { echo "load-quant.sh: $1 does not answer 200" >&2; exit 1; }
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$WORK/$1.lua" "http://127.0.0.1:$PORT$2" >"$WORK/$1.txt"
    grep -q 'Non-2xx' "$WORK/$1.txt" && { echo "load-quant.sh: $1 saw non-2xx answers" >&2; cat "$WORK/$1.txt" >&2; exit 1; }
    printf '%-16s %8s req/s   p50 %8s   p99 %8s\n' "$1" "$(awk '/^Requests\/sec:/ {print $2}' "$WORK/$1.txt")" \
        "$(awk '$1 == "50%" {print $2}' "$WORK/$1.txt")" "$(awk '$1 == "99%" {print $2}' "$WORK/$1.txt")"
}

echo "=== quantitative analyses, wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, sample mirror, $(nproc) CPUs ==="
run company /api/quantitative-analysis/company '{"company_name":"Apple","ticker":"AAPL"}'
run market /api/quantitative-analysis/market '{"query":"AAPL vs semiconductors and high yield","time_range":"1Y"}'
run loan /api/quantitative-analysis/loan-application '{"borrower_name":"Leverco","loan_amount":250000000}'
echo "service RSS after the runs: $(awk '/^VmRSS:/ {print $2}' "/proc/$PID/status") KiB"
