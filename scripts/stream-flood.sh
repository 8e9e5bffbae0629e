#!/usr/bin/env bash
# Event-stream flood (issue 33, item 5): one analyst tries to open ATTEMPTS research event streams
# (at least, for at least SECONDS), CONCURRENCY connections at a time spread over 4 loopback source
# addresses (127.0.1.1–4, each under the per-client connection cap), keeping every stream the
# service grants open; then H2_CONNECTIONS connections that open with the HTTP/2 preface (the
# review's 127 × 64 plain-text HTTP/2 streams). Meanwhile another analyst, from 127.0.0.1, reads
# `GET /api/documents` (and `/health/ready` every tenth request) one request after another on one
# keep-alive connection; their latencies before and during the flood are printed (p50, p99, max).
#
# The service runs on its embedded PostgreSQL cluster (pool of 16, as in the review), with no
# research worker, so the flooder's runs stay pending and their streams stay open.
#
# Environment (all optional): ATTEMPTS=8000 SECONDS_AT_LEAST=15 RATE=0 (attempts a second in all;
#   0: as fast as the connections go) CONCURRENCY=256 RUNS=8 H2_CONNECTIONS=127 PORT=18150 CARGO_TARGET_DIR (default /tmp/bench-target) SKIP_BUILD=1 to reuse
#   the binary; EVENT_STREAMS_PER_USER and HTTP2_CLEARTEXT are passed to the service.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ATTEMPTS="${ATTEMPTS:-8000}"
SECONDS_AT_LEAST="${SECONDS_AT_LEAST:-15}"
RATE="${RATE:-0}"
CONCURRENCY="${CONCURRENCY:-256}"
RUNS="${RUNS:-8}"
H2_CONNECTIONS="${H2_CONNECTIONS:-127}"
PORT="${PORT:-18150}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/bench-target}"
BIN="$CARGO_TARGET_DIR/release/creditflow"
for n in ATTEMPTS SECONDS_AT_LEAST RATE CONCURRENCY RUNS H2_CONNECTIONS PORT; do
    [[ "${!n}" =~ ^[0-9]+$ ]] || die "$n must be a whole number, not '${!n}'"
done
need curl python3
build_release --bin creditflow
port_free "$PORT" || die "127.0.0.1:$PORT is already in use"
ulimit -n "$(ulimit -Hn)"
work_dir
WORK="$WORK_DIR"
BASE="http://127.0.0.1:$PORT"

start_in "$WORK" "$WORK/service.log" \
    env -u LLM_BASE_URL -u LLM_MODEL -u LLM_API_KEY -u DATABASE_URL \
    STORE=embedded BIND_ADDR="127.0.0.1:$PORT" DATA_DIR="$WORK" DB_SSL_AUTO_CERT_DIR="$WORK/certs" RUST_LOG=warn \
    RESEARCH_WORKERS=0 \
    ${EVENT_STREAMS_PER_USER:+EVENT_STREAMS_PER_USER="$EVENT_STREAMS_PER_USER"} \
    ${HTTP2_CLEARTEXT:+HTTP2_CLEARTEXT="$HTTP2_CLEARTEXT"} \
    JWT_SECRET="stream-flood-secret-$(random_hex)" \
    ADMIN_EMAIL=flood-admin@example.com ADMIN_PASSWORD='flood admin password 1' "$BIN"
PID=$!
wait_until_up "$BASE/health/ready" "$PID" "the service" "$WORK/service.log" 120
ADMIN="$(sign_in "$BASE" flood-admin@example.com 'flood admin password 1')" || die "admin sign-in failed"
for who in flooder victim; do
    curl -sf -o /dev/null -H "authorization: Bearer $ADMIN" -H 'content-type: application/json' \
        -d "{\"email\":\"$who@example.com\",\"password\":\"$who password 12345\",\"role\":\"analyst\"}" \
        "$BASE/api/admin/users" || die "creating $who failed"
done
FLOODER="$(sign_in "$BASE" flooder@example.com 'flooder password 12345')"
VICTIM="$(sign_in "$BASE" victim@example.com 'victim password 12345')"
RUN_IDS=""
for _ in $(seq "$RUNS"); do
    RUN_IDS+="$(curl -sf -H "authorization: Bearer $FLOODER" -H 'content-type: application/json' \
        -d '{"query":"SOFR floors in leveraged loans","max_iterations":1}' "$BASE/api/deep-research/query" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["research_id"])') "
done

# The other analyst: sequential GETs on one keep-alive connection until the flag file goes.
cat >"$WORK/victim.py" <<'PY'
import http.client, os, sys, time
port, token, flag, out = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
headers = {"Authorization": f"Bearer {token}"}
with open(out, "w") as samples:
    n = 0
    while os.path.exists(flag):
        path = "/health/ready" if n % 10 == 9 else "/api/documents?page=1&limit=5"
        started = time.perf_counter()
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        response.read()
        samples.write(f"{path.split('?')[0]} {response.status} {(time.perf_counter() - started) * 1000:.3f}\n")
        n += 1
        time.sleep(0.01)
