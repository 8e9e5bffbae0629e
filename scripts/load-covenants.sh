#!/usr/bin/env bash
# Latency of a covenant test on stored inputs (issue target: p99 <= 50 ms on PostgreSQL) with wrk:
# release build, the service on its own PostgreSQL cluster (STORE=embedded, TLS), one agreement and
# one statement set stored for deal 42, then POST /api/deals/42/covenant-tests naming both, and
# GET of one stored test. Each POST reads the agreement (its current version with its text) and the
# set, reads the definitions, computes the test and stores it: the whole request, not the maths
# alone.
#
# AGREEMENT=<file> (default examples/deals/northwind-credit-agreement.txt, 1.5 KB) names the
# agreement's plain text, sent as the document's `text`; a long real agreement shows what reading
# its definitions costs, e.g. AGREEMENT=tests/corpus/edgar/acco-2005-ca.txt (603 KB).
#
# Environment (optional): STORE=embedded|memory DURATION=10 WARMUP=3 CONNECTIONS=8 THREADS=2
#   PORT=18130 SKIP_BUILD=1 CARGO_TARGET_DIR (default /tmp/bench-target)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

STORE="${STORE:-embedded}"
[[ "$STORE" == memory || "$STORE" == embedded ]] || die "STORE must be memory or embedded"
DURATION="${DURATION:-10}"
WARMUP="${WARMUP:-3}"
CONNECTIONS="${CONNECTIONS:-8}"
THREADS="${THREADS:-2}"
PORT="${PORT:-18130}"
AGREEMENT="${AGREEMENT:-$ROOT/examples/deals/northwind-credit-agreement.txt}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/bench-target}"
BIN="$CARGO_TARGET_DIR/release/creditflow"
work_dir
WORK="$WORK_DIR"

need_wrk
need python3
build_release --bin creditflow
[[ -x "$BIN" ]] || die "$BIN is missing"

start_in "$WORK" "$WORK/service.log" \
    env -u DATABASE_URL -u LLM_BASE_URL \
    STORE="$STORE" BIND_ADDR="127.0.0.1:$PORT" DATA_DIR="$WORK" DB_SSL_AUTO_CERT_DIR="$WORK/certs" RUST_LOG=warn \
    RATE_LIMIT_PER_MINUTE=4000000000 DOCUMENT_WRITES_PER_MINUTE=1000 \
    JWT_SECRET="load-covenants-secret-of-at-least-32-bytes" \
    ADMIN_EMAIL=bench@example.com ADMIN_PASSWORD='bench password 12345' "$BIN"
PID=$!
wait_until_up "http://127.0.0.1:$PORT/health/live" "$PID" "the service" "$WORK/service.log"
BASE="http://127.0.0.1:$PORT"
TOKEN="$(sign_in "$BASE" bench@example.com 'bench password 12345')"

call() { # method path body-file: prints the body; dies unless 2xx
    local out status
    out="$(curl -s -w '\n%{http_code}' -X "$1" "$BASE$2" -H 'content-type: application/json' \
        -H "authorization: Bearer $TOKEN" ${3:+--data-binary @"$3"})"
    status="${out##*$'\n'}"
    [[ "$status" == 2* ]] || die "$1 $2 answered $status: ${out%$'\n'*}"
    printf '%s' "${out%$'\n'*}"
}

python3 -c 'import json,sys; print(json.dumps({"title": "Load-test agreement", "deal_id": 42, "text": open(sys.argv[1]).read()}))' \
    "$AGREEMENT" >"$WORK/document.json"
DOCUMENT_ID="$(call POST /api/documents "$WORK/document.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["document"]["document_id"])')"
SET_ID="$(call POST /api/financial-statements "$ROOT/examples/deals/northwind-statements.json" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["statement_set_id"])')"
BODY="{\"document_id\":$DOCUMENT_ID,\"statement_set_id\":\"$SET_ID\"}"
printf '%s' "$BODY" >"$WORK/test.json"
TEST_ID="$(call POST /api/deals/42/covenant-tests "$WORK/test.json" | python3 -c 'import json,sys; b=json.load(sys.stdin); print(b["test_id"]); print(len(b["covenants"]), "covenants:", ", ".join(c["name"] + " " + c["status"] for c in b["covenants"]), file=sys.stderr)')"

run() { # name method path [body]
    {
        echo "wrk.method = \"$2\""
        [[ -n "${4:-}" ]] && echo "wrk.body = '$4'"
        echo 'wrk.headers["Content-Type"] = "application/json"'
        echo "wrk.headers[\"Authorization\"] = \"Bearer $TOKEN\""
    } >"$WORK/$1.lua"
    if [[ "$WARMUP" -gt 0 ]]; then
        wrk -t"$THREADS" -c"$CONNECTIONS" -d"${WARMUP}s" -s "$WORK/$1.lua" "$BASE$3" >/dev/null
    fi
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$WORK/$1.lua" "$BASE$3" >"$WORK/$1.txt"
    if grep -qE 'Non-2xx|Socket errors' "$WORK/$1.txt"; then
        cat "$WORK/$1.txt" >&2
        die "$1 saw errors; the numbers are not valid"
    fi
    printf '%-12s %8s req/s   p50 %7s ms   p90 %7s ms   p99 %7s ms\n' "$1" \
        "$(awk '/^Requests\/sec:/ {print $2}' "$WORK/$1.txt")" \
        "$(to_ms "$(awk '$1 == "50%" {print $2}' "$WORK/$1.txt")" 1)" \
        "$(to_ms "$(awk '$1 == "90%" {print $2}' "$WORK/$1.txt")" 1)" \
        "$(to_ms "$(awk '$1 == "99%" {print $2}' "$WORK/$1.txt")" 1)"
}

echo "=== covenant tests: STORE=$STORE, agreement $(basename "$AGREEMENT") ($(wc -c <"$AGREEMENT") bytes)," \
    "wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s (after ${WARMUP}s warm-up), $(nproc) CPUs ==="
echo "load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
run test POST /api/deals/42/covenant-tests "$BODY"
run read GET "/api/deals/42/covenant-tests/$TEST_ID"
kill -0 "$PID" 2>/dev/null || die "the service died during the run"
echo "service RSS after the runs: $(rss_kib "$PID") KiB"
