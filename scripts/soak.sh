#!/usr/bin/env bash
# A mixed soak on the embedded PostgreSQL cluster (issue 19): MINUTES rounds of one minute each of a
# bounded wrk request loop on loopback (CONNECTIONS connections, as 200 clients named in
# X-Forwarded-For: only a header, all traffic stays on loopback) that cycles through sign-ins, the
# caller's profile, chat turns, document creations and listings, market analyses (sample market data)
# and research submissions (their web search points at a closed loopback port, so runs end at once).
# After each round: requests, non-2xx answers, socket errors, p50/p99, the service's RSS, its threads
# and its glibc arena heaps (anonymous mappings starting on a 64 MiB boundary: each thread that
# allocates while the existing arenas are busy may get one, which shows as a step in RSS), one line.
# The last line compares the last round with the first (p99 and RSS). Exit 1 on any error.
#
# Environment (optional): MINUTES=10 CONNECTIONS=8 PORT=18140 SKIP_BUILD=1
#   CARGO_TARGET_DIR (default /tmp/bench-target)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MINUTES="${MINUTES:-10}"
CONNECTIONS="${CONNECTIONS:-8}"
PORT="${PORT:-18140}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/bench-target}"
BIN="$CARGO_TARGET_DIR/release/creditflow"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
for n in MINUTES CONNECTIONS PORT; do
    [[ "${!n}" =~ ^[0-9]+$ ]] || die "$n must be a whole number, not '${!n}'"
done
need_wrk
need curl python3
build_release --bin creditflow
port_free "$PORT" || die "127.0.0.1:$PORT is already in use"
work_dir
WORK="$WORK_DIR"
CLOSED_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"

start_in "$WORK" "$WORK/service.log" \
    env -u LLM_BASE_URL -u LLM_MODEL -u LLM_API_KEY -u DATABASE_URL \
    STORE=embedded BIND_ADDR="127.0.0.1:$PORT" DATA_DIR="$WORK" DB_SSL_AUTO_CERT_DIR="$WORK/certs" RUST_LOG=warn \
    RATE_LIMIT_PER_MINUTE=4000000000 DOCUMENT_WRITES_PER_MINUTE=4000000000 DOCUMENT_QUOTA_COUNT=4000000000 \
    TRUSTED_PROXIES=127.0.0.1/32 \
    MARKET_DATA_DIR="$ROOT/examples/market-data" \
    SEARCH_PROVIDERS=wikipedia WIKIPEDIA_API_URL="http://127.0.0.1:$CLOSED_PORT/w/api.php" \
    JWT_SECRET="soak-secret-of-at-least-32-bytes-long-0123" \
    ADMIN_EMAIL=soak@example.com ADMIN_PASSWORD='soak password 12345' "$BIN"
PID=$!
wait_until_up "http://127.0.0.1:$PORT/health/live" "$PID" "the service" "$WORK/service.log"
TOKEN="$(sign_in "http://127.0.0.1:$PORT" soak@example.com 'soak password 12345')" || die "login failed"
SESSION="$(curl -sf "http://127.0.0.1:$PORT/api/digitizer-chatbot/sessions" -X POST -H 'content-type: application/json' \
    -H "authorization: Bearer $TOKEN" -d '{}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["session_id"])')"

cat >"$WORK/mix.lua" <<LUA
-- One request of each kind in turn; the weights are the repetitions.
local auth = "Bearer $TOKEN"
local json = "application/json"
local agreement = "CREDIT AGREEMENT dated as of March 1, 2024 among Northwind Industrial Inc., as Borrower, and First Bank, N.A., as Administrative Agent. The aggregate Revolving Commitments are \$250,000,000. This Agreement is governed by the laws of the State of New York."
local mix = {
    {"GET", "/api/auth/me", nil, 6},
    {"POST", "/api/digitizer-chatbot/chat", '{"message":"thanks, that is helpful","session_id":"$SESSION"}', 4},
    {"GET", "/api/documents?page=1&limit=5", nil, 2},
    {"POST", "/api/documents", '{"title":"Soak agreement","text":"' .. agreement .. '"}', 1},
    {"POST", "/api/quantitative-analysis/market", '{"query":"AAPL","time_range":"6M"}', 1},
    {"POST", "/api/deep-research/query", '{"query":"SOFR floors in leveraged loans","max_iterations":1}', 1},
    {"POST", "/api/auth/login", '{"email":"soak@example.com","password":"soak password 12345"}', 1},
}
local kinds = {}
for _, entry in ipairs(mix) do
    for _ = 1, entry[4] do
        table.insert(kinds, entry)
    end
