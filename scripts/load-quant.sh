#!/usr/bin/env bash
# End-to-end latency of the three quantitative analyses (JSON, not streamed) with wrk: release
# build, a rate limit high enough never to refuse, one POST body per endpoint, p50/p90/p99.
#
# PROVIDERS=fake (default): the service fetches from SEC EDGAR and Yahoo over HTTP, both played by
#   scripts/fake-market-providers.py serving examples/market-data (SEC_TICKERS_URL,
#   SEC_EDGAR_BASE_URL, YAHOO_CHART_URL point at it), and stores in its own PostgreSQL cluster
#   (STORE=embedded, TLS). Company facts are cached in the store for SEC_CACHE_TTL (24 h), so they
#   are fetched once per company: the script first times one cold company analysis (ticker list and
#   company facts fetched, parsed and cached) and one cold loan analysis (another company's facts),
#   each followed by the same request warm; wrk then measures with the cache warm. Prices are not
#   cached: every company and market analysis fetches its series from the fake Yahoo.
# PROVIDERS=mirror: market data read from the files of examples/market-data (MARKET_DATA_DIR), no
#   HTTP; STORE=memory by default.
#
# Environment (optional): PROVIDERS=fake|mirror STORE=embedded|memory DURATION=10 WARMUP=3
#   CONNECTIONS=16 THREADS=2 PORT=18110 FAKE_PORT=18120 FAKE_LATENCY_MS=0 SKIP_BUILD=1
#   CARGO_TARGET_DIR (default /tmp/bench-target)
set -euo pipefail

PROVIDERS="${PROVIDERS:-fake}"
[[ "$PROVIDERS" == fake || "$PROVIDERS" == mirror ]] || { echo "load-quant.sh: PROVIDERS must be fake or mirror" >&2; exit 1; }
if [[ "$PROVIDERS" == fake ]]; then STORE="${STORE:-embedded}"; else STORE="${STORE:-memory}"; fi
[[ "$STORE" == memory || "$STORE" == embedded ]] || { echo "load-quant.sh: STORE must be memory or embedded" >&2; exit 1; }
DURATION="${DURATION:-10}"
WARMUP="${WARMUP:-3}"
CONNECTIONS="${CONNECTIONS:-16}"
THREADS="${THREADS:-2}"
PORT="${PORT:-18110}"
FAKE_PORT="${FAKE_PORT:-18120}"
FAKE_LATENCY_MS="${FAKE_LATENCY_MS:-0}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/bench-target}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$CARGO_TARGET_DIR/release/creditflow"
WORK="$(mktemp -d)"
# With STORE=embedded the cluster runs as the `postgres` user when this is root: let it in.
chmod 755 "$WORK"
PID=""
FAKE_PID=""

die() {
    echo "load-quant.sh: $*" >&2
    exit 1
}
stop() { # pid: TERM, then wait up to 15 s (the embedded cluster shuts down with the service)
    [[ -n "$1" ]] && kill -0 "$1" 2>/dev/null || return 0
    kill -TERM "$1" 2>/dev/null || true
    for _ in $(seq 150); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL "$1" 2>/dev/null || true
}
cleanup() {
    stop "$PID"
    stop "$FAKE_PID"
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

command -v wrk >/dev/null || apt-get install -y wrk >/dev/null || die "wrk is needed"
command -v python3 >/dev/null || die "python3 is needed"
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    (cd "$ROOT" && cargo build --release --bin creditflow)
fi
[[ -x "$BIN" ]] || die "$BIN is missing"

# Converts a wrk duration ("812.00us", "1.23ms", "2.00s") to milliseconds.
to_ms() {
    awk -v v="$1" 'BEGIN {
        n = v + 0
        if (v ~ /us$/) n /= 1000
        else if (v ~ /ms$/) n = n
        else if (v ~ /m$/) n *= 60000
        else if (v ~ /s$/) n *= 1000
        printf "%.1f", n
    }'
}

