"""Offline numbers, each measured side by side in this one run (ratios, not absolute times, are the claims).

1. YAML parsers on 2,000 typical objects: ours (libyaml composer + goyaml.v2 scalars) next to PyYAML's
   CSafeLoader and json.loads of the same objects.
2. `dra-webhook review` of 500 typical objects (8-device slices, one-selector claims) next to
   `kubernetes-validate` (schema only) on the same file, end to end (target: >= 25x faster); `-j 1`
   beside it shows what cutting the input into one forked part per CPU adds.
3. `dra-webhook review` of one small file, wall time (target: <= 0.4 s on an idle 2-core machine).
4. `-j 1` next to `-j 2` on 2,000 maximum-size slices: same output, speed-up (target: >= 1.6x on 2
   idle cores), peak RSS of the main process and of the largest worker.
5. Cause positions: reviewing 500 typical objects, every one denied (the worst case: an allowed object
   has no cause to place and costs nothing), next to the part of it spent finding where each cause's
   field is written (composing the document again, walking the path).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _offline_data import max_slice, typical, write  # noqa: E402
from _timing import best_of  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NOW = "2026-01-01T00:00:00Z"
# Runs `dra-webhook ARGS` in-process and reports peak RSS (KiB) of itself (VmHWM: getrusage's maxrss would
# include the benchmark's own memory from before exec) and of its largest worker.
_RSS = ("import resource, sys\nfrom webhook.cli import main\ncode = main(sys.argv[1:])\n"
        "hwm = next(line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM'))\n"
        "print(hwm, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\nsys.exit(code)")


def wall(command: list[str], rounds: int) -> tuple[float, subprocess.CompletedProcess]:
    best, result = float("inf"), None
    for _ in range(rounds):
        start = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
        best = min(best, time.perf_counter() - start)
    return best, result


def review(*args: str) -> list[str]:
    return [sys.executable, "-m", "webhook", "review", "--now", NOW, *args]


def parsers(directory: Path) -> None:
    from webhook.offline import yamlload

    text = write(directory / "typical-2000.yaml", typical(2000)).read_text()
    as_json = json.dumps(typical(2000))
    ours = best_of(lambda: yamlload.load_all(text), rounds=3, number=1)
    safe = best_of(lambda: list(yaml.load_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))),
                   rounds=3, number=1)
    plain_json = best_of(lambda: json.loads(as_json), rounds=3, number=1)
    print("1. parsing 2,000 typical objects")
    print(f"   ours (libyaml + goyaml.v2 scalars) {ours:8.3f} s")
    print(f"   PyYAML CSafeLoader (YAML 1.1 with base-60, no y/n) {safe:8.3f} s  -> ours {safe / ours:.2f}x faster")
    print(f"   json.loads of the same objects     {plain_json:8.3f} s  (JSON input takes this path)")
    # Also measured while choosing (not dependencies, so not here): yaml_rs is 5x faster but resolves YAML 1.2
    # scalars (yes/on stay strings, 0755 is 755); rapidyaml parses 10x faster, but building Python objects
    # from its tree call by call costs as much as libyaml's composer.


def versus_kubernetes_validate(directory: Path) -> None:
    path = write(directory / "typical-500.yaml", typical(500))
    ours, result = wall(review(str(path)), rounds=5)
    assert result.returncode == 0, result.stdout[-2000:]
    one, single = wall(review("-j", "1", str(path)), rounds=5)
    assert single.stdout == result.stdout, "-j 1 and the default must say the same"
    peer = Path(sys.executable).parent / "kubernetes-validate"
    theirs, other = wall([str(peer), "--quiet", "-k", "1.36", str(path)], rounds=1)
    print(f"2. 500 typical objects ({path.stat().st_size // 1024} KiB), end to end, {os.cpu_count()} CPUs")
    print(f"   dra-webhook review   {ours:8.3f} s (default: one part per CPU, each in a forked process)")
    print(f"   ... with -j 1        {one:8.3f} s (one process)")
    print(f"   kubernetes-validate  {theirs:8.3f} s (exit {other.returncode})")
    print(f"   ratio                {theirs / ours:8.1f}x (target >= 25x; with -j 1: {theirs / one:.1f}x)")


def small_file() -> None:
    seconds, result = wall(review("examples/gpu-driver/deviceclasses.yaml"), rounds=5)
    assert result.returncode == 0, result.stdout
    interpreter, _ = wall([sys.executable, "-c", "pass"], rounds=5)
    print("3. one small file (3 DeviceClasses with CEL selectors)")
    print(f"   dra-webhook review   {seconds:8.3f} s (target <= 0.4 s; a bare interpreter: {interpreter:.3f} s)")


def jobs(directory: Path) -> None:
    path = write(directory / "max-2000.yaml", [max_slice(i) for i in range(2000)])
    runs = {}
    for n in (1, 2):
        best, result = wall([sys.executable, "-c", _RSS, "review", "--now", NOW, "-o", "json", "-j", str(n),
                             str(path)], rounds=2)
        assert result.returncode == 0, result.stderr[-2000:]
        rss = [int(x) // 1024 for x in result.stderr.split()[-2:]]
        runs[n] = (best, hashlib.sha256(result.stdout.encode()).hexdigest(), rss)
    print(f"4. 2,000 maximum-size slices ({path.stat().st_size / 1e6:.1f} MB), {os.cpu_count()} CPUs")
    for n, (best, digest, rss) in runs.items():
        print(f"   -j {n}  {best:8.3f} s  peak RSS {rss[0]} MiB (largest worker {rss[1]} MiB)  output {digest[:12]}")
    print(f"   speed-up -j 2 / -j 1: {runs[1][0] / runs[2][0]:.2f}x (target >= 1.6x on 2 idle cores); "
          f"same output: {runs[1][1] == runs[2][1]}")


def positions(directory: Path) -> None:
    from datetime import datetime, timezone

    from webhook.offline import loading, reviewing
    from webhook.offline import positions as placing
    from webhook.profile import make_profile

    objects = typical(500)
    for obj in objects:
        obj["metadata"]["name"] = obj["metadata"]["name"].replace("-", "_")  # one cause each, metadata.name
    path = write(directory / "denied-500.yaml", objects)
    chunks = list(loading.split(str(path), path.read_text()))
    options = reviewing.Options(profile=make_profile("1.36", {}), now=datetime.now(timezone.utc))
    results = reviewing.review_batch(chunks, options)
    assert all(r.verdict == "denied" and r.messages[0].line for r in results)
    total = best_of(lambda: reviewing.review_batch(chunks, options), rounds=3, number=1)
    place = best_of(lambda: [placing.place(r, placing.Source(c.text, c.line)) for r, c in zip(results, chunks)],
                    rounds=3, number=1)
    print(f"5. cause positions, 500 typical objects, each denied ({path.stat().st_size // 1024} KiB), one process")
    print(f"   review with positions {total:8.3f} s, of which positions {place:.3f} s: "
          f"{total / (total - place):.2f}x the review without them (allowed objects: no cost)")


def bytecode() -> None:
    """Compiles the package's bytecode first, as installing it does: with PYTHONDONTWRITEBYTECODE set (as in
    some CI images) every run would otherwise compile every module again, which no installed tool does."""
    import compileall

    compileall.compile_dir(str(ROOT / "webhook"), quiet=1)


def main() -> None:
    bytecode()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        parsers(directory)
        versus_kubernetes_validate(directory)
        small_file()
        jobs(directory)
        positions(directory)


if __name__ == "__main__":
    main()