end
-- Many clients, as behind a load balancer: each request comes from one of 200 addresses of the
-- documentation range TEST-NET-2, in X-Forwarded-For (the service trusts the loopback proxy). One
-- address may check only a few passwords at once, so a single address would get 429s on sign-in.
local n = 0
function request()
    n = n + 1
    local entry = kinds[(n % #kinds) + 1]
    local headers = { ["Authorization"] = auth, ["X-Forwarded-For"] = "198.51.100." .. (n % 200 + 1) }
    if entry[3] then headers["Content-Type"] = json end
    return wrk.format(entry[1], entry[2], headers, entry[3])
end
-- Which non-2xx statuses there were (wrk does not say which request an answer is to).
local threads = {}
function setup(thread)
    table.insert(threads, thread)
end
function init(args)
    failures = ""
end
function response(status, headers, body)
    if status >= 300 then
        failures = failures .. status .. "\n"
    end
end
function done(summary, latency, requests)
    for _, thread in ipairs(threads) do
        local seen = thread:get("failures")
        if seen and seen ~= "" then io.write(seen) end
    end
end
LUA

log "soak: $MINUTES × 60 s, $CONNECTIONS connections, pid $PID"
printf '%-6s %10s %8s %8s %10s %10s %10s %8s %7s\n' minute requests non2xx errors p50_ms p99_ms rss_kib threads arenas
first_p99="" first_rss="" failed=0
for minute in $(seq "$MINUTES"); do
    wrk -t2 -c"$CONNECTIONS" -d60s --latency -s "$WORK/mix.lua" "http://127.0.0.1:$PORT" >"$WORK/round.txt" 2>&1
    requests="$(awk '/requests in/ {print $1}' "$WORK/round.txt")"
    non2xx="$(awk '/Non-2xx/ {print $NF}' "$WORK/round.txt")"
    errors="$(awk '/Socket errors/ {gsub(",", ""); print $4 + $6 + $8 + $10}' "$WORK/round.txt")"
    p50="$(to_ms "$(awk '$1 == "50%" {print $2}' "$WORK/round.txt")")"
    p99="$(to_ms "$(awk '$1 == "99%" {print $2}' "$WORK/round.txt")")"
    rss="$(rss_kib "$PID")"
    threads="$(awk '/^Threads:/ {print $2}' "/proc/$PID/status")"
    arenas="$(python3 -c 'import sys; print(sum(1 for l in open(sys.argv[1]) if len(l.split()) == 5 and l.split()[1] == "rw-p" and int(l.split("-")[0], 16) % (64 << 20) == 0))' "/proc/$PID/maps")"
    printf '%-6s %10s %8s %8s %10s %10s %10s %8s %7s\n' "$minute" "$requests" "${non2xx:-0}" "${errors:-0}" "$p50" "$p99" "$rss" "$threads" "$arenas"
    [[ -z "$first_p99" ]] && first_p99="$p99" && first_rss="$rss"
    if [[ "${non2xx:-0}" != 0 || "${errors:-0}" != 0 ]]; then
        failed=1
        # The done() lines, one status a line: counted.
        grep -E '^[0-9]{3}$' "$WORK/round.txt" | sort | uniq -c | sort -rn >&2 || true
    fi
done
python3 -c "print(f'last/first: p99 {$p99 / $first_p99:.2f}x, RSS {$rss / $first_rss:.2f}x ({$first_rss} -> {$rss} KiB)')"
exit "$failed"
