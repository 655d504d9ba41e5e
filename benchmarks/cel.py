"""CEL selector validation against the bare compiler, side by side in one run; cache memory.

    python benchmarks/cel.py [--rounds 5] [--against REV]

Cases: one claim's worth of 32 requests x 32 distinct selectors of ~300 bytes (1,024 selectors), and
32 distinct selectors of 10 KiB. For each: the bare `cel_expr_python` compile of every selector in
the same environment and our full check cold (empty cache), timed selector by selector one after
the other, so machine noise hits both alike; then the full check warm. Medians of the rounds are
reported. Target: full check cold <= 1.5x bare.
Then the memory of one cached verdict (tracemalloc) and whether DeviceClass selectors stay cached
through a flood of one-off claim selectors. `--against REV` prints only the cold ratios, of this
tree and of another revision side by side, measured in alternating processes.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path as FilePath

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


def full(expressions: list[str], per_request: int = 32, pinned: bool = False) -> float:
    start = time.perf_counter()
    for first in range(0, len(expressions), per_request):
        with cel.request_budget(30), cel.collect_warnings():  # one AdmissionReview's worth
            for j, expression in enumerate(expressions[first:first + per_request]):
                errors = cel.validate_cel_selector(expression, Path("spec").child("selectors").index(j), pinned=pinned)
                assert not errors, errors
    return time.perf_counter() - start


def bare_and_cold(expressions: list[str]) -> tuple[float, float]:
    """Sums of the bare compile and of our cold check, timed selector by selector, alternately first."""
    from webhook.cel.environment import get_environment

    env = get_environment(False).env
    path = Path("spec").child("selectors").index(0)
    clock = time.perf_counter
    bare_total = full_total = 0.0
    with cel.request_budget(30), cel.collect_warnings():
        for i, expression in enumerate(expressions):
            for step in ((0, 1) if i % 2 else (1, 0)):
                start = clock()
                if step:
                    env.compile(expression)
                    bare_total += clock() - start
                else:
                    assert not cel.validate_cel_selector(expression, path)
                    full_total += clock() - start
    return bare_total, full_total


def side_by_side(name: str, expressions: list[str], rounds: int) -> list[float]:
    bares, colds, warms = [], [], []
    for _ in range(rounds):
        cel.clear_cache()
        b, c = bare_and_cold(expressions)
        bares.append(b)
        colds.append(c)
        warms.append(full(expressions))
    b, c, w = (statistics.median(x) for x in (bares, colds, warms))
    ratios = sorted(c / b for b, c in zip(bares, colds))
    size = statistics.mean(len(e) for e in expressions)
    print(f"{name}: {len(expressions)} distinct selectors of ~{size:.0f} B, median of {rounds} rounds")
    print(f"  bare compile  {b * 1000:8.1f} ms  ({b / len(expressions) * 1e6:7.1f} us/selector)")
    print(f"  full cold     {c * 1000:8.1f} ms  ({c / len(expressions) * 1e6:7.1f} us/selector)  "
          f"ratio {statistics.median(ratios):.2f}x bare (rounds {ratios[0]:.2f}..{ratios[-1]:.2f})")
    print(f"  full warm     {w * 1000:8.1f} ms  ({w / len(expressions) * 1e6:7.1f} us/selector)  "
          f"ratio {w / b:.3f}x bare")
    return ratios


def against(revision: str, rounds: int) -> None:
    """Cold ratios of this tree and of `revision`'s `webhook` package, in alternating processes."""
    root = FilePath(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="dra-bench-cel-") as old:
        archive = subprocess.run(["git", "-C", str(root), "archive", revision, "webhook"], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", old], input=archive, check=True)
        ratios: dict[str, list[list[float]]] = {revision: [[], []], "this tree": [[], []]}
        for _ in range(rounds):
            for label, path in ((revision, old), ("this tree", str(root))):
                out = subprocess.run([sys.executable, __file__, "--ratios-only"], capture_output=True, text=True,
                                     check=True, env={**os.environ, "PYTHONPATH": path}).stdout
                for series, ratio in zip(ratios[label], json.loads(out.splitlines()[-1])):
                    series.append(ratio)
    print(f"full cold / bare compile, median of {rounds} alternating processes (each the median of 3 rounds):")
    for label, (small, large) in ratios.items():
        print(f"  {label:>10}: 300-byte selectors {statistics.median(small):.2f}x "
              f"({min(small):.2f}..{max(small):.2f}), 10 KiB selectors {statistics.median(large):.2f}x "
              f"({min(large):.2f}..{max(large):.2f})")


def memory_per_entry(name: str, expressions: list[str]) -> None:
    from webhook.cel import cache, compiler

    cel.clear_cache()
    # The same work once before measuring fills the interpreter's free lists and our bounded memo
    # tables, which tracemalloc would otherwise count as if each cached entry held them.
    full([e.replace("value-", "warm-") for e in expressions])
    cel.clear_cache()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    copies = [e.encode().decode() for e in expressions]  # strings only the cache keeps once the request is done
    full(copies)
    del copies
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    count = compiler.CACHE.stats()["general_entries"]
    per_entry = (after - before) / count
    text = statistics.mean(sys.getsizeof(e) for e in expressions)
    charged = compiler.CACHE.stats()["general_bytes"] / count
    print(f"  memory per cached entry ({name}): {per_entry:.0f} B measured = expression {text:.0f} B + "
          f"{per_entry - text:.0f} B overhead; charged {charged:.0f} B (overhead {cache.ENTRY_OVERHEAD} B)")
    ceiling = (cache.GENERAL_BYTES + cache.PINNED_BYTES) * per_entry / charged
    print(f"  cache ceiling: budget {(cache.GENERAL_BYTES + cache.PINNED_BYTES) >> 20} MiB charged, "
          f"~{ceiling / (1 << 20):.1f} MiB real at this entry size")


def flood(classes: list[str], one_offs: list[str]) -> None:
    from webhook.cel import compiler

    cel.clear_cache()
    full(classes, pinned=True)
    warm_before = full(classes, pinned=True)
    start = time.perf_counter()
    full(one_offs)
    spent = time.perf_counter() - start
    warm_after = full(classes, pinned=True)
    stats = compiler.CACHE.stats()
    print(f"flood: {len(one_offs)} one-off claim selectors in {spent:.2f} s; {len(classes)} DeviceClass selectors "
          f"warm before {warm_before * 1e3:.2f} ms, after {warm_after * 1e3:.2f} ms; cache {stats}")


def claim_review(expressions: list[str]) -> bytes:
    requests = [{"name": f"r{i}", "exactly": {"deviceClassName": "gpus", "allocationMode": "ExactCount", "count": 1,
                                              "selectors": [{"cel": {"expression": e}}
                                                            for e in expressions[32 * i:32 * i + 32]]}}
                for i in range(len(expressions) // 32)]
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "big", "namespace": "default"}, "spec": {"devices": {"requests": requests}}}
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                       "request": {"uid": "bench", "operation": "CREATE", "object": claim,
                                   "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceClaim"}}}
                      ).encode()


