#!/usr/bin/env bash
# Makes the Word (DOCX) twin of corpus HTML documents: <id>.docx beside <id>.htm, saved by
# LibreOffice Writer as Word would save the page it opened, and prints each twin's sha256 and size
# (what the labels' `docx` entry records). docs/BENCHMARKS.md ("DOCX twins") says why LibreOffice
# and not pandoc.
#
#   scripts/make-docx-twin.sh [--label] ID...                      # in tests/corpus/edgar
#   CORPUS_DIR=tests/corpus/heldout scripts/make-docx-twin.sh [--label] ID...
#
# --label also writes the twin's `docx` entry (file, sha256, bytes, made_by) into <id>.labels.json,
# touching nothing else in it and printing nothing of it (the held-out labels are not to be read).
#
# The HTML is handed to LibreOffice as browsers read it: decoded as UTF-8, else windows-1252 (as
# scripts/corpus-check.py does), with character references &#128;-&#159; taken as windows-1252
# (“ ” ’ —: browsers show them so, LibreOffice would drop them) and every non-ASCII character
# written as a numeric reference, so that no encoding guess is left to LibreOffice.
#
# Deterministic: LibreOffice's package differs between runs only in its ZIP entries' times, so the
# package is rewritten with every entry dated 1980-01-01 (same entries, same order, deflated); a
# linked picture the HTML names (EDGAR's .jpg files are not in the corpus) is linked by its bare
# file name, as in the HTML, not by the absolute path of the copy LibreOffice read.
#
# Needs LibreOffice Writer (Debian: apt-get install -y libreoffice-writer-nogui) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${CORPUS_DIR:-tests/corpus/edgar}
label=no
if [ "${1:-}" = --label ]; then label=yes; shift; fi
[ $# -gt 0 ] || { echo "usage: $0 [--label] ID..." >&2; exit 2; }
tools="$(soffice --version | head -1), Debian package libreoffice-writer-nogui $(dpkg-query -W -f '${Version}' libreoffice-writer-nogui 2>/dev/null || echo '?'), Python $(python3 -c 'import platform, zlib; print(platform.python_version(), "with zlib", zlib.ZLIB_RUNTIME_VERSION)')"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/html" "$work/docx" "$work/profile"
for id in "$@"; do
  src="$dir/$id.htm"
  [ -f "$src" ] || { echo "$src: no such document" >&2; exit 2; }
  python3 - "$src" "$work/html/$id.htm" <<'PY'
import pathlib, re, sys
raw = pathlib.Path(sys.argv[1]).read_bytes()
try:
    text = raw.decode("utf-8")
except UnicodeDecodeError:
    text = raw.decode("cp1252", errors="replace")

def c1(match):
    body = match.group(1)
    n = int(body[1:], 16) if body[:1] in "xX" else int(body)
    if 0x80 <= n <= 0x9F:
        decoded = bytes([n]).decode("cp1252", errors="ignore")
        return f"&#{ord(decoded)};" if decoded else ""
    return match.group(0)

text = re.sub(r"&#([xX][0-9a-fA-F]+|[0-9]+);", c1, text)
pathlib.Path(sys.argv[2]).write_bytes(text.encode("ascii", errors="xmlcharrefreplace"))
PY
done
soffice --headless --norestore "-env:UserInstallation=file://$work/profile" \
  --infilter="HTML (StarWriter)" --convert-to 'docx:MS Word 2007 XML' --outdir "$work/docx" \
  "$work"/html/*.htm >"$work/soffice.log" 2>&1 || { cat "$work/soffice.log" >&2; exit 1; }
for id in "$@"; do
  made="$work/docx/$id.docx"
  [ -f "$made" ] || { echo "$id: LibreOffice made no DOCX" >&2; cat "$work/soffice.log" >&2; exit 1; }
  python3 - "$made" "$dir/$id.docx" "file://$work/html/" <<'PY'
import sys, zipfile
made, out, prefix = sys.argv[1], sys.argv[2], sys.argv[3]
with zipfile.ZipFile(made) as source, zipfile.ZipFile(out, "w") as target:
    for entry in source.infolist():
        data = source.read(entry.filename)
        if entry.filename.endswith(".rels"):
            data = data.replace(prefix.encode(), b"")
        info = zipfile.ZipInfo(entry.filename, date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.create_system = 3
        info.external_attr = 0o644 << 16
        target.writestr(info, data, compresslevel=9)
PY
  echo "$dir/$id.docx: sha256 $(sha256sum "$dir/$id.docx" | cut -d' ' -f1) bytes $(stat -c %s "$dir/$id.docx")"
  if [ $label = yes ]; then
    command="scripts/make-docx-twin.sh --label $id"
    [ "$dir" = tests/corpus/edgar ] || command="CORPUS_DIR=$dir $command"
    python3 - "$dir" "$id" "$command" "$tools" <<'PY'
import hashlib, json, pathlib, sys
folder, ident, command, tools = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
docx = (folder / f"{ident}.docx").read_bytes()
entry = {
    "file": f"{ident}.docx",
    "sha256": hashlib.sha256(docx).hexdigest(),
    "bytes": len(docx),
    "made_by": f"{command}  [{tools}; LibreOffice Writer opens the HTML with its filter 'HTML (StarWriter)' "
    "and saves it as 'MS Word 2007 XML'; the package's entries are re-dated, so a re-run gives the same bytes]",
}
path = folder / f"{ident}.labels.json"
raw = path.read_text(encoding="utf-8")
labels = json.loads(raw)
if labels.get("file") != f"{ident}.htm":
    sys.exit(f"{path}: its document is not {ident}.htm")
if json.dumps(labels, indent=2, ensure_ascii=False) + "\n" == raw:
    labels["docx"] = entry
    text = json.dumps(labels, indent=2, ensure_ascii=False) + "\n"
elif "docx" not in labels:
    # Laid out by hand: the entry goes in before the closing brace, the rest stays as it is.
    body = raw.rstrip()
    if not body.endswith("}"):
        sys.exit(f"{path}: does not end with its object's closing brace")
    block = json.dumps({"docx": entry}, indent=2, ensure_ascii=False)[1:-1].strip()
    text = body[:-1].rstrip() + ",\n  " + block + "\n}\n"
    labels["docx"] = entry
else:
    sys.exit(f"{path}: already has a docx entry and is laid out by hand: replace it there")
if json.loads(text) != labels:
    sys.exit(f"{path}: writing the entry would change other fields")
path.write_text(text, encoding="utf-8")
PY
  fi
done
