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
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PROVIDERS="${PROVIDERS:-fake}"
[[ "$PROVIDERS" == fake || "$PROVIDERS" == mirror ]] || die "PROVIDERS must be fake or mirror"
if [[ "$PROVIDERS" == fake ]]; then STORE="${STORE:-embedded}"; else STORE="${STORE:-memory}"; fi
[[ "$STORE" == memory || "$STORE" == embedded ]] || die "STORE must be memory or embedded"
DURATION="${DURATION:-10}"
WARMUP="${WARMUP:-3}"
CONNECTIONS="${CONNECTIONS:-16}"
THREADS="${THREADS:-2}"
PORT="${PORT:-18110}"
FAKE_PORT="${FAKE_PORT:-18120}"
FAKE_LATENCY_MS="${FAKE_LATENCY_MS:-0}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/bench-target}"
BIN="$CARGO_TARGET_DIR/release/creditflow"
work_dir
WORK="$WORK_DIR"
FAKE_PID=""

need_wrk
need python3
build_release --bin creditflow
[[ -x "$BIN" ]] || die "$BIN is missing"

market_env=()
if [[ "$PROVIDERS" == fake ]]; then
    start_in "$WORK" "$WORK/fake.log" python3 "$ROOT/scripts/fake-market-providers.py" --port "$FAKE_PORT" \
        --latency-ms "$FAKE_LATENCY_MS" --data-dir "$ROOT/examples/market-data"
    FAKE_PID=$!
    FAKE="http://127.0.0.1:$FAKE_PORT"
    wait_until_up "$FAKE/__stats" "$FAKE_PID" "the fake providers" "$WORK/fake.log" 5
    market_env=(SEC_TICKERS_URL="$FAKE/files/company_tickers.json" SEC_EDGAR_BASE_URL="$FAKE/api/xbrl/companyfacts"
        YAHOO_CHART_URL="$FAKE/v8/finance/chart" SEC_USER_AGENT="creditflow-load-test bench@example.com")
else
    market_env=(MARKET_DATA_DIR="$ROOT/examples/market-data")
fi

start_in "$WORK" "$WORK/service.log" \
    env -u ALPHAVANTAGE_API_KEY -u MARKET_DATA_DIR -u DATABASE_URL -u LLM_BASE_URL \
    STORE="$STORE" BIND_ADDR="127.0.0.1:$PORT" DATA_DIR="$WORK" DB_SSL_AUTO_CERT_DIR="$WORK/certs" RUST_LOG=warn \
    "${market_env[@]}" RATE_LIMIT_PER_MINUTE=4000000000 \
    JWT_SECRET="load-quant-secret-of-at-least-32-bytes-long" \
    ADMIN_EMAIL=bench@example.com ADMIN_PASSWORD='bench password 12345' "$BIN"
PID=$!
wait_until_up "http://127.0.0.1:$PORT/health/live" "$PID" "the service" "$WORK/service.log"
TOKEN="$(sign_in "http://127.0.0.1:$PORT" bench@example.com 'bench password 12345')"

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
    pg_before="$(postgres_ticks "$WORK")" machine_before="$(machine_ticks)"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$WORK/$1.lua" "http://127.0.0.1:$PORT$2" >"$WORK/$1.txt"
    CPU_LINES+=("$(printf '%-8s cores busy: service %s, PostgreSQL %s, fake providers %s, whole machine %s of %s' "$1" \
        "$(cores $(($(cpu_ticks "$PID") - service_before)) "$DURATION")" \
        "$(cores $(($(postgres_ticks "$WORK") - pg_before)) "$DURATION")" \
        "$(cores $(($(cpu_ticks "${FAKE_PID:-0}") - fake_before)) "$DURATION")" \
        "$(cores $(($(machine_ticks) - machine_before)) "$DURATION")" "$(nproc)")")
    if grep -qE 'Non-2xx|Socket errors' "$WORK/$1.txt"; then
        cat "$WORK/$1.txt" >&2
        die "$1 saw errors; the numbers are not valid"
    fi
    printf '%-8s %8s req/s   p50 %7s ms   p90 %7s ms   p99 %7s ms\n' "$1" \
        "$(awk '/^Requests\/sec:/ {print $2}' "$WORK/$1.txt")" \
        "$(to_ms "$(awk '$1 == "50%" {print $2}' "$WORK/$1.txt")" 1)" \
        "$(to_ms "$(awk '$1 == "90%" {print $2}' "$WORK/$1.txt")" 1)" \
        "$(to_ms "$(awk '$1 == "99%" {print $2}' "$WORK/$1.txt")" 1)"
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
