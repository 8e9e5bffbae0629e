#!/usr/bin/env bash
# Load test: authenticated `GET /api/auth/me` on creditflow against a minimal warp hello-world
# (examples/hello_world.rs) on the same machine, both release builds, with wrk.
#
# Prints req/s of both, their ratio, p50/p99 latencies, and creditflow's idle RSS.
# Everything listens on and is loaded through 127.0.0.1 only; both servers are stopped on exit.
#
# Environment (all optional):
#   DURATION=15          seconds per measured wrk run
#   WARMUP=3             seconds of discarded wrk warm-up per server (0 to skip)
#   THREADS=2 CONNECTIONS=64
#   CF_PORT=18080 HELLO_PORT=18081
#   CARGO_TARGET_DIR     defaults to /tmp/bench-target
#   SKIP_BUILD=1         reuse the binaries already built in CARGO_TARGET_DIR
#   STORE=memory         or `embedded`: the service on its own TLS PostgreSQL cluster (pool at its
#                        default size); then pgbench -S (select-only, prepared, same client count)
#                        runs against that cluster too, for the store-backed comparison
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DURATION="${DURATION:-15}"
WARMUP="${WARMUP:-3}"
THREADS="${THREADS:-2}"
CONNECTIONS="${CONNECTIONS:-64}"
STORE="${STORE:-memory}"
[[ "$STORE" == memory || "$STORE" == embedded ]] || die "STORE must be memory or embedded"
CF_PORT="${CF_PORT:-18080}"
HELLO_PORT="${HELLO_PORT:-18081}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/bench-target}"

CF_BIN="$CARGO_TARGET_DIR/release/creditflow"
HELLO_BIN="$CARGO_TARGET_DIR/release/examples/hello_world"

ADMIN_EMAIL="bench-admin@example.com"
ADMIN_PASSWORD="bench-admin-password-1234"
JWT_SECRET="load-test-secret-$(random_hex)"

OUT_DIR="$(mktemp -d)"
remove_on_exit "$OUT_DIR"

