"""The cost of one served review (the worker's `handle`) next to the JSON parse of its body.

    python benchmarks/review_cost.py [--against REV]

For a typical 1.7 KiB claim review and a 160 KiB max-size ResourceSlice (128 devices x 32
attributes), in one run: the parse (the floor of any review), `worker.handle` (parse, review,
encode), and the parts of the slice's review side by side with what they replaced:

- the type check: the full pydantic-core validator next to the quick one (attribute maps checked
  in one loop) that `check_types` runs first;
- the served validation with the attribute maps' type check left to validation (the default) next
  to the same validation with every map type-checked first.

`--against REV` (e.g. main) prints `handle` of this tree and of REV's `webhook` package instead,
each the median of alternating processes (best of several rounds in each), and their ratio.

Ratios are of timings taken in this run, best of several rounds; nothing here is a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from _timing import best_of
from resourceslice import max_slice
from serving_load import review, typical_claim

from webhook import admit, jsonload
from webhook.api import schema_cache
from webhook.kinds import KINDS
from webhook.profile import DEFAULT
from webhook.review import decode_review
from webhook.serving import worker


def _deadline() -> float:
    return time.monotonic() + 60


def _handle(name: str, body: bytes, number: int) -> None:
    job = worker.Job("/validate", body)
    reply = worker.handle(job, _deadline)
    assert reply.status == 200 and json.loads(reply.body)["response"]["allowed"], reply.body
    parse = best_of(lambda: jsonload.loads(body), number=number)
    handle = best_of(lambda: worker.handle(job, _deadline), number=number)
    print(f"{name:<6} {len(body):>7} B   parse {parse * 1e6:9.1f} us   handle {handle * 1e6:9.1f} us   "
          f"handle/parse {handle / parse:5.1f}x")


def _slice_parts(body: bytes) -> None:
    request = decode_review(jsonload.loads(body))
    obj = request.object
    ref = KINDS["ResourceSlice"].wire_model(DEFAULT)
    full, quick = schema_cache.validator(ref), schema_cache.quick_validator(ref)
    full_check = best_of(lambda: full.validate_python(obj))
    quick_check = best_of(lambda: quick.validate_python(obj))
    print(f"slice type check: full {full_check * 1e6:9.1f} us   quick {quick_check * 1e6:9.1f} us   "
          f"quick/full {quick_check / full_check:5.2f}x")

    def validate_without_deferral():
        original = admit._validate_request
        admit._validate_request = partial(original, defer_attribute_types=False)
        try:
            return admit.validate(request, profile=DEFAULT)
        finally:
            admit._validate_request = original

    assert admit.validate(request).allowed and validate_without_deferral().allowed
    checked_first = best_of(validate_without_deferral)
    deferred = best_of(lambda: admit.validate(request, profile=DEFAULT))
    print(f"slice validate:   maps type-checked first {checked_first * 1e6:9.1f} us   "
          f"left to validation {deferred * 1e6:9.1f} us   ratio {deferred / checked_first:5.2f}x")


def _handle_times() -> dict[str, float]:
    """Seconds per `handle` of the claim and the slice (this process's `webhook`, whichever tree it is)."""
    times = {}
    for name, obj, number in (("claim", typical_claim(), 500), ("slice", max_slice(), 20)):
        job = worker.Job("/validate", json.dumps(review(obj)).encode())
        worker.handle(job, _deadline)
        times[name] = best_of(lambda: worker.handle(job, _deadline), number=number)
    return times


def against(revision: str, rounds: int = 3) -> None:
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="dra-bench-review-") as old:
        archive = subprocess.run(["git", "-C", str(root), "archive", revision, "webhook"], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", old], input=archive, check=True)
        runs: dict[str, list[dict]] = {revision: [], "this tree": []}
        for _ in range(rounds):
            for label, path in ((revision, old), ("this tree", str(root))):
                out = subprocess.run([sys.executable, __file__, "--times-only"], capture_output=True, text=True,
                                     check=True, env={**os.environ, "PYTHONPATH": path}).stdout
                runs[label].append(json.loads(out.splitlines()[-1]))
    medians = {label: {name: statistics.median(run[name] for run in series) for name in ("claim", "slice")}
               for label, series in runs.items()}
    print(f"worker.handle, median of {rounds} alternating processes:")
    for name in ("claim", "slice"):
        before, after = medians[revision][name], medians["this tree"][name]
        print(f"  {name:<6} {revision} {before * 1e6:9.1f} us   this tree {after * 1e6:9.1f} us   "
              f"ratio {after / before:5.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", metavar="REV", help="handle() of this tree and of REV (e.g. main)")
    parser.add_argument("--times-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.times_only:
        print(json.dumps(_handle_times()))
        return
    if args.against:
        against(args.against)
        return
    claim = json.dumps(review(typical_claim())).encode()
    slice_body = json.dumps(review(max_slice())).encode()
    _handle("claim", claim, number=500)
    _handle("slice", slice_body, number=20)
    _slice_parts(slice_body)


if __name__ == "__main__":
    main()
