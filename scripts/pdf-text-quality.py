#!/usr/bin/env python3
"""How close the service's PDF text comes to the text of the same filing read from its HTML.

For every labelled document of tests/corpus/edgar with a printed PDF twin (`pdf.file` in its
labels), both files are read by the service's own reader (the release binary run as its worker:
`creditflow read-document MIME ...`), and compared:

* quotes: how many of the labels' quotes are found verbatim (whitespace collapsed) in the text;
  "cells as spaces" also reads every ` | ` cell separator as a space (a quote spanning table
  cells is written with spaces);
* word recall: share of the HTML text's words (split on whitespace and `|`, multiset) found in
  the PDF text; letter-spaced words ("C RED IT") and words glued together count as lost;
* stray words: PDF words that are not words of the HTML text at all (fragments such as "RED");
* rows: the HTML text's table rows (lines with a ` | ` cell separator and no empty cells)
  found as a line of the text, cells and all.

    scripts/pdf-text-quality.py [--bin PATH] [--pdftotext] [ID ...]

`--bin` defaults to $CARGO_TARGET_DIR/release/creditflow (else target/release/creditflow);
`--pdftotext` adds poppler's pdftotext (plain and -layout) as a reference, when installed.
"""
import collections
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "edgar"
LIMITS = ["26214400", "67108864", "1024", "60"]


def collapse(s):
    return re.sub(r"\s+", " ", s.replace("\u00a0", " ")).strip()


def read(binary, mime, path):
    out = subprocess.run(
        [binary, "read-document", mime, *LIMITS], stdin=open(path, "rb"), capture_output=True, check=True
    ).stdout
    answer = json.loads(out)
    if "Ok" not in answer:
        raise SystemExit(f"{path}: {answer}")
    return answer["Ok"]["text"]


def quotes(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "quote" and isinstance(value, str):
                yield value
            else:
                yield from quotes(value)
    elif isinstance(node, list):
        for value in node:
            yield from quotes(value)


def words(text):
    return [w for w in re.split(r"[\s|]+", text) if w]


def compare(reference, text, qs):
    plain = collapse(text)
    spaced = collapse(text.replace(" | ", " "))
    ref_words = collections.Counter(words(reference))
    got_words = collections.Counter(words(text))
    recall = sum(min(n, got_words[w]) for w, n in ref_words.items()) / max(1, sum(ref_words.values()))
    stray = sum(n for w, n in got_words.items() if w not in ref_words)
    lines = {collapse(line) for line in text.splitlines()}
    rows = [collapse(line) for line in reference.splitlines() if " | " in line]
    rows = [row for row in rows if all(cell.strip(" \u200b") for cell in row.split(" | "))]
    return {
        "quotes": sum(collapse(q) in plain for q in qs),
        "quotes_cells_as_spaces": sum(collapse(q) in spaced for q in qs),
        "word_recall": recall,
        "stray_words": stray,
        "words": sum(got_words.values()),
        "rows": sum(row in lines for row in rows),
        "of_rows": len(rows),
    }


def main():
    args = sys.argv[1:]
    binary = None
    use_pdftotext = False
    wanted = []
    while args:
        arg = args.pop(0)
        if arg == "--bin":
            binary = args.pop(0)
        elif arg == "--pdftotext":
            use_pdftotext = shutil.which("pdftotext") is not None
        else:
            wanted.append(arg)
    if binary is None:
        target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
        binary = str(target / "release" / "creditflow")
    rows = []
    for labels_path in sorted(CORPUS.glob("*.labels.json")):
        labels = json.loads(labels_path.read_text())
        pdf = labels.get("pdf", {}).get("file")
        if not pdf or (wanted and labels["id"] not in wanted):
            continue
        qs = list(quotes(labels.get("fields", {})))
        html_text = read(binary, "text/html", CORPUS / labels["file"])
        texts = {"html (service)": html_text, "pdf (service)": read(binary, "application/pdf", CORPUS / pdf)}
        if use_pdftotext:
            for name, flags in [("pdftotext", []), ("pdftotext -layout", ["-layout"])]:
                texts[name] = subprocess.run(
                    ["pdftotext", "-enc", "UTF-8", *flags, str(CORPUS / pdf), "-"], capture_output=True, check=True
                ).stdout.decode()
        for name, text in texts.items():
            rows.append((labels["id"], name, len(qs), compare(html_text, text, qs)))
    print(f"{'document':<28} {'text':<18} {'quotes':>8} {'cells→sp':>8} {'recall':>7} {'stray':>6} {'words':>6} {'rows':>7}")
    totals = collections.defaultdict(lambda: [0, 0, 0, 0, 0, 0.0, 0, 0])
    for ident, name, n, r in rows:
        print(
            f"{ident:<28} {name:<18} {r['quotes']:>4}/{n:<3} {r['quotes_cells_as_spaces']:>4}/{n:<3} "
            f"{r['word_recall']:>7.4f} {r['stray_words']:>6} {r['words']:>6} {r['rows']:>3}/{r['of_rows']:<3}"
        )
        t = totals[name]
        t[6] += r["rows"]
        t[7] += r["of_rows"]
        t = totals[name]
        t[0] += r["quotes"]
        t[1] += r["quotes_cells_as_spaces"]
        t[2] += n
        t[3] += r["stray_words"]
        t[4] += r["words"]
        t[5] += r["word_recall"]
    docs = len({row[0] for row in rows})
    for name, t in totals.items():
        print(
            f"{'ALL':<28} {name:<18} {t[0]:>4}/{t[2]:<3} {t[1]:>4}/{t[2]:<3} {t[5] / docs:>7.4f} {t[3]:>6} {t[4]:>6} {t[6]:>3}/{t[7]:<3}"
            "  (recall: mean over documents)"
        )


if __name__ == "__main__":
    main()