PY

summary() {
    python3 - "$1" "$2" <<'PY'
import collections, sys
label, path = sys.argv[1], sys.argv[2]
by_path = collections.defaultdict(list)
statuses = collections.Counter()
for line in open(path):
    route, status, ms = line.split()
    by_path[route].append(float(ms))
    statuses[status] += 1
for route, values in sorted(by_path.items()):
    values.sort()
    pick = lambda q: values[min(len(values) - 1, int(q * len(values)))]
    print(f"   {label:7} {route:15} n={len(values):5}  p50 {pick(0.50):7.2f} ms  p99 {pick(0.99):7.2f} ms  "
          f"max {values[-1]:7.2f} ms")
print(f"   {label:7} statuses: {dict(statuses)}")
PY
}

log "baseline: the other analyst alone for 5 s"
touch "$WORK/victim.on"
python3 "$WORK/victim.py" "$PORT" "$VICTIM" "$WORK/victim.on" "$WORK/before.txt" &
VICTIM_PID=$!
sleep 5
rm -f "$WORK/victim.on"
wait "$VICTIM_PID"
RSS_BEFORE="$(rss_kib "$PID")"

log "flood: $ATTEMPTS stream attempts at least, $CONCURRENCY connections, for at least $SECONDS_AT_LEAST s, rate ${RATE}/s (0: unpaced)"
touch "$WORK/victim.on"
python3 "$WORK/victim.py" "$PORT" "$VICTIM" "$WORK/victim.on" "$WORK/during.txt" &
VICTIM_PID=$!
python3 - "$PORT" "$FLOODER" "$ATTEMPTS" "$SECONDS_AT_LEAST" "$CONCURRENCY" "$H2_CONNECTIONS" "$RUN_IDS" "$RATE" <<'PY'
import asyncio, collections, random, sys, time
port, token, attempts, at_least, concurrency, h2_connections = (
    int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
runs, rate = sys.argv[7].split(), float(sys.argv[8])
sources = [f"127.0.1.{n}" for n in range(1, 5)]
statuses, held, made, scheduled = collections.Counter(), [], [0], [0]
started = time.monotonic()

def done():
    return made[0] >= attempts and time.monotonic() - started >= at_least

async def attacker(source):
    while not done():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        except OSError:
            statuses["connect failed"] += 1
            await asyncio.sleep(0.05)
            continue
        try:
            while not done():
                if rate > 0:
                    # Attempt n goes at n / RATE seconds after the start.
                    scheduled[0] += 1
                    await asyncio.sleep(max(0.0, started + scheduled[0] / rate - time.monotonic()))
                run = random.choice(runs)
                writer.write(f"GET /api/deep-research/results/{run}/events HTTP/1.1\r\nHost: flood\r\n"
                             f"Authorization: Bearer {token}\r\n\r\n".encode())
                head = await reader.readuntil(b"\r\n\r\n")
                made[0] += 1
                status = head.split(b" ", 2)[1].decode()
                statuses[status] += 1
                if status == "200":
                    held.append(writer)  # kept open until the end; the next attempt on a new connection
                    break
                fields = dict(line.split(b":", 1) for line in head.split(b"\r\n")[1:] if b":" in line)
                await reader.readexactly(int(fields.get(b"content-length", b"0")))
                if b"close" in fields.get(b"connection", b"").lower():
                    break
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            statuses["closed unanswered"] += 1
        if writer not in held:
            writer.close()

async def h2_preface(source):
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        writer.write(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
        answer = await asyncio.wait_for(reader.read(9), 5)
        if len(answer) == 9 and answer[3] == 4:
            return "answered with HTTP/2 SETTINGS"
        return "closed without an answer" if not answer else f"answered {answer!r}"
    except asyncio.TimeoutError:
        return "no answer in 5 s"
    except OSError as error:
        return f"failed: {error.__class__.__name__}"

async def main():
    await asyncio.gather(*(attacker(sources[n % len(sources)]) for n in range(concurrency)))
    elapsed = time.monotonic() - started
    print(f"   stream attempts: {made[0]} in {elapsed:.1f} s ({made[0] / elapsed:.0f}/s); statuses {dict(statuses)}; "
          f"streams held open: {len(held)}")
    h2 = collections.Counter(await asyncio.gather(*(h2_preface(sources[n % len(sources)]) for n in range(h2_connections))))
    print(f"   HTTP/2 prior-knowledge connections: {dict(h2)}")
    for writer in held:
        writer.close()

asyncio.run(main())
PY
rm -f "$WORK/victim.on"
wait "$VICTIM_PID"
RSS_DURING="$(rss_kib "$PID")"
summary before "$WORK/before.txt"
summary during "$WORK/during.txt"
echo "   service RSS: $((RSS_BEFORE / 1024)) MiB before, $((RSS_DURING / 1024)) MiB at the end of the flood"
