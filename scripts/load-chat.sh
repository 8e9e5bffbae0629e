#!/usr/bin/env bash
# Latency of one chat turn that launches nothing (issue 7, "Measure"), with wrk: release build, no
# language model (the deterministic engine answers: `metadata.engine` is checked), the workflow rate
# limit raised out of the way, `POST /api/digitizer-chatbot/chat` with
# `{"message":"thanks, that is helpful","session_id":…}`, p50/p90/p99. Target: p99 ≤ 5 ms at 16
# connections.
#
# Sessions. Every turn reads the caller's session and appends two messages to it (the user's
# message and the reply), so the session id decides what a turn costs. The Lua script gives each
# wrk connection its own conversation: the requests of a wrk thread go round-robin over
# CONNECTIONS/THREADS session slots, and each slot starts a new session id after SESSION_TURNS
# turns (default 20: 40 stored messages, so the 10-message history window is full from the 6th turn
# on). Warm-up and measured run use different ids. SESSION_TURNS=0 keeps one session per slot for
# the whole run: those sessions grow by two messages per turn for as long as wrk runs, which shows
# what a very long session costs.
#
# STORE=embedded (default, the service's own default): sessions in the service's private PostgreSQL
# cluster (TLS, pool of 16). STORE=memory: sessions in process memory.
#
# The endpoint must exist in the binary: a 404 or 405 on the first turn stops the script.
#
# Environment (optional): STORE=embedded|memory DURATION=10 WARMUP=3 CONNECTIONS=16 THREADS=2
#   SESSION_TURNS=20 MESSAGE='thanks, that is helpful' PORT=18130 SKIP_BUILD=1
#   CARGO_TARGET_DIR (default /tmp/bench-target)
set -euo pipefail

STORE="${STORE:-embedded}"
[[ "$STORE" == memory || "$STORE" == embedded ]] || { echo "load-chat.sh: STORE must be memory or embedded" >&2; exit 1; }
DURATION="${DURATION:-10}"
WARMUP="${WARMUP:-3}"
CONNECTIONS="${CONNECTIONS:-16}"
THREADS="${THREADS:-2}"
SESSION_TURNS="${SESSION_TURNS:-20}"
MESSAGE="${MESSAGE:-thanks, that is helpful}"
PORT="${PORT:-18130}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/bench-target}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$CARGO_TARGET_DIR/release/creditflow"
CHAT_PATH=/api/digitizer-chatbot/chat
WORK="$(mktemp -d)"
# With STORE=embedded the cluster runs as the `postgres` user when this is root: let it in.
chmod 755 "$WORK"
PID=""

die() {
    echo "load-chat.sh: $*" >&2
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
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for n in DURATION WARMUP CONNECTIONS THREADS SESSION_TURNS PORT; do
    [[ "${!n}" =~ ^[0-9]+$ ]] || die "$n must be a whole number, not '${!n}'"
done
[[ "$CONNECTIONS" -ge "$THREADS" && "$THREADS" -ge 1 ]] || die "need CONNECTIONS >= THREADS >= 1"

command -v wrk >/dev/null || apt-get install -y wrk >/dev/null || die "wrk is needed"
command -v curl >/dev/null || die "curl is needed"
command -v python3 >/dev/null || die "python3 is needed"
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    (cd "$ROOT" && cargo build --release --bin creditflow)
fi
[[ -x "$BIN" ]] || die "$BIN is missing"
! curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/" 2>/dev/null || die "127.0.0.1:$PORT is already in use"

# Converts a wrk duration ("812.00us", "1.23ms", "2.00s") to milliseconds.
to_ms() {
    awk -v v="$1" 'BEGIN {
        n = v + 0
        if (v ~ /us$/) n /= 1000
        else if (v ~ /ms$/) n = n
        else if (v ~ /m$/) n *= 60000
        else if (v ~ /s$/) n *= 1000
        printf "%.2f", n
    }'
}