market_env=()
if [[ "$PROVIDERS" == fake ]]; then
    python3 "$ROOT/scripts/fake-market-providers.py" --port "$FAKE_PORT" --latency-ms "$FAKE_LATENCY_MS" \
        --data-dir "$ROOT/examples/market-data" >"$WORK/fake.log" 2>&1 &
    FAKE_PID=$!
    FAKE="http://127.0.0.1:$FAKE_PORT"
    for _ in $(seq 50); do curl -sf "$FAKE/__stats" >/dev/null && break; sleep 0.1; done
    curl -sf "$FAKE/__stats" >/dev/null || die "the fake providers did not start: $(cat "$WORK/fake.log")"
    market_env=(SEC_TICKERS_URL="$FAKE/files/company_tickers.json" SEC_EDGAR_BASE_URL="$FAKE/api/xbrl/companyfacts"
        YAHOO_CHART_URL="$FAKE/v8/finance/chart" SEC_USER_AGENT="creditflow-load-test bench@example.com")
else
    market_env=(MARKET_DATA_DIR="$ROOT/examples/market-data")
fi

# Started from WORK so that no .env of the checkout changes the configuration.
(cd "$WORK" && exec env -u ALPHAVANTAGE_API_KEY -u MARKET_DATA_DIR -u DATABASE_URL -u LLM_BASE_URL \
    STORE="$STORE" BIND_ADDR="127.0.0.1:$PORT" DATA_DIR="$WORK" DB_SSL_AUTO_CERT_DIR="$WORK/certs" RUST_LOG=warn \
    "${market_env[@]}" RATE_LIMIT_PER_MINUTE=4000000000 \
    JWT_SECRET="load-quant-secret-of-at-least-32-bytes-long" \
    ADMIN_EMAIL=bench@example.com ADMIN_PASSWORD='bench password 12345' "$BIN") >"$WORK/service.log" 2>&1 &
PID=$!
for _ in $(seq 300); do
    kill -0 "$PID" 2>/dev/null || die "the service exited during start-up: $(tail -5 "$WORK/service.log")"
    curl -sf "http://127.0.0.1:$PORT/health/live" >/dev/null && break
    sleep 0.2
done
TOKEN="$(curl -sf "http://127.0.0.1:$PORT/api/auth/login" -H 'content-type: application/json' \
    -d '{"email":"bench@example.com","password":"bench password 12345"}' |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')"

post() { # path body: "status seconds"
    curl -s -o /dev/null -w '%{http_code} %{time_total}' "http://127.0.0.1:$PORT$1" -H 'content-type: application/json' \
        -H "authorization: Bearer $TOKEN" -d "$2"
}

COMPANY_BODY='{"company_name":"Apple","ticker":"AAPL"}'
MARKET_BODY='{"query":"AAPL vs semiconductors and high yield","time_range":"1Y"}'
LOAN_BODY='{"borrower_name":"Leverco","loan_amount":250000000}'

COLD_LINES=()
if [[ "$PROVIDERS" == fake ]]; then
    # Cold: nothing fetched yet. Apple's analysis fetches the ticker list and Apple's company facts;
    # the loan (Leverco) fetches Leverco's facts (the ticker list is then in memory).
    for name in company loan; do
        if [[ "$name" == company ]]; then path=/api/quantitative-analysis/company body="$COMPANY_BODY"
        else path=/api/quantitative-analysis/loan-application body="$LOAN_BODY"; fi
        read -r status cold <<<"$(post "$path" "$body")"
        [[ "$status" == 200 ]] || die "$name (cold) answered $status: $(tail -5 "$WORK/service.log")"
        read -r status warm <<<"$(post "$path" "$body")"
        [[ "$status" == 200 ]] || die "$name (warm) answered $status"
        COLD_LINES+=("$(printf '%-8s one request, cold %7.1f ms, then warm %7.1f ms' "$name" \
            "$(awk -v s="$cold" 'BEGIN{print s*1000}')" "$(awk -v s="$warm" 'BEGIN{print s*1000}')")")
    done
    STATS_BEFORE="$(curl -sf "$FAKE/__stats")"
fi

