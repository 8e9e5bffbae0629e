#!/usr/bin/env bash
# Reader floods: the outside review's attacks on the document readers, rerun against a release
# build on the in-memory store on loopback (docs/BENCHMARKS.md, "Security floods").
#
# 1. PDF attack: one analyst keeps ATTACK_STREAMS uploads of a 4,999-page PDF whose pages all run
#    one content stream in flight, back to back, for ATTACK_SECONDS; another analyst uploads a
#    small text file every 2 s meanwhile. Prints the other analyst's waits and statuses, and the
#    attacker's.
# 2. Spreadsheet bombs: BOMBS XLSX workbooks at once whose shared-string table has no uniqueCount
#    and 13 million empty strings (~64 MiB unpacked, ~150 KB packed), then CSV_BOMBS 25 MB CSV
#    files of one line of 12 million fields at once. Prints the service's RSS before, its peak
#    during, 3 s after, and the highest RSS of a reader worker.
#
# Environment (all optional): ATTACK_STREAMS=4 ATTACK_SECONDS=40 BOMBS=20 CSV_BOMBS=5 CF_PORT=18093
#   CARGO_TARGET_DIR=/tmp/bench-target, SKIP_BUILD=1 to reuse the binary already built,
#   MALLOC_MMAP_THRESHOLD_ passed to the service (glibc: buffers above it are returned on free).
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ATTACK_STREAMS="${ATTACK_STREAMS:-4}"
ATTACK_SECONDS="${ATTACK_SECONDS:-40}"
BOMBS="${BOMBS:-20}"
CSV_BOMBS="${CSV_BOMBS:-5}"
CF_PORT="${CF_PORT:-18093}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/bench-target}"
BASE="http://127.0.0.1:$CF_PORT"
ADMIN_EMAIL="reader-flood-admin@example.com"
PASSWORD="reader-flood-password-1234"
need curl python3

build_release --bin creditflow
work_dir
DIR="$WORK_DIR"

log "writing the attack files"
python3 - "$DIR" <<'PY'
import sys, zipfile
out = sys.argv[1]

# The review's PDF: 4,999 pages sharing one content stream (~788 KB).
pages, lines = 4999, 700
content = "".join(
    f"BT /F1 10 Tf 72 {720 - (i % 60) * 10} Td (Section {i}. The Borrower shall repay the Loans.) Tj ET\n"
    for i in range(lines)
).encode()
objects = {
    1: b"<< /Type /Catalog /Pages 2 0 R >>",
    3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>",
    4: b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
}
kids = []
for n in range(pages):
    number = 5 + n
    objects[number] = b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /MediaBox [0 0 612 792] >>"
    kids.append(b"%d 0 R" % number)
objects[2] = b"<< /Type /Pages /Kids [" + b" ".join(kids) + b"] /Count %d /Resources << /Font << /F1 3 0 R >> >> >>" % pages
pdf = bytearray(b"%PDF-1.5\n")
offsets = {}
for number in sorted(objects):
    offsets[number] = len(pdf)
    pdf += b"%d 0 obj\n" % number + objects[number] + b"\nendobj\n"
xref = len(pdf)
count = max(objects) + 1
pdf += b"xref\n0 %d\n0000000000 65535 f \n" % count
for number in range(1, count):
    pdf += b"%010d 00000 n \n" % offsets[number]
pdf += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (count, xref)
open(f"{out}/attack.pdf", "wb").write(pdf)

