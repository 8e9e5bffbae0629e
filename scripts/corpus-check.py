#!/usr/bin/env python3
"""Checks the real-filing corpus in tests/corpus/edgar: every document's SHA-256 and size match its
labels file, and every quote of every label is in the document's text; a document's Word twin (the
labels' `docx` entry) is checked by SHA-256 and size.

The text a quote is searched in is the document read plainly: for HTML, tags dropped (block tags and
table cells become breaks), entities decoded (`&#146;` as windows-1252 does, as browsers do); then
whitespace collapsed to one space. A quote is whitespace-collapsed the same way.

    scripts/corpus-check.py [ID ...]      # all documents when no ID is given
    CORPUS_DIR=tests/corpus/heldout scripts/corpus-check.py   # another folder of the same layout
"""
import hashlib
import html
import os
import html.parser
import json
import pathlib
import re
import sys

CORPUS = pathlib.Path(
    os.environ.get("CORPUS_DIR") or pathlib.Path(__file__).resolve().parent.parent / "tests" / "corpus" / "edgar"
).resolve()
BREAKS = {"p", "div", "br", "tr", "td", "th", "li", "table", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "page"}


class Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.parts = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script", "title"):
            self.skip += 1
        if tag in BREAKS:
            self.parts.append(" ")

    def handle_endtag(self, tag):
        if tag in ("style", "script", "title") and self.skip:
            self.skip -= 1
        if tag in BREAKS:
            self.parts.append(" ")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)

    def handle_entityref(self, name):
        if not self.skip:
            self.parts.append(html.unescape(f"&{name};"))

    def handle_charref(self, name):
        if self.skip:
            return
        try:
            n = int(name[1:], 16) if name[:1] in "xX" else int(name)
        except ValueError:
            return
        if 0x80 <= n <= 0x9F:
            self.parts.append(bytes([n]).decode("cp1252", errors="replace"))
        else:
            self.parts.append(chr(n))


def collapse(s):
    return re.sub(r"\s+", " ", s.replace("\u00a0", " ")).strip()


def plain_text(path, media_type):
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("cp1252", errors="replace")
    if media_type == "text/html":
        parser = Text()
        parser.feed(text)
        text = "".join(parser.parts)
    return collapse(text)


def quotes(node, where):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "quote" and isinstance(value, str):
                yield where, value
            else:
                yield from quotes(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from quotes(value, f"{where}/{i}")


def check_twin(twin):
    """The Word twin (`docx` in the labels, made by scripts/make-docx-twin.sh) is the file its entry
    names: same SHA-256, same size. Its quotes are not searched: they are checked on the document
    the labels were written from."""
    path = CORPUS / twin.get("file", "")
    if not twin.get("file") or not path.is_file():
        return [f"docx twin {twin.get('file')!r}: missing"]
    raw = path.read_bytes()
    problems = []
    if twin.get("sha256") != hashlib.sha256(raw).hexdigest():
        problems.append(f"docx twin sha256 {hashlib.sha256(raw).hexdigest()} differs from the label's {twin.get('sha256')}")
    if twin.get("bytes") != len(raw):
        problems.append(f"docx twin size {len(raw)} differs from the label's {twin.get('bytes')}")
    return problems


def check(labels_path):
    labels = json.loads(labels_path.read_text())
    problems = []
    doc = CORPUS / labels["file"]
    if not doc.exists():
        return [f"{labels['file']}: missing"]
    raw = doc.read_bytes()
    source = labels.get("source", {})
    if source.get("sha256") != hashlib.sha256(raw).hexdigest():
        problems.append(f"sha256 {hashlib.sha256(raw).hexdigest()} differs from the label's {source.get('sha256')}")
    if source.get("bytes") != len(raw):
        problems.append(f"size {len(raw)} differs from the label's {source.get('bytes')}")
    twin = labels.get("docx")
    if twin is not None:
        problems.extend(check_twin(twin))
    text = plain_text(doc, labels["media_type"])
    count = 0
    for where, quote in quotes(labels.get("fields", {}), ""):
        count += 1
        if collapse(quote) not in text:
            problems.append(f"quote at {where} not found: {quote[:100]!r}")
    if count == 0:
        problems.append("no quotes")
    return problems


def main():
    wanted = set(sys.argv[1:])
    failed = 0
    for labels_path in sorted(CORPUS.glob("*.labels.json")):
        ident = labels_path.name.removesuffix(".labels.json")
        if wanted and ident not in wanted:
            continue
        problems = check(labels_path)
        print(f"{'FAIL' if problems else 'ok  '} {ident}")
        for p in problems:
            print(f"     {p}")
        failed += bool(problems)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
