#!/usr/bin/env bash
# Statement-set flood: a 23 MB CSV whose 1,989 unrecognised rows each carry an 11.5 KB label (the
# review's attack on issue 33), uploaded UPLOADS times by one analyst on the in-memory store. For
# each upload: the status, the answer's size and time; then the size of a read, what the set was
# counted for in the quota (the `freed.bytes` of its deletion in the audit trail) and the service's
# RSS. The set should keep 200 rows of at most 200 characters, so a few tens of KB, not 22.5 MB.
#
# Environment (all optional): UPLOADS=5 CF_PORT=18091 CARGO_TARGET_DIR=/tmp/bench-target,
#   SKIP_BUILD=1 to reuse the binaries already built, CREDITFLOW_BIN to run another binary (a
#   debug build: the figures measured are sizes, not speed).
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need curl jq python3

UPLOADS="${UPLOADS:-5}"
CF_PORT="${CF_PORT:-18091}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/bench-target}"
BASE="http://127.0.0.1:$CF_PORT"
ADMIN_EMAIL="flood-admin@example.com"
ADMIN_PASSWORD="flood-admin-password-1234"
work_dir
DIR="$WORK_DIR"

if [[ -z "${CREDITFLOW_BIN:-}" ]]; then
    build_release --bin creditflow
    CREDITFLOW_BIN="$CARGO_TARGET_DIR/release/creditflow"
fi

python3 - "$DIR/flood.csv" <<'PY'
import sys
required = ["Revenue,1200", "Operating income,150", "Interest expense,30", "Net income,90", "Cash,80",
            "Current assets,400", "Total assets,1000", "Current liabilities,250", "Total liabilities,600",
            "Total debt,350", "Total equity,400"]
with open(sys.argv[1], "w") as out:
    out.write("Line item,FY2023\n" + "\n".join(required) + "\n")
    for row in range(2000 - 1 - len(required)):
        out.write(f"Note {row} {'z' * 11_500},{row}\n")
PY
log "CSV: $(stat -c %s "$DIR/flood.csv") bytes"

start_in "$DIR" "$DIR/service.log" env STORE=memory DATA_DIR="$DIR" BIND_ADDR="127.0.0.1:$CF_PORT" \
    ADMIN_EMAIL="$ADMIN_EMAIL" ADMIN_PASSWORD="$ADMIN_PASSWORD" RUST_LOG=warn \
    JWT_SECRET="statement-set-flood-$(random_hex)" "$CREDITFLOW_BIN"
CF_PID=$!
wait_until_up "$BASE/health/live" "$CF_PID" "the service" "$DIR/service.log" 60
rss() { awk '/^VmRSS/ {printf "%d MiB", $2 / 1024}' "/proc/$CF_PID/status"; }
TOKEN="$(sign_in "$BASE" "$ADMIN_EMAIL" "$ADMIN_PASSWORD")"
log "RSS before: $(rss)"

for upload in $(seq "$UPLOADS"); do
    curl -s -o "$DIR/created.json" -w "upload $upload: %{http_code}, answer %{size_download} bytes, %{time_total} s\n" \
        -H "authorization: Bearer $TOKEN" -F "file=@$DIR/flood.csv;type=text/csv" \
        -F borrower_name=Flood -F currency=USD "$BASE/api/financial-statements"
done
ID="$(jq -r .statement_set_id "$DIR/created.json")"
echo "kept: $(jq '.unrecognised | length' "$DIR/created.json") of $(jq .unrecognised_count "$DIR/created.json") unrecognised rows, longest label $(jq '[.unrecognised[].label | length] | max' "$DIR/created.json") characters"
curl -s -o /dev/null -w "read: %{http_code}, %{size_download} bytes\n" -H "authorization: Bearer $TOKEN" \
    "$BASE/api/financial-statements/$ID"
curl -s -o /dev/null -w "delete: %{http_code}\n" -X DELETE -H "authorization: Bearer $TOKEN" \
    "$BASE/api/financial-statements/$ID"
echo "counted in the quota (freed by the deletion): $(curl -s -H "authorization: Bearer $TOKEN" \
    "$BASE/api/admin/deletions?limit=1" | jq '.deletions[0].freed.bytes') bytes"
echo "RSS after: $(rss)"
