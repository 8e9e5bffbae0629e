#!/usr/bin/env bash
# Prints a real long filing to a ~300-page PDF with headless Chromium, for the intake throughput
# measurements in docs/BENCHMARKS.md ("Document intake"). The PDF is not committed (it is large);
# this regenerates it.
#
#   scripts/make-long-pdf.sh [SOURCE.txt] [OUT.pdf]
#
# Defaults: tests/corpus/edgar/acco-2005-ca.txt (ACCO Brands credit agreement, 2005, 603 KB,
# 9,953 lines) -> target/long/acco-2005-ca.pdf. The text is escaped into <pre> (14 pt Courier,
# double-spaced, US Letter, 1 in margins, long lines wrapped) with the page number printed
# in the bottom margin, so each page's text can be checked against its printed number.
# Needs chromium (Debian: apt-get install -y chromium) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:-tests/corpus/edgar/acco-2005-ca.txt}
out=${2:-target/long/$(basename "${src%.*}").pdf}
mkdir -p "$(dirname "$out")"
html=$(mktemp --suffix=.html)
trap 'rm -f "$html"' EXIT
python3 - "$src" "$html" <<'PY'
import html, pathlib, sys
text = pathlib.Path(sys.argv[1]).read_bytes().decode("utf-8", errors="replace")
page = f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{html.escape(pathlib.Path(sys.argv[1]).name)}</title>
<style>
@page {{ size: letter; margin: 1in; @bottom-center {{ content: counter(page); font: 10pt serif; }} }}
body {{ margin: 0; }}
pre {{ font: 14pt/2 "Courier New", Courier, monospace; white-space: pre-wrap; margin: 0; }}
</style></head>
<body><pre>{html.escape(text)}</pre></body></html>
"""
pathlib.Path(sys.argv[2]).write_text(page, encoding="utf-8")
PY
chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer \
  --print-to-pdf="$out" "file://$html" 2>/dev/null
pages=$(python3 -c 'import re,sys; d=open(sys.argv[1],"rb").read(); print(max(int(n) for n in re.findall(rb"/Count (\d+)", d)))' "$out")
echo "$out: $(stat -c %s "$out") bytes, $pages pages"
