#!/usr/bin/env bash
# Login flood: a legitimate sign-in's latency while password guesses flood the service
# (examples/login_flood.rs), on a release build with the in-memory store and the production
# argon2id parameters. TRUSTED_PROXIES=127.0.0.1 lets X-Forwarded-For stand for distinct client
# addresses on loopback.
#
# Environment (all optional): FLOOD_REQUESTS=600 CONCURRENCY=150 CF_PORT=18090
#   PASSWORD_HASH_QUEUE (the service's default when unset), CARGO_TARGET_DIR=/tmp/bench-target,
#   SKIP_BUILD=1 to reuse the binaries already built.
set -euo pipefail

FLOOD_REQUESTS="${FLOOD_REQUESTS:-600}"
CONCURRENCY="${CONCURRENCY:-150}"
CF_PORT="${CF_PORT:-18090}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/bench-target}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ADMIN_EMAIL="flood-owner@example.com"
ADMIN_PASSWORD="flood-owner-password-1234"
DATA_DIR="$(mktemp -d)"
CF_PID=""

cleanup() {
    [[ -n "$CF_PID" ]] && kill "$CF_PID" 2>/dev/null && wait "$CF_PID" 2>/dev/null
    rm -rf "$DATA_DIR"
}
trap cleanup EXIT

if [[ -z "${SKIP_BUILD:-}" ]]; then
    (cd "$ROOT" && cargo build --release --bin creditflow --example login_flood)
fi

env STORE=memory DATA_DIR="$DATA_DIR" BIND_ADDR="127.0.0.1:$CF_PORT" TRUSTED_PROXIES=127.0.0.1 \
    ADMIN_EMAIL="$ADMIN_EMAIL" ADMIN_PASSWORD="$ADMIN_PASSWORD" RUST_LOG=warn \
    JWT_SECRET="login-flood-secret-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" \
    ${PASSWORD_HASH_QUEUE:+PASSWORD_HASH_QUEUE=$PASSWORD_HASH_QUEUE} \
    "$CARGO_TARGET_DIR/release/creditflow" >"$DATA_DIR/service.log" 2>&1 &
CF_PID=$!
for _ in $(seq 150); do
    curl -sf -o /dev/null --max-time 1 "http://127.0.0.1:$CF_PORT/health/live" && break
    kill -0 "$CF_PID" 2>/dev/null || { cat "$DATA_DIR/service.log" >&2; exit 1; }
    sleep 0.2
done

"$CARGO_TARGET_DIR/release/examples/login_flood" "http://127.0.0.1:$CF_PORT" \
    "$ADMIN_EMAIL" "$ADMIN_PASSWORD" "$FLOOD_REQUESTS" "$CONCURRENCY"
echo "service warnings logged: $(grep -c WARN "$DATA_DIR/service.log" || true)"
