#!/usr/bin/env bash
# End-to-end intake timing: the release service (default store: its embedded PostgreSQL) is
# started, the administrator signs in, and each FILE is sent RUNS times as a multipart upload to
# POST /api/documents and to POST /api/extract. Prints curl's total time per request, the HTTP
# status, the pages the service read, and the service's RSS: before, its peak (VmHWM) after all
# requests, and the highest RSS of the service and of its reader workers seen while polling
# every 20 ms during the requests.
#
#   scripts/intake-e2e.sh FILE...          # e.g. target/long/acco-2005-ca.pdf
#   RUNS=5 CF_PORT=18090 STORE=embedded scripts/intake-e2e.sh FILE...
#
# Needs the release binary: cargo build --release (CARGO_TARGET_DIR honoured), curl, jq, python3.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS="${RUNS:-5}"
CF_PORT="${CF_PORT:-18090}"
STORE="${STORE:-embedded}"
CF_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/creditflow"
ADMIN_EMAIL="intake-admin@example.com"
ADMIN_PASSWORD="intake-admin-password-1234"
BASE="http://127.0.0.1:$CF_PORT"
[[ -x "$CF_BIN" ]] || die "$CF_BIN missing (cargo build --release)"
[[ $# -gt 0 ]] || { echo "usage: intake-e2e.sh FILE..." >&2; exit 2; }

files=()
for f in "$@"; do files+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"); done

work_dir
DATA_DIR="$WORK_DIR"
start_in "$DATA_DIR" "$DATA_DIR/service.log" \
    env ADMIN_EMAIL="$ADMIN_EMAIL" ADMIN_PASSWORD="$ADMIN_PASSWORD" BIND_ADDR="127.0.0.1:$CF_PORT" \
    DATA_DIR="$DATA_DIR" STORE="$STORE" DB_SSL_AUTO_CERT_DIR="$DATA_DIR/certs" RUST_LOG=warn "$CF_BIN"
CF_PID=$!
wait_until_up "$BASE/openapi.json" "$CF_PID" "the service" "$DATA_DIR/service.log"
ACCESS=$(sign_in "$BASE" "$ADMIN_EMAIL" "$ADMIN_PASSWORD")
kib() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/status" 2>/dev/null || true; }
grep -i "in-memory\|falling back\|fall back" "$DATA_DIR/service.log" | head -3 >&2 || true
echo "service pid $CF_PID, store $STORE, RSS after start ${RSS:=$(kib "$CF_PID" VmRSS)} KiB"

# Highest RSS of the service and of any reader worker (a child named creditflow), every 20 ms.
(
    svc=0 worker=0
    trap 'echo "$svc $worker" > "$DATA_DIR/peaks"; exit 0' TERM
    while true; do
        r=$(kib "$CF_PID" VmRSS); [[ -n "$r" && "$r" -gt "$svc" ]] && svc=$r
        for c in $(pgrep -P "$CF_PID" -x creditflow || true); do
            r=$(kib "$c" VmHWM); [[ -n "$r" && "$r" -gt "$worker" ]] && worker=$r
        done
        sleep 0.02
    done
) &
POLL_PID=$!
stop_on_exit "$POLL_PID"

mime() { case "$1" in *.pdf) echo application/pdf ;; *.htm | *.html) echo text/html ;; *) echo text/plain ;; esac; }
printf '%-28s %-15s %4s %6s %9s %6s\n' file endpoint run status seconds pages
for f in "${files[@]}"; do
    for endpoint in /api/documents /api/extract; do
        for run in $(seq "$RUNS"); do
            out=$(curl -s -o "$DATA_DIR/answer.json" -w '%{http_code} %{time_total}' "$BASE$endpoint" \
                -H "authorization: Bearer $ACCESS" -F "file=@$f;type=$(mime "$f")" -F "title=intake $run")
            pages=$(jq -r '[.. | objects | select(has("pages_without_text")) | .pages][0] // "-"' "$DATA_DIR/answer.json" 2>/dev/null || echo '?')
            # $out is two fields, the status and the seconds: split on purpose.
            # shellcheck disable=SC2086
            printf '%-28s %-15s %4s %6s %9s %6s\n' "$(basename "$f")" "$endpoint" "$run" ${out} "$pages"
        done
    done
done
kill -TERM "$POLL_PID"; wait "$POLL_PID" 2>/dev/null || true; POLL_PID=""
read -r svc_peak worker_peak < "$DATA_DIR/peaks"
echo "service RSS now $(kib "$CF_PID" VmRSS) KiB, peak (VmHWM) $(kib "$CF_PID" VmHWM) KiB, highest polled ${svc_peak} KiB; reader worker highest polled VmHWM ${worker_peak} KiB"
