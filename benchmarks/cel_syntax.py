"""CEL syntax check (cel-go's grammar, webhook/cel/grammar.py): time per byte from 1 KiB to 10 KiB.

    python benchmarks/cel_syntax.py

Adversarial inputs that once made cel-python's backtracking string lexer take hours (backslash runs
after deep nesting, unterminated strings), deep nesting, long chains, and a valid selector. Target:
time per byte flat (the 10 KiB / 1 KiB ratio near 1, never growing with size), and the 106-byte
selector from issue 21 in well under a millisecond. Runs in a few seconds.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import best_of  # noqa: E402

from webhook.cel import grammar  # noqa: E402

CASES = {
    "backslashes after 40 parens": lambda n: "(" * 40 + 'device.driver == "' + "\\\\" * n,
    "unterminated string": lambda n: '"' + "a\\\\" * n,
    "unterminated triple quote": lambda n: '"""' + "\\\\" * n,
    "nested parentheses": lambda n: "(" * n,
    "nested lists": lambda n: "[" * n,
    "select chain": lambda n: "a" + ".b" * n,
    "plus chain": lambda n: "1" + " + 1" * n,
    "ternary chain": lambda n: "a ? b : " * n + "c",
    "valid && chain": lambda n: " && ".join(['device.attributes["d"].a == "x"'] * n),
}
SIZES = (1024, 2048, 4096, 10240)


def sized(build, size: int) -> str:
    n = 1
    while len(build(n * 2)) <= size:
        n *= 2
    low, high = n, n * 2
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if len(build(mid)) <= size else (low, mid)
    return build(low)


def main() -> None:
    redos = "(" * 40 + 'device.driver == "' + "\\\\" * 24
    print(f"issue 21 selector ({len(redos)} bytes): {best_of(lambda: grammar.syntax_error(redos)) * 1e6:.0f} us")
    print(f"{'case':30} " + " ".join(f"{s:>9}" for s in SIZES) + "   ns/byte at 10 KiB / at 1 KiB")
    for name, build in CASES.items():
        per_byte = []
        for size in SIZES:
            text = sized(build, size)
            per_byte.append(best_of(lambda: grammar.syntax_error(text), rounds=5, number=5) / len(text) * 1e9)
        print(f"{name:30} " + " ".join(f"{p:8.0f}n" for p in per_byte) + f"   {per_byte[-1] / per_byte[0]:.2f}")


if __name__ == "__main__":
    main()
