"""The CEL sweep: every expression of the selector corpus (tests/cel_corpus.py) as a DeviceClass selector,
product against each release's registry oracle, with the release's default gates and with every DRA gate on.

    python -m tests.upstream.celsweep                          # 2,500 + 1,500 type joins, every release
    python -m tests.upstream.celsweep --release 1.36 --count 500 --show 20

Each expression goes to both CEL environments: a create compiles it as a new expression, an update that
keeps the selectors re-checks it as a stored one. Exit status 1 when any verdict differs (causes, codes,
warnings: the differential's comparison); false positives (refusals upstream does not give) print first.
"""

from __future__ import annotations

import argparse
import json
import sys

from . import compare, corpus, oracle, product

GATE_SETS = ("default", "all")


def device_class(expression: str, version: str = "") -> dict:
    metadata = {"name": "sweep", **({"resourceVersion": version} if version else {})}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": metadata,
            "spec": {"selectors": [{"cel": {"expression": expression}}]}}


def requests(expressions: list[str]) -> list[dict]:
    out = []
    for i, expression in enumerate(expressions):
        out.append(corpus.request(f"celsweep:{i}:new", device_class(expression)))
        out.append(corpus.request(f"celsweep:{i}:stored", device_class(expression, "1"),
                                   device_class(expression)))
    return out


def sweep(releases: tuple[str, ...], expressions: list[str], gate_sets: tuple[str, ...] = GATE_SETS) -> list[dict]:
    """Every disagreement: {release, gates, id, expression, facets, upstream, product}."""
    reqs = requests(expressions)
    wire = [{k: v for k, v in r.items() if k != "source"} for r in reqs]
    found = []
    for release in releases:
        for gate_set in gate_sets:
            answers = oracle.ask(release, wire, gate_set=gate_set)
            for request, upstream in zip(reqs, answers):
                ours = product.verdict(request, release, gate_set)
                facets = compare.facets(upstream, ours)
                if facets:
                    found.append({"release": release, "gates": gate_set, "id": request["id"],
                                  "expression": request["object"]["spec"]["selectors"][0]["cel"]["expression"],
                                  "facets": facets, "upstream": upstream,
                                  "product": {k: v for k, v in ours.items() if k != "patch"}})
    return found


def false_positive(d: dict) -> bool:
    """The product refuses (or refuses more) where upstream does not."""
    return any((f[0] == "verdict" and f[1] == 0) or (f[0] == "cause" and f[1] == "product") for f in d["facets"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.upstream.celsweep", description=__doc__.split("\n")[0])
    parser.add_argument("--release", action="append", choices=oracle.RELEASES)
    parser.add_argument("--gates", action="append", choices=GATE_SETS)
    parser.add_argument("--count", type=int, default=2500, help="corpus expressions (default 2500)")
    parser.add_argument("--seed", type=int, default=12, help="corpus seed (default 12, the tests' corpus)")
    parser.add_argument("--joins", type=int, default=1500,
                        help="type-join expressions besides (cel_corpus.joins; default 1500)")
    parser.add_argument("--expressions", help="a file of expressions, one a line, instead of the corpus")
    parser.add_argument("--show", type=int, default=10)
    parser.add_argument("--dump", help="write every disagreement as JSON lines to this file")
    args = parser.parse_args(argv)
    releases = tuple(args.release or oracle.RELEASES)
    for release in releases:
        if oracle.missing(release):
            print(oracle.missing(release), file=sys.stderr)
            return 2
    if str(corpus.TESTS) not in sys.path:
        sys.path.insert(0, str(corpus.TESTS))
    import cel_corpus

    gate_sets = tuple(args.gates or GATE_SETS)
    if args.expressions:
        with open(args.expressions, encoding="utf-8") as lines:
            expressions = [line.rstrip("\n") for line in lines if line.strip()]
    else:
        expressions = cel_corpus.expressions(args.count, seed=args.seed) + cel_corpus.joins(args.joins, seed=args.seed)
    found = sweep(releases, expressions, gate_sets)
    found.sort(key=lambda d: not false_positive(d))
    for release in releases:
        for gate_set in gate_sets:
            mine = [d for d in found if d["release"] == release and d["gates"] == gate_set]
            print(f"{release} {gate_set:8} {2 * len(expressions)} requests: {len(mine)} disagree "
                  f"({sum(map(false_positive, mine))} false positives)")
    for d in found[:args.show]:
        print(f"\n{d['release']} {d['gates']} {d['id']} {'FALSE POSITIVE ' if false_positive(d) else ''}"
              f"{d['expression']!r}")
        for facet in d["facets"]:
            print(f"    {facet[:3] if facet[0] == 'verdict' else facet}")
        print(f"    upstream: {d['upstream'].get('message', '')[:300]}")
        print(f"    product:  {d['product'].get('message', '')[:300]}")
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as out:
            for d in found:
                out.write(json.dumps(d, default=str) + "\n")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
