"""Differential check of the faithful CEL engine against another git revision of it: same verdicts, same costs.

    python benchmarks/cel_differential.py [--against REV] [--count N] [--seed S]

Generates N selector expressions over `device` (tests/cel_corpus.py), checks each in every environment
flavour (new/stored x list-type attributes off/on x consumable capacity on/off) with this tree and with
the `webhook` package of REV (default: main), each in its own process, and prints every difference in
outcome, detail or cost. Exit status 1 when there is one. `--emit` prints this tree's verdicts as
JSON lines (what the comparison reads).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLAVOURS = [(stored, list_type, consumable) for stored in (False, True) for list_type in (False, True)
            for consumable in (True, False) if not (stored and not consumable)]


def emit(count: int, seed: int) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from cel_corpus import expressions

    from webhook.cel.compiler import _uncached
    from webhook.cel.environment import Features

    start = time.perf_counter()
    for expression in expressions(count, seed):
        row = [expression]
        for stored, list_type, consumable in FLAVOURS:
            features = Features(consumable_capacity=consumable, list_type_attributes=list_type)
            v = _uncached(expression, stored, features)
            derived = _uncached(expression, stored, features, derived=True)
            row.append([v.outcome, v.detail, v.cost, v.warning, derived.outcome, derived.detail, derived.cost])
        print(json.dumps(row))
    print(f"{count} expressions x {len(FLAVOURS)} flavours in {time.perf_counter() - start:.1f} s", file=sys.stderr)


def run(pythonpath: str, count: int, seed: int) -> list[list]:
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "cel_differential.py"), "--emit",
                          "--count", str(count), "--seed", str(seed)], env={**os.environ, "PYTHONPATH": pythonpath},
                         capture_output=True, text=True, check=True)
    sys.stderr.write(out.stderr)
    return [json.loads(line) for line in out.stdout.splitlines()]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--against", default="main")
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--emit", action="store_true")
    args = parser.parse_args()
    if args.emit:
        emit(args.count, args.seed)
        return
    with tempfile.TemporaryDirectory(prefix="cel-differential-") as old:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.against, "webhook"], capture_output=True)
        if archive.returncode:
            print(f"cannot read revision {args.against!r} (skipped): {archive.stderr.decode().strip()}")
            return
        subprocess.run(["tar", "-x", "-C", old], input=archive.stdout, check=True)
        theirs = run(old, args.count, args.seed)
    ours = run(str(ROOT), args.count, args.seed)
    differences = 0
    for a, b in zip(theirs, ours):
        if a != b:
            differences += 1
            print(f"DIFFERENT {a[0]!r}\n  {args.against}: {a[1:]}\n  this tree: {b[1:]}")
    outcomes: dict[str, int] = {}
    for row in ours:
        for flavour in row[1:]:
            outcomes[flavour[0]] = outcomes.get(flavour[0], 0) + 1
    print(f"{len(ours)} expressions x {len(FLAVOURS)} flavours (selector + derived) against {args.against}: "
          f"{differences} different; outcomes {outcomes}")
    sys.exit(1 if differences or len(theirs) != len(ours) else 0)


if __name__ == "__main__":
    main()
