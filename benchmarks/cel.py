"""CEL selector validation: cold (empty cache) and warm (cached) timings.

    python benchmarks/cel.py [--engine auto|cel-expr|cel-python]

Cases: 32 requests x 32 distinct selectors of ~300 bytes (a claim's worth each), and one request of
32 selectors of 10 KiB. Targets for the 300-byte case: cold <= 1 s, warm <= 50 ms.
"""

from __future__ import annotations

import argparse
import statistics
import time

from webhook import cel
from webhook.field import Path


def chain(size: int, seed: int) -> str:
    terms, n = [], 0
    while True:
        term = f'device.attributes["dra.example.com"].attr{n % 32} == "value-{seed}-{n}"'
        if len(" && ".join(terms + [term])) > size:
            break
        terms.append(term)
        n += 1
    return " && ".join(terms)


def run(requests: list[list[str]]) -> float:
    start = time.perf_counter()
    for request in requests:
        with cel.request_budget(30), cel.collect_warnings():
            for j, expression in enumerate(request):
                errors = cel.validate_selector(expression, Path("spec").child("selectors").index(j))
                assert not errors, errors
    return time.perf_counter() - start


def clear_cache() -> None:
    from webhook.cel import compiler, portable

    compiler.check.cache_clear() if cel.active_engine() == "cel-expr" else portable.check.cache_clear()


def measure(name: str, requests: list[list[str]], repeats: int = 3) -> None:
    colds, warms = [], []
    for _ in range(repeats):
        clear_cache()
        colds.append(run(requests))
        warms.append(run(requests))
    count = sum(len(r) for r in requests)
    size = statistics.mean(len(s) for r in requests for s in r)
    cold, warm = statistics.median(colds), statistics.median(warms)
    print(f"{name}: {len(requests)} requests x {len(requests[0])} selectors of ~{size:.0f} B")
    print(f"  cold {cold * 1000:8.1f} ms total  ({cold / count * 1000:.3f} ms/selector)")
    print(f"  warm {warm * 1000:8.1f} ms total  ({warm / count * 1000:.4f} ms/selector)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", default="auto", choices=cel.ENGINES)
    args = parser.parse_args()
    start = time.perf_counter()
    engine = cel.configure(args.engine)
    cel.validate_selector("true", Path("warmup"))  # builds the environment once per process
    print(f"engine {engine}; first use {1000 * (time.perf_counter() - start):.0f} ms")
    measure("300-byte selectors", [[chain(320, 32 * i + j) for j in range(32)] for i in range(32)])
    measure("10 KiB selectors", [[chain(10 * 1024, 5000 + j) for j in range(32)]])


if __name__ == "__main__":
    main()
