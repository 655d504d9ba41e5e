"""The same object gets the same verdict whether its CEL selectors are already cached or not (served over HTTPS)."""

from __future__ import annotations

import pytest

from support import causes, review_body, start_server


def selector(request: int, index: int) -> str:
    """A distinct ~300-byte selector: an && chain of attribute comparisons."""
    terms = [f'device.attributes["dra.example.com"].attr{n} == "value-{request}-{index}-{n}"' for n in range(4)]
    return " && ".join(terms) + f' && device.driver == "gpu-{request}-{index}.example.com"'


# 256 distinct selectors: a quarter of the largest claim, so that a slow, busy machine stays far inside the
# per-request CEL budget (the full 32x32 claim is timed in benchmarks/cel.py, not here).
SIDE = 16


def claim(selectors_per_request: int = SIDE, requests: int = SIDE, bad: tuple[tuple[int, int], ...] = ()) -> dict:
    def expression(i: int, j: int) -> str:
        return "device.nope == 1" if (i, j) in bad else selector(i, j)

    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "big", "namespace": "default"},
            "spec": {"devices": {"requests": [
                {"name": f"r{i}", "exactly": {"deviceClassName": "gpus", "allocationMode": "ExactCount", "count": 1,
                                              "selectors": [{"cel": {"expression": expression(i, j)}}
                                                            for j in range(selectors_per_request)]}}
                for i in range(requests)]}}}


def verdict(response: dict) -> tuple:
    messages = sorted(c["message"] for c in response.get("status", {}).get("details", {}).get("causes", []))
    return response["allowed"], causes(response), messages, sorted(response.get("warnings") or [])


@pytest.mark.parametrize("bad", [(), ((0, 0), (SIDE - 1, SIDE - 1))], ids=["valid", "two bad selectors"])
def test_claim_verdict_is_the_same_cold_and_warm(tmp_path_factory, bad):
    body = review_body(claim(bad=bad))
    assert 250 <= min(len(selector(i, j)) for i in range(SIDE) for j in range(SIDE)) < 400
    verdicts = []
    for run in range(2):  # a fresh server process starts with an empty cache
        server = start_server(tmp_path_factory.mktemp(f"cold-warm-{run}"))
        try:
            verdicts.append(verdict(server.review("/validate", body)))  # cold
            verdicts.append(verdict(server.review("/validate", body)))  # warm
        finally:
            server.stop()
    assert all(v == verdicts[0] for v in verdicts), verdicts
    allowed, found, _, _ = verdicts[0]
    if bad:
        assert allowed is False
        assert found == {(f"spec.devices.requests[{i}].exactly.selectors[{j}].cel.expression", "FieldValueInvalid"): 1
                         for i, j in bad}
    else:
        assert allowed is True and not found
