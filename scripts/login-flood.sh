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
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FLOOD_REQUESTS="${FLOOD_REQUESTS:-600}"
CONCURRENCY="${CONCURRENCY:-150}"
CF_PORT="${CF_PORT:-18090}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/bench-target}"
ADMIN_EMAIL="flood-owner@example.com"
ADMIN_PASSWORD="flood-owner-password-1234"
DATA_DIR="$(mktemp -d)"
remove_on_exit "$DATA_DIR"

build_release --bin creditflow --example login_flood

env STORE=memory DATA_DIR="$DATA_DIR" BIND_ADDR="127.0.0.1:$CF_PORT" TRUSTED_PROXIES=127.0.0.1 \
    ADMIN_EMAIL="$ADMIN_EMAIL" ADMIN_PASSWORD="$ADMIN_PASSWORD" RUST_LOG=warn \
    JWT_SECRET="login-flood-secret-$(random_hex)" \
    ${PASSWORD_HASH_QUEUE:+PASSWORD_HASH_QUEUE=$PASSWORD_HASH_QUEUE} \
    "$CARGO_TARGET_DIR/release/creditflow" >"$DATA_DIR/service.log" 2>&1 &
CF_PID=$!
stop_on_exit "$CF_PID"
wait_until_up "http://127.0.0.1:$CF_PORT/health/live" "$CF_PID" "the service" "$DATA_DIR/service.log" 30

"$CARGO_TARGET_DIR/release/examples/login_flood" "http://127.0.0.1:$CF_PORT" \
    "$ADMIN_EMAIL" "$ADMIN_PASSWORD" "$FLOOD_REQUESTS" "$CONCURRENCY"
echo "service warnings logged: $(grep -c WARN "$DATA_DIR/service.log" || true)"