def served(expressions: list[str], rounds: int) -> None:
    """The 32x32 claim over HTTPS: cold (a fresh server process) and warm (the same request again)."""
    import httpx

    from webhook import certs

    files = certs.generate(FilePath(tempfile.mkdtemp(prefix="dra-bench-cel-")))
    context = ssl.create_default_context(cafile=str(files.ca_cert))
    body, headers = claim_review(expressions), {"content-type": "application/json"}
    colds, warms = [], []
    for _ in range(rounds):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        root = str(FilePath(__file__).resolve().parent.parent)
        proc = subprocess.Popen([sys.executable, "-m", "webhook", "serve", "--host", "127.0.0.1", "--port", str(port),
                                 "--cert-file", str(files.cert), "--key-file", str(files.key), "--log-level",
                                 "warning"], env={**os.environ, "PYTHONPATH": root},
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            with httpx.Client(verify=context, timeout=60) as client:
                url = f"https://127.0.0.1:{port}"
                for _ in range(300):
                    try:
                        client.get(url + "/healthz")
                        break
                    except httpx.TransportError:
                        time.sleep(0.1)
                for times in (colds, warms):
                    start = time.perf_counter()
                    reply = client.post(url + "/validate", content=body, headers=headers).json()["response"]
                    times.append(time.perf_counter() - start)
                    assert reply["allowed"], reply.get("status")
        finally:
            proc.terminate()
            proc.wait()
    print(f"served over HTTPS, 32x32 claim ({len(body)} B), median of {rounds} fresh servers: "
          f"cold {statistics.median(colds) * 1e3:.0f} ms, warm {statistics.median(warms) * 1e3:.1f} ms, allowed")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--against", metavar="REV", help="only the cold ratios, of this tree and of REV (e.g. main)")
    parser.add_argument("--ratios-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.against:
        against(args.against, args.rounds)
        return
    start = time.perf_counter()
    engine = cel.configure("cel-expr")
    cel.validate_cel_selector("true", Path("warmup"))  # builds the environment once per process
    print(f"engine {engine}; first use {1000 * (time.perf_counter() - start):.0f} ms")
    small = [chain(320, seed) for seed in range(1024)]
    large = [chain(10 * 1024, 5000 + seed) for seed in range(32)]
    if args.ratios_only:  # one line of JSON last: the median cold ratios (used by --against)
        medians = [statistics.median(side_by_side(name, cases, 3)) for name, cases in (("small", small),
                                                                                      ("large", large))]
        print(json.dumps(medians))
        return
    side_by_side("300-byte selectors (32 requests x 32)", small, args.rounds)
    side_by_side("10 KiB selectors", large, args.rounds)
    served(small, 3)
    memory_per_entry("300 B", small)
    memory_per_entry("10 KiB", [chain(10 * 1024, 7000 + seed) for seed in range(128)])
    flood([chain(200, 90_000 + seed) for seed in range(32)], [chain(320, 100_000 + seed) for seed in range(5000)])


if __name__ == "__main__":
    main()