# The review's XLSX: a workbook whose shared strings have no uniqueCount, 13 million <si/>.
main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
with zipfile.ZipFile(f"{out}/bomb.xlsx", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    z.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
               '<Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
               '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>')
    z.writestr("_rels/.rels", f'<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
               f'<Relationship Id="rId1" Type="{rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>')
    z.writestr("xl/workbook.xml", f'<?xml version="1.0"?><workbook xmlns="{main}" xmlns:r="{rel}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>')
    z.writestr("xl/_rels/workbook.xml.rels", f'<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
               f'<Relationship Id="rId1" Type="{rel}/worksheet" Target="worksheets/sheet1.xml"/>'
               f'<Relationship Id="rId2" Type="{rel}/sharedStrings" Target="sharedStrings.xml"/></Relationships>')
    z.writestr("xl/worksheets/sheet1.xml", f'<?xml version="1.0"?><worksheet xmlns="{main}"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>')
    with z.open("xl/sharedStrings.xml", "w", force_zip64=True) as part:
        part.write(f'<?xml version="1.0"?><sst xmlns="{main}">'.encode())
        chunk = b"<si/>" * 100_000
        for _ in range(130):
            part.write(chunk)
        part.write(b"</sst>")

# The review's CSV: 25 MB, one line of 12 million fields.
open(f"{out}/bomb.csv", "wb").write(b"Item" + b",1" * 12_000_000 + b"\n")
open(f"{out}/plain.txt", "wb").write(b"CREDIT AGREEMENT dated as of March 1, 2024, among Borrower Co., the Lenders and Agent Bank.\n")
PY
printf 'files: attack.pdf %s bytes, bomb.xlsx %s bytes, bomb.csv %s bytes\n' \
    "$(stat -c %s "$DIR/attack.pdf")" "$(stat -c %s "$DIR/bomb.xlsx")" "$(stat -c %s "$DIR/bomb.csv")"

start_in "$DIR" "$DIR/service.log" env STORE=memory DATA_DIR="$DIR" BIND_ADDR="127.0.0.1:$CF_PORT" \
    ADMIN_EMAIL="$ADMIN_EMAIL" ADMIN_PASSWORD="$PASSWORD" JWT_SECRET="reader-flood-$(random_hex)" \
    DOCUMENT_WRITES_PER_MINUTE=1000 RATE_LIMIT_PER_MINUTE=1000 RUST_LOG=warn \
    ${MALLOC_MMAP_THRESHOLD_:+MALLOC_MMAP_THRESHOLD_=$MALLOC_MMAP_THRESHOLD_} "$CARGO_TARGET_DIR/release/creditflow"
CF_PID=$!
wait_until_up "$BASE/health/live" "$CF_PID" "the service" "$DIR/service.log" 30
ADMIN=$(sign_in "$BASE" "$ADMIN_EMAIL" "$PASSWORD")
for who in attacker other; do
    curl -sf -o /dev/null -H "authorization: Bearer $ADMIN" -H 'content-type: application/json' \
        -d "{\"email\":\"$who@example.com\",\"password\":\"$PASSWORD\",\"role\":\"analyst\"}" "$BASE/api/admin/users"
done
ATTACKER=$(sign_in "$BASE" attacker@example.com "$PASSWORD")
OTHER=$(sign_in "$BASE" other@example.com "$PASSWORD")
echo "service RSS at start: $(($(rss_kib "$CF_PID") / 1024)) MiB"

# upload TOKEN PATH FILE TYPE [FIELDS...]: prints "status seconds".
upload() {
    local token="$1" path="$2" file="$3" type="$4"
    shift 4
    local fields=()
    for field in "$@"; do fields+=(-F "$field"); done
    # A failed request prints status 000; it does not end the flood.
    curl -s -o /dev/null -w '%{http_code} %{time_total}\n' --max-time 120 -H "authorization: Bearer $token" \
        -F "file=@$file;type=$type" "${fields[@]}" "$BASE$path" || true
}

# summary FILE: "n=…, statuses …, p50 … s, max … s" of "status seconds" lines.
summary() {
    python3 - "$1" <<'PY'
import collections, statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
if not rows:
    print("n=0"); sys.exit()
times = sorted(float(t) for _, t in rows)
statuses = collections.Counter(s for s, _ in rows)
print(f"n={len(rows)}, statuses {dict(sorted(statuses.items()))}, p50 {statistics.median(times):.2f} s, max {times[-1]:.2f} s")
PY
}

