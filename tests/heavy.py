"""Requests that take a long time to review: many distinct maximum-length CEL selectors.

Each 10 KiB selector costs tens of milliseconds to compile and check, and distinct ones are never
cached, so a claim of `selectors` of them takes seconds on any machine; the tests give such
requests deadlines far shorter than that work.
"""

from __future__ import annotations

import itertools

_seeds = itertools.count()


def chain(size: int, seed: int = 0) -> str:
    """A selector of exactly `size` bytes: an && chain of attribute comparisons unique to `seed`."""
    terms, n = [], 0
    while True:
        term = f'device.attributes["dra.example.com"].attr{n % 32} == "value-{seed}-{n}"'
        if len(" && ".join(terms + [term])) > size - 20:
            break
        terms.append(term)
        n += 1
    text = " && ".join(terms) + ' && "x" != ""'
    return text + " " * (size - len(text))


def heavy_claim(selectors: int = 256, size: int = 10240, requests: int = 32) -> dict:
    """A valid claim whose selectors were never seen before (fresh seeds on every call)."""
    per_request = max(1, selectors // requests)
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "heavy", "namespace": "default"},
            "spec": {"devices": {"requests": [
                {"name": f"r{i}", "exactly": {"deviceClassName": "gpus", "allocationMode": "ExactCount", "count": 1,
                                              "selectors": [{"cel": {"expression": chain(size, next(_seeds))}}
                                                            for _ in range(per_request)]}}
                for i in range(requests)]}}}