# Started from WORK so that no .env of the checkout changes the configuration; no LLM_* variable, so
# the deterministic engine answers.
(cd "$WORK" && exec env -u LLM_BASE_URL -u LLM_MODEL -u LLM_API_KEY -u DATABASE_URL -u RATE_LIMIT_STORE \
    STORE="$STORE" BIND_ADDR="127.0.0.1:$PORT" DATA_DIR="$WORK" DB_SSL_AUTO_CERT_DIR="$WORK/certs" RUST_LOG=warn \
    RATE_LIMIT_PER_MINUTE=4000000000 \
    JWT_SECRET="load-chat-secret-of-at-least-32-bytes-long" \
    ADMIN_EMAIL=bench@example.com ADMIN_PASSWORD='bench password 12345' "$BIN") >"$WORK/service.log" 2>&1 &
PID=$!
for _ in $(seq 300); do
    kill -0 "$PID" 2>/dev/null || die "the service exited during start-up: $(tail -5 "$WORK/service.log")"
    curl -sf "http://127.0.0.1:$PORT/health/live" >/dev/null && break
    sleep 0.2
done
curl -sf "http://127.0.0.1:$PORT/health/live" >/dev/null || die "the service did not answer /health/live within 60 s"
TOKEN="$(curl -sf "http://127.0.0.1:$PORT/api/auth/login" -H 'content-type: application/json' \
    -d '{"email":"bench@example.com","password":"bench password 12345"}' |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')" || die "login failed"

# The body up to the session id and after it, the message JSON-encoded.
BODY_HEAD="$(python3 -c 'import json,sys; print("{\"message\":" + json.dumps(sys.argv[1]) + ",\"session_id\":\"", end="")' "$MESSAGE")"
BODY_TAIL='"}'
[[ "$BODY_HEAD" != *"]==]"* ]] || die "MESSAGE must not contain ]==]"

chat() { # session-id: writes the answer to $WORK/answer.json, prints the status
    curl -s -o "$WORK/answer.json" -w '%{http_code}' --max-time 10 "http://127.0.0.1:$PORT$CHAT_PATH" \
        -H 'content-type: application/json' -H "authorization: Bearer $TOKEN" -d "$BODY_HEAD$1$BODY_TAIL"
}

# One turn first: the endpoint must exist, answer 200 with the deterministic engine, and launch nothing.
status="$(chat bench-preflight)"
case "$status" in
    200) ;;
    404 | 405)
        die "POST $CHAT_PATH answered $status: the chat endpoint is not in this binary ($BIN). Wire the" \
            "chatbot routes in, then rebuild (run without SKIP_BUILD=1). Body: $(head -c 300 "$WORK/answer.json")"
        ;;
    *) die "POST $CHAT_PATH answered $status, not 200: $(head -c 500 "$WORK/answer.json")" ;;
esac
python3 - "$WORK/answer.json" <<'PY' || die "the first turn is not a deterministic non-launching answer: $(head -c 500 "$WORK/answer.json")"
import json, sys
answer = json.load(open(sys.argv[1]))
engine = answer.get("metadata", {}).get("engine")
launched = answer.get("workflow_launched")
print(f"first turn: engine={engine} intent={answer.get('metadata', {}).get('intent')} launched={launched}", file=sys.stderr)
sys.exit(0 if engine == "deterministic" and launched is None else 1)
PY

SLOTS=$((CONNECTIONS / THREADS))
lua() { # prefix: the wrk script giving each connection slot its own sessions under prefix
    cat <<LUA
local next_tid = 0
function setup(thread)
    thread:set("tid", next_tid)
    next_tid = next_tid + 1
end
function init(args)
    sent = 0
end
local head = [==[$BODY_HEAD]==]
local tail = [==[$BODY_TAIL]==]
local headers = {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer $TOKEN",
}
function request()
    local slot = sent % $SLOTS
    local turn = math.floor(sent / $SLOTS)
    local session = string.format("$1-t%d-c%d", tid, slot)
    if $SESSION_TURNS > 0 then
        session = string.format("%s-s%d", session, math.floor(turn / $SESSION_TURNS))
    end
    sent = sent + 1
    return wrk.format("POST", "$CHAT_PATH", headers, head .. session .. tail)
end
LUA
}
lua warm >"$WORK/warm.lua"
lua load >"$WORK/load.lua"