run_wrk() { # name server-pid url [header]
    local name="$1" pid="$2" url="$3"
    shift 3
    local args=(-t"$THREADS" -c"$CONNECTIONS" --latency)
    if [[ $# -gt 0 ]]; then
        args+=(-H "$1")
    fi
    if [[ "$WARMUP" -gt 0 ]]; then
        log "$name: warm-up ${WARMUP}s"
        timeout $((WARMUP + 30)) wrk "${args[@]}" -d"${WARMUP}s" "$url" >/dev/null
    fi
    log "$name: wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s --latency $url"
    local before after
    before="$(cpu_ticks "$pid")"
    timeout $((DURATION + 30)) wrk "${args[@]}" -d"${DURATION}s" "$url" | tee "$OUT_DIR/$name.txt" >&2
    after="$(cpu_ticks "$pid")"
    echo $((after - before)) >"$OUT_DIR/$name.ticks"
    if grep -q 'Non-2xx or 3xx responses' "$OUT_DIR/$name.txt"; then
        die "$name: wrk saw non-2xx responses; the numbers are not valid"
    fi
}

rps() { awk '/^Requests\/sec:/ {print $2}' "$OUT_DIR/$1.txt"; }
pct() { to_ms "$(awk -v p="$2%" '$1 == p {print $2}' "$OUT_DIR/$1.txt")" 3; }
# Server CPU per request in microseconds, and the server's average CPU use in cores.
cpu_per_req() {
    awk -v t="$(cat "$OUT_DIR/$1.ticks")" -v hz="$(getconf CLK_TCK)" \
        '/ requests in / {printf "%.1f", t / hz * 1e6 / $1}' "$OUT_DIR/$1.txt"
}
cores_of() { cores "$(cat "$OUT_DIR/$1.ticks")" "$DURATION"; }

# --- tools and binaries -------------------------------------------------------------------------
need_wrk
need curl python3

build_release --bin creditflow --example hello_world
[[ -x "$CF_BIN" && -x "$HELLO_BIN" ]] || die "binaries missing in $CARGO_TARGET_DIR/release"

port_free "$CF_PORT" || die "127.0.0.1:$CF_PORT is already in use"
port_free "$HELLO_PORT" || die "127.0.0.1:$HELLO_PORT is already in use"

# --- creditflow ---------------------------------------------------------------------------------
work_dir
DATA_DIR="$WORK_DIR"
log "starting creditflow on 127.0.0.1:$CF_PORT (STORE=$STORE, DATA_DIR=$DATA_DIR)"
start_in "$DATA_DIR" "$OUT_DIR/creditflow.log" \
    env ADMIN_EMAIL="$ADMIN_EMAIL" ADMIN_PASSWORD="$ADMIN_PASSWORD" JWT_SECRET="$JWT_SECRET" \
    BIND_ADDR="127.0.0.1:$CF_PORT" DATA_DIR="$DATA_DIR" STORE="$STORE" \
    DB_SSL_AUTO_CERT_DIR="$DATA_DIR/certs" RUST_LOG=warn "$CF_BIN"
CF_PID=$!
wait_until_up "http://127.0.0.1:$CF_PORT/health/live" "$CF_PID" creditflow "$OUT_DIR/creditflow.log" 30
sleep 2
IDLE_RSS_KIB="$(rss_kib "$CF_PID")"
log "creditflow idle RSS after start-up: ${IDLE_RSS_KIB} KiB"

TOKEN="$(sign_in "http://127.0.0.1:$CF_PORT" "$ADMIN_EMAIL" "$ADMIN_PASSWORD")" || die "login failed"
AUTH_HEADER="Authorization: Bearer $TOKEN"
ME_STATUS="$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -H "$AUTH_HEADER" \
    "http://127.0.0.1:$CF_PORT/api/auth/me")"
[[ "$ME_STATUS" == 200 ]] || die "GET /api/auth/me answered $ME_STATUS, expected 200"
sleep 1
LOGGED_IN_RSS_KIB="$(rss_kib "$CF_PID")"

# --- hello world --------------------------------------------------------------------------------
log "starting hello_world on 127.0.0.1:$HELLO_PORT"
start_in "$OUT_DIR" "$OUT_DIR/hello.log" env PORT="$HELLO_PORT" "$HELLO_BIN"
HELLO_PID=$!
wait_until_up "http://127.0.0.1:$HELLO_PORT/" "$HELLO_PID" hello_world "$OUT_DIR/hello.log" 30
HELLO_IDLE_RSS_KIB="$(rss_kib "$HELLO_PID")"

# --- load ---------------------------------------------------------------------------------------
run_wrk me "$CF_PID" "http://127.0.0.1:$CF_PORT/api/auth/me" "$AUTH_HEADER"
AFTER_LOAD_RSS_KIB="$(rss_kib "$CF_PID")"
run_wrk hello "$HELLO_PID" "http://127.0.0.1:$HELLO_PORT/"

# --- pgbench -S on the service's own cluster (STORE=embedded) -----------------------------------
PGBENCH_LINE=""
if [[ "$STORE" == embedded ]]; then
    PG_PORT="$(awk -F' = ' '$1 == "port" {print $2}' "$DATA_DIR/postgres/pgdata/creditflow.conf")"
    [[ -n "$PG_PORT" ]] || die "cannot find the embedded cluster's port"
    # libpq with the service's own certificates: verify-full and mutual TLS, as the service connects.
    export PGHOST=localhost PGPORT="$PG_PORT" PGUSER=creditflow PGSSLMODE=verify-full \
        PGSSLROOTCERT="$DATA_DIR/certs/ca.crt" PGSSLCERT="$DATA_DIR/certs/client.crt" \
        PGSSLKEY="$DATA_DIR/certs/client.key"
    log "pgbench: initialising scale 10 in database pgbench on port $PG_PORT"
    psql -q -d postgres -c 'CREATE DATABASE pgbench' >/dev/null
    pgbench -q -i -s 10 pgbench >/dev/null 2>&1 || die "pgbench -i failed"
    [[ "$WARMUP" -gt 0 ]] && pgbench -S -M prepared -c "$CONNECTIONS" -j "$THREADS" -T "$WARMUP" pgbench >/dev/null 2>&1
    log "pgbench -S -M prepared -c $CONNECTIONS -j $THREADS -T $DURATION"
    pgbench -S -M prepared -c "$CONNECTIONS" -j "$THREADS" -T "$DURATION" pgbench >"$OUT_DIR/pgbench.txt" 2>&1 ||
        die "pgbench failed: $(tail -3 "$OUT_DIR/pgbench.txt")"
    PGBENCH_TPS="$(awk '/^tps = / {print $3}' "$OUT_DIR/pgbench.txt")"
    PGBENCH_LAT="$(awk '/^latency average = / {print $4}' "$OUT_DIR/pgbench.txt")"
    PGBENCH_LINE="pgbench -S (same cluster, TLS 1.3 + client cert, -c $CONNECTIONS): $PGBENCH_TPS tps, latency average $PGBENCH_LAT ms; /me is $(awk -v a="$(rps me)" -v b="$PGBENCH_TPS" 'BEGIN { printf "%.1f", 100 * a / b }') % of it"
fi

kill -0 "$CF_PID" 2>/dev/null || die "creditflow died during the run"
kill -0 "$HELLO_PID" 2>/dev/null || die "hello_world died during the run"

ME_RPS="$(rps me)"
HELLO_RPS="$(rps hello)"
RATIO="$(awk -v a="$ME_RPS" -v b="$HELLO_RPS" 'BEGIN { printf "%.1f", 100 * a / b }')"
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

cat <<EOF

=== results (STORE=$STORE, $(nproc) CPUs, wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, client and servers on one machine) ===
GET /api/auth/me (creditflow, bearer token): $ME_RPS req/s   p50 $(pct me 50) ms   p90 $(pct me 90) ms   p99 $(pct me 99) ms
GET / (warp hello world):                    $HELLO_RPS req/s   p50 $(pct hello 50) ms   p90 $(pct hello 90) ms   p99 $(pct hello 99) ms
ratio authenticated / hello world:           ${RATIO} %
server CPU per request: creditflow $(cpu_per_req me) µs ($(cores_of me) cores busy), hello world $(cpu_per_req hello) µs ($(cores_of hello) cores busy)
creditflow RSS: idle after start-up $(mib "$IDLE_RSS_KIB") MiB, after login $(mib "$LOGGED_IN_RSS_KIB") MiB, after the load $(mib "$AFTER_LOAD_RSS_KIB") MiB
hello_world RSS idle: $(mib "$HELLO_IDLE_RSS_KIB") MiB
${PGBENCH_LINE}
EOF
