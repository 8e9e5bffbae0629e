#!/usr/bin/env python3
"""What the engine states differently for two renderings of the same documents (an HTML filing
and its PDF or Word twin, a text filing and its print): a check of the readers that needs no
labels, so it runs on filings nobody here has read. Every stated value that differs between the
twins is printed: a value one side states and the other does not is lost by a reader (or found
by one), a value the two sides state differently is wrong on one side at least.

    cargo run --example extraction_dump -- DIR_A > a.jsonl      # e.g. the HTML files
    cargo run --example extraction_dump -- DIR_B > b.jsonl      # their twins, same file stems
    scripts/twin-diff.py a.jsonl b.jsonl

Files are paired by name without extension. Prints each document's differing values (JSON
pointer, side A, side B; `/status` is the extraction's status, shown but not counted), then the
count of values stated on one side only and of values stated differently on both sides.
"""
import json
import sys


def load(path):
    out = {}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            out[record["file"].rsplit(".", 1)[0]] = record
    return out


def flat(value, prefix=""):
    if prefix == "/parties" and isinstance(value, list):
        # Keyed by name, so that a party one side misses does not shift the others.
        return {f"/parties[{p.get('name', '').lower()}]": sorted(p.get("roles", [])) for p in value}
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in flat(item, f"{prefix}/{key}").items()}
    if isinstance(value, list):
        return {k: v for n, item in enumerate(value) for k, v in flat(item, f"{prefix}/{n}").items()}
    return {prefix: value}


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = load(sys.argv[1]), load(sys.argv[2])
    one_side = both_sides = documents = 0
    for stem in sorted(a.keys() & b.keys()):
        fa, fb = flat(a[stem].get("agreement", {})), flat(b[stem].get("agreement", {}))
        fa["/status"], fb["/status"] = a[stem].get("status"), b[stem].get("status")
        differing = [(p, fa.get(p), fb.get(p)) for p in sorted(fa.keys() | fb.keys()) if fa.get(p) != fb.get(p)]
        if not differing:
            continue
        documents += 1
        print(f"== {stem}")
        for pointer, left, right in differing:
            print(f"   {pointer}: {left!r} | {right!r}")
            if pointer == "/status":
                continue
            if left is None or right is None:
                one_side += 1
            else:
                both_sides += 1
    unpaired = sorted(a.keys() ^ b.keys())
    if unpaired:
        print(f"unpaired: {', '.join(unpaired)}")
    print(f"{documents} documents differ: {one_side} values stated on one side only, {both_sides} stated differently")
    return 0


if __name__ == "__main__":
    sys.exit(main())