# CPU time (user + system) a process has used, in clock ticks.
cpu_ticks() { [[ -r "/proc/$1/stat" ]] && sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}' || echo 0; }
# The embedded cluster's postmaster and its backends (the service's pool).
postgres_pids() {
    local postmaster
    postmaster="$(pgrep -f -- "-D $WORK/postgres" | head -1 || true)"
    [[ -n "$postmaster" ]] || return 0
    echo "$postmaster"
    pgrep -P "$postmaster" || true
}
postgres_ticks() { local t=0 p; for p in $(postgres_pids); do t=$((t + $(cpu_ticks "$p"))); done; echo "$t"; }
# Busy ticks of the whole machine (every CPU): everything but idle and iowait.
machine_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
HZ="$(getconf CLK_TCK)"
cores() { awk -v t="$1" -v hz="$HZ" -v d="$DURATION" 'BEGIN {printf "%.2f", t / hz / d}'; }

URL="http://127.0.0.1:$PORT$CHAT_PATH"
echo "=== chat turn, no LLM: STORE=$STORE, wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s (after ${WARMUP}s warm-up)," \
    "SESSION_TURNS=$SESSION_TURNS, message \"$MESSAGE\", $(nproc) CPUs" \
    "($(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)) ==="
echo "load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ "$WARMUP" -gt 0 ]]; then
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${WARMUP}s" -s "$WORK/warm.lua" "$URL" >"$WORK/warm.txt"
fi
service_before="$(cpu_ticks "$PID")" pg_before="$(postgres_ticks)" machine_before="$(machine_ticks)"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$WORK/load.lua" "$URL" >"$WORK/load.txt"
CPU_LINE="cores busy: service $(cores $(($(cpu_ticks "$PID") - service_before))), PostgreSQL $(cores $(($(postgres_ticks) - pg_before))), whole machine $(cores $(($(machine_ticks) - machine_before))) of $(nproc)"
kill -0 "$PID" 2>/dev/null || die "the service died during the run"
if grep -qE 'Non-2xx|Socket errors' "$WORK/load.txt" "$WORK/warm.txt" 2>/dev/null; then
    cat "$WORK/load.txt" >&2
    die "wrk saw errors; the numbers are not valid"
fi

P99="$(to_ms "$(awk '$1 == "99%" {print $2}' "$WORK/load.txt")")"
printf 'chat     %8s req/s   p50 %6s ms   p90 %6s ms   p99 %6s ms   (%s requests)\n' \
    "$(awk '/^Requests\/sec:/ {print $2}' "$WORK/load.txt")" \
    "$(to_ms "$(awk '$1 == "50%" {print $2}' "$WORK/load.txt")")" \
    "$(to_ms "$(awk '$1 == "90%" {print $2}' "$WORK/load.txt")")" \
    "$P99" "$(awk '/ requests in / {print $1}' "$WORK/load.txt")"
echo "target p99 <= 5 ms at 16 connections: $(awk -v p="$P99" 'BEGIN { print (p <= 5 ? "met" : "NOT met") }')" \
    "(p99 $P99 ms at $CONNECTIONS connections)"
echo "$CPU_LINE"
echo "service RSS after the run: $(awk '/^VmRSS:/ {print $2}' "/proc/$PID/status") KiB"

# What one of the measured sessions holds: two messages per turn.
FIRST_SESSION=load-t0-c0
[[ "$SESSION_TURNS" -eq 0 ]] || FIRST_SESSION="$FIRST_SESSION-s0"
STORED="$(curl -sf "http://127.0.0.1:$PORT/api/digitizer-chatbot/sessions/$FIRST_SESSION" \
    -H "authorization: Bearer $TOKEN" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["messages"]))')" ||
    STORED="unreadable"
echo "messages stored in session $FIRST_SESSION: $STORED (2 per turn; SESSION_TURNS=$SESSION_TURNS, 0 = unbounded)"
