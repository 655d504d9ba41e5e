"""The verdict differential: the product against each release's registry oracle, on the project's tables, the field
corpus, the examples, the decoding corpus (every served version: nulls, timestamps, tolerations) and a generated
corpus, with the release's default gates and with every DRA gate on.

    python -m tests.upstream.differential                      # every release, 20,000 generated objects each
    python -m tests.upstream.differential --release 1.36 --count 2000 --seed 7 --show 20
    python -m tests.upstream.differential --field-validation Warn  # unknown fields as warnings, not a 400

Prints agree / disagree / listed per release, gate set, source and kind; `listed` are disagreements every facet of
which tests/upstream/known-differences.yaml explains. Exit status 1 when any disagreement is unexplained.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from . import compare, corpus, decoding, generate, oracle, product

GATE_SETS = ("default", "all")
SOURCES = ("tables", "field", "examples", "decoding", "generated")


@dataclass
class Outcome:
    release: str
    gate_set: str
    request: dict
    upstream: dict
    product: dict
    facets: list[tuple]
    listed: list[compare.Known] | None = None

    @property
    def agrees(self) -> bool:
        return not self.facets


@dataclass
class Report:
    counts: Counter = field(default_factory=Counter)  # (release, gate set, source, kind, agree|disagree|listed)
    unexplained: list[Outcome] = field(default_factory=list)
    listed: Counter = field(default_factory=Counter)  # known id -> count
    seconds: dict = field(default_factory=dict)


def requests_for(sources: tuple[str, ...], release: str, count: int, seed: int, every: int = 1) -> list[dict]:
    """The requests of `sources`; of the decoding corpus every `every`-th (a sample for `make test`)."""
    out: list[dict] = []
    if "tables" in sources:
        out.extend(corpus.tables())
    if "field" in sources:
        out.extend(corpus.field())
    if "examples" in sources:
        out.extend(corpus.examples())
    if "decoding" in sources:
        out.extend(decoding.corpus(release)[::every])
    if "generated" in sources and count:
        out.extend(generate.corpus(count, seed=seed, release=release))
    return out


def run(releases: tuple[str, ...], *, sources: tuple[str, ...] = SOURCES, count: int = 20000, seed: int = 1,
        gate_sets: tuple[str, ...] = GATE_SETS, known: list[compare.Known] | None = None,
        decoding_every: int = 1, field_validation: str = "Strict") -> Report:
    """`field_validation` is the request's fieldValidation (kube-apiserver's query parameter): "Strict" (kubectl's
    default) refuses unknown fields with a 400, "Warn" (the API server's default) names each in a warning."""
    known = compare.load_known() if known is None else known
    report = Report()
    namespaces = {**oracle.NAMESPACES, **corpus.namespaces()}
    for release in releases:
        requests = requests_for(sources, release, count, seed, decoding_every)
        for gate_set in gate_sets:
            started = time.perf_counter()
            answers = oracle.ask(release, [_wire(r, field_validation) for r in requests], gate_set=gate_set,
                                 namespaces=namespaces)
            upstream_seconds = time.perf_counter() - started
            started = time.perf_counter()
            for request, upstream in zip(requests, answers):
                ours = product.verdict(request, release, gate_set, namespaces, field_validation)
                found = compare.facets(upstream, ours)
                outcome = Outcome(release, gate_set, request, upstream, ours, found)
                key = (release, gate_set, request["source"], request["kind"])
                if outcome.agrees:
                    report.counts[key + ("agree",)] += 1
                    continue
                outcome.listed = compare.explained(outcome.facets, known, release, request["kind"], gate_set)
                if outcome.listed is None:
                    report.counts[key + ("disagree",)] += 1
                    report.unexplained.append(outcome)
                else:
                    report.counts[key + ("listed",)] += 1
                    for entry in outcome.listed:
                        report.listed[entry.id] += 1
            report.seconds[(release, gate_set)] = (upstream_seconds, time.perf_counter() - started, len(requests))
    return report


def _wire(request: dict, field_validation: str) -> dict:
    return {**{k: v for k, v in request.items() if k != "source"}, "fieldValidation": field_validation}


def print_report(report: Report, out=sys.stdout) -> None:
    rows: dict[tuple, Counter] = defaultdict(Counter)
    for (release, gate_set, source, kind, verdict), n in report.counts.items():
        rows[(release, gate_set, source, kind)][verdict] += n
    print(f"{'release':8} {'gates':8} {'source':10} {'kind':26} {'agree':>7} {'disagree':>8} {'listed':>7}", file=out)
    for key in sorted(rows):
        c = rows[key]
        print(f"{key[0]:8} {key[1]:8} {key[2]:10} {key[3]:26} {c['agree']:7} {c['disagree']:8} {c['listed']:7}",
              file=out)
    totals: dict[tuple, Counter] = defaultdict(Counter)
    for (release, gate_set, source, _kind), c in rows.items():
        totals[(release, gate_set, source)].update(c)
    print("\ntotals per release, gate set and source:", file=out)
    for key in sorted(totals):
        c = totals[key]
        print(f"  {key[0]} {key[1]:8} {key[2]:10} agree {c['agree']}, disagree {c['disagree']}, listed {c['listed']}",
              file=out)
    for (release, gate_set), (up, ours, n) in sorted(report.seconds.items()):
        print(f"  {release} {gate_set:8} {n} objects: oracle {up:.1f} s, product {ours:.1f} s", file=out)
    if report.listed:
        print("\nlisted (tests/upstream/known-differences.yaml):", file=out)
        for entry_id, n in report.listed.most_common():
            print(f"  {n:6}  {entry_id}", file=out)


def describe(outcome: Outcome) -> str:
    r = outcome.request
    lines = [f"{outcome.release} {outcome.gate_set} {r['id']} {r['kind']} {r['operation']} {r.get('subresource', '')}"]
    lines += [f"    {facet}" for facet in outcome.facets]
    if any(f[0] == "verdict" for f in outcome.facets):
        lines.append(f"    upstream: {outcome.upstream.get('message', '')[:400]}")
        lines.append(f"    product:  {outcome.product.get('message', '')[:400]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.upstream.differential", description=__doc__.split("\n")[0])
    parser.add_argument("--release", action="append", choices=oracle.RELEASES,
                        help="a release to check (repeatable; default: all four)")
    parser.add_argument("--count", type=int, default=20000, help="generated objects per release (default 20000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--source", action="append", choices=SOURCES, help="an input set (repeatable; default all)")
    parser.add_argument("--gates", action="append", choices=GATE_SETS, help="a gate set (repeatable; default both)")
    parser.add_argument("--show", type=int, default=10, help="unexplained disagreements to print (default 10)")
    parser.add_argument("--dump", help="write every unexplained disagreement as JSON lines to this file")
    parser.add_argument("--field-validation", choices=("Strict", "Warn"), default="Strict",
                        help="the requests' fieldValidation: Strict (kubectl's default; the default here) refuses "
                             "unknown fields, Warn (the API server's own default) warns of each")
    args = parser.parse_args(argv)
    releases = tuple(args.release or oracle.RELEASES)
    for release in releases:
        problem = oracle.missing(release)
        if problem:
            print(problem, file=sys.stderr)
            return 2
    report = run(releases, sources=tuple(args.source or SOURCES), count=args.count, seed=args.seed,
                 gate_sets=tuple(args.gates or GATE_SETS), field_validation=args.field_validation)
    print_report(report)
    if report.unexplained:
        print(f"\n{len(report.unexplained)} unexplained disagreements; the first {args.show}:")
        for outcome in report.unexplained[:args.show]:
            print(describe(outcome))
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as out:
            for o in report.unexplained:
                out.write(json.dumps({"release": o.release, "gates": o.gate_set, "request": o.request,
                                      "facets": o.facets, "upstream": o.upstream,
                                      "product": {k: v for k, v in o.product.items() if k != "patch"}},
                                     default=str) + "\n")
    return 1 if report.unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