log "PDF attack: $ATTACK_STREAMS uploads in flight for $ATTACK_SECONDS s; the other analyst uploads every 2 s"
end=$((SECONDS + ATTACK_SECONDS))
attackers=()
for _ in $(seq "$ATTACK_STREAMS"); do
    (while ((SECONDS < end)); do upload "$ATTACKER" /api/documents "$DIR/attack.pdf" application/pdf; done) \
        >>"$DIR/attack.txt" &
    attackers+=("$!")
done
sleep 2
while ((SECONDS < end)); do
    upload "$OTHER" /api/documents "$DIR/plain.txt" text/plain >>"$DIR/other.txt"
    sleep 2
done
# Not a bare `wait`: the service is a background job of this shell too.
wait "${attackers[@]}"
echo "PDF attack, attacker's uploads:  $(summary "$DIR/attack.txt")"
echo "PDF attack, other analyst waits: $(summary "$DIR/other.txt")"
echo "service RSS after the PDF attack: $(($(rss_kib "$CF_PID") / 1024)) MiB"
grep -m1 -o '"message":"[^"]*' <(curl -s -H "authorization: Bearer $ATTACKER" -F "file=@$DIR/attack.pdf;type=application/pdf" "$BASE/api/documents") || true

# Highest RSS of the service and of any reader worker, every 20 ms, until stopped.
peaks() {
    local svc=0 worker=0 r c
    trap 'echo "$svc $worker" > "$DIR/peaks"; exit 0' TERM
    while true; do
        r=$(rss_kib "$CF_PID" 2>/dev/null || true)
        [[ -n "$r" && "$r" -gt "$svc" ]] && svc=$r
        for c in $(pgrep -P "$CF_PID" -x creditflow || true); do
            r=$(awk '/^VmHWM:/ {print $2}' "/proc/$c/status" 2>/dev/null || true)
            [[ -n "$r" && "$r" -gt "$worker" ]] && worker=$r
        done
        sleep 0.02
    done
}

# bombs COUNT FILE TYPE NAME: COUNT uploads of FILE at once as statements; prints the RSS figures.
bombs() {
    local count="$1" file="$2" type="$3" name="$4" before after poller
    before=$(rss_kib "$CF_PID")
    peaks &
    poller=$!
    : >"$DIR/bombs.txt"
    local uploads=()
    for i in $(seq "$count"); do
        # All from one analyst, as in the review: the per-user turn reads them one by one.
        upload "$ATTACKER" /api/financial-statements "$file" "$type" \
            "borrower_name=Bomb $i" >>"$DIR/bombs.txt" &
        uploads+=("$!")
    done
    wait "${uploads[@]}"
    sleep 3
    after=$(rss_kib "$CF_PID")
    kill -TERM "$poller"
    wait "$poller" 2>/dev/null || true
    read -r peak worker <"$DIR/peaks"
    echo "$name × $count: $(summary "$DIR/bombs.txt")"
    sleep 27
    printf '  service RSS: before %d MiB, peak %d MiB, 3 s after %d MiB, 30 s after %d MiB; reader worker peak %d MiB\n' \
        $((before / 1024)) $((peak / 1024)) $((after / 1024)) $(($(rss_kib "$CF_PID") / 1024)) $((worker / 1024))
}

log "spreadsheet bombs"
bombs "$BOMBS" "$DIR/bomb.xlsx" application/vnd.openxmlformats-officedocument.spreadsheetml.sheet "XLSX shared-strings bomb"
bombs "$CSV_BOMBS" "$DIR/bomb.csv" text/csv "CSV of 12 million fields"
grep -m1 -o '"message":"[^"]*' <(curl -s -H "authorization: Bearer $OTHER" -F "file=@$DIR/bomb.xlsx;type=application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" -F "borrower_name=B" "$BASE/api/financial-statements") || true
grep -m1 -o '"message":"[^"]*' <(curl -s -H "authorization: Bearer $OTHER" -F "file=@$DIR/bomb.csv;type=text/csv" -F "borrower_name=B" "$BASE/api/financial-statements") || true
echo "service warnings logged: $(grep -c WARN "$DIR/service.log" || true)"