# CPU time (user + system) a process has used, in clock ticks.
cpu_ticks() { [[ -r "/proc/$1/stat" ]] && sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}' || echo 0; }
# The embedded cluster's postmaster and its backends (the service's pool).
postgres_pids() {
    local postmaster
    postmaster="$(pgrep -f -- "-D $WORK/postgres" | head -1 || true)"
    [[ -n "$postmaster" ]] && echo "$postmaster" $(pgrep -P "$postmaster" || true)
}
postgres_ticks() { local t=0 p; for p in $(postgres_pids); do t=$((t + $(cpu_ticks "$p"))); done; echo "$t"; }
# Busy ticks of the whole machine (every CPU): everything but idle and iowait.
machine_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
HZ="$(getconf CLK_TCK)"
cores() { awk -v t="$1" -v hz="$HZ" -v d="$DURATION" 'BEGIN {printf "%.2f", t / hz / d}'; }

run() { # name path body
    cat >"$WORK/$1.lua" <<LUA
wrk.method = "POST"
wrk.body = '$3'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $TOKEN"
LUA
    read -r status _ <<<"$(post "$2" "$3")"
    [[ "$status" == 200 ]] || die "$1 answers $status, not 200"
    if [[ "$WARMUP" -gt 0 ]]; then
        wrk -t"$THREADS" -c"$CONNECTIONS" -d"${WARMUP}s" -s "$WORK/$1.lua" "http://127.0.0.1:$PORT$2" >/dev/null
    fi
    local service_before fake_before pg_before machine_before
    service_before="$(cpu_ticks "$PID")" fake_before="$(cpu_ticks "${FAKE_PID:-0}")"
    pg_before="$(postgres_ticks)" machine_before="$(machine_ticks)"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$WORK/$1.lua" "http://127.0.0.1:$PORT$2" >"$WORK/$1.txt"
    CPU_LINES+=("$(printf '%-8s cores busy: service %s, PostgreSQL %s, fake providers %s, whole machine %s of %s' "$1" \
        "$(cores $(($(cpu_ticks "$PID") - service_before)))" "$(cores $(($(postgres_ticks) - pg_before)))" \
        "$(cores $(($(cpu_ticks "${FAKE_PID:-0}") - fake_before)))" \
        "$(cores $(($(machine_ticks) - machine_before)))" "$(nproc)")")
    if grep -qE 'Non-2xx|Socket errors' "$WORK/$1.txt"; then
        cat "$WORK/$1.txt" >&2
        die "$1 saw errors; the numbers are not valid"
    fi
    printf '%-8s %8s req/s   p50 %7s ms   p90 %7s ms   p99 %7s ms\n' "$1" \
        "$(awk '/^Requests\/sec:/ {print $2}' "$WORK/$1.txt")" \
        "$(to_ms "$(awk '$1 == "50%" {print $2}' "$WORK/$1.txt")")" \
        "$(to_ms "$(awk '$1 == "90%" {print $2}' "$WORK/$1.txt")")" \
        "$(to_ms "$(awk '$1 == "99%" {print $2}' "$WORK/$1.txt")")"
}

echo "=== quantitative analyses: PROVIDERS=$PROVIDERS STORE=$STORE, wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s" \
    "(after ${WARMUP}s warm-up), $(nproc) CPUs ($(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo))" \
    "$([[ "$PROVIDERS" == fake ]] && echo ", fake provider latency ${FAKE_LATENCY_MS} ms") ==="
for line in "${COLD_LINES[@]}"; do echo "$line"; done
CPU_LINES=()
echo "load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
run company /api/quantitative-analysis/company "$COMPANY_BODY"
run market /api/quantitative-analysis/market "$MARKET_BODY"
run loan /api/quantitative-analysis/loan-application "$LOAN_BODY"
kill -0 "$PID" 2>/dev/null || die "the service died during the run"
for line in "${CPU_LINES[@]}"; do echo "$line"; done
echo "service RSS after the runs: $(awk '/^VmRSS:/ {print $2}' "/proc/$PID/status") KiB"
if [[ "$PROVIDERS" == fake ]]; then
    echo "fake provider requests after the cold requests: $STATS_BEFORE"
    echo "fake provider requests after the runs:          $(curl -sf "$FAKE/__stats")"
fi
