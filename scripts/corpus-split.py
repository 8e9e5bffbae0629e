#!/usr/bin/env python3
"""Draws the held-out part of the real-filing corpus: a seeded random draw, by borrower, among the
documents that arrive in `tests/corpus/incoming/` (labelled by readers who wrote no extraction rule),
until the held-out part holds a third of the whole corpus. The drawn documents move to
`tests/corpus/heldout/` (measured only, never read while writing rules); the others join the
development part in `tests/corpus/edgar/`.

A borrower's documents stay together (two near-identical agreements of one borrower, one in each
part, would let the held-out part be tuned through its twin). The draw depends only on the seed and
the sorted list of incoming documents, so anyone can repeat it:

    scripts/corpus-split.py --seed 20261127            # prints the draw
    scripts/corpus-split.py --seed 20261127 --move     # and moves the files

`--seen ID` (repeatable) names an incoming document that someone who writes extraction rules has
read part of: it is never drawn into the held-out part (it goes to development), and its borrower's
other documents with it.
"""
import argparse
import json
import pathlib
import random
import shutil

ROOT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "corpus"


def documents(folder):
    """id -> (borrower group, the document's files) for every labels file in `folder`."""
    found = {}
    for labels_path in sorted(folder.glob("*.labels.json")):
        labels = json.loads(labels_path.read_text())
        files = [labels_path, folder / labels["file"]]
        for twin in ("pdf", "docx"):
            twin_file = (labels.get(twin) or {}).get("file")
            if twin_file:
                files.append(folder / twin_file)
        found[labels["id"]] = (labels["borrower_group"], files)
    return found


def group_key(borrower_group):
    """The borrower a group names: its first words, lower case, without punctuation."""
    words = "".join(c if c.isalnum() else " " for c in borrower_group.lower()).split()
    return " ".join(words[:2])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--move", action="store_true")
    parser.add_argument("--seen", action="append", default=[], help="an incoming id a rule writer has read")
    args = parser.parse_args()
    development = documents(ROOT / "edgar")
    incoming = documents(ROOT / "incoming")
    heldout_now = documents(ROOT / "heldout") if (ROOT / "heldout").is_dir() else {}
    total = len(development) + len(incoming) + len(heldout_now)
    wanted = -(-total // 3) - len(heldout_now)  # a third of the whole corpus, rounded up
    groups = {}
    unknown = [doc_id for doc_id in args.seen if doc_id not in incoming]
    if unknown:
        parser.error(f"--seen names documents not in incoming/: {', '.join(unknown)}")
    seen_groups = {group_key(incoming[doc_id][0]) for doc_id in args.seen}
    for doc_id, (borrower, _) in incoming.items():
        if group_key(borrower) not in seen_groups:
            groups.setdefault(group_key(borrower), []).append(doc_id)
    order = sorted(groups)
    random.Random(args.seed).shuffle(order)
    drawn = []
    for key in order:
        if len(drawn) >= wanted:
            break
        drawn.extend(sorted(groups[key]))
    print(f"corpus: {total} documents ({len(development)} development, {len(incoming)} incoming, "
          f"{len(heldout_now)} held out already); drawing {wanted} with seed {args.seed}"
          + (f"; seen by a rule writer, so development: {', '.join(sorted(args.seen))}" if args.seen else ""))
    for doc_id in sorted(incoming):
        print(f"  {'HELD OUT ' if doc_id in drawn else 'development'}  {doc_id}")
    if not args.move:
        return
    (ROOT / "heldout").mkdir(exist_ok=True)
    for doc_id, (_, files) in incoming.items():
        target = ROOT / ("heldout" if doc_id in drawn else "edgar")
        for path in files:
            shutil.move(str(path), str(target / path.name))


if __name__ == "__main__":
    main()
