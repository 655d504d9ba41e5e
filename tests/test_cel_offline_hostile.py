"""Offline commands on a selector that made cel-python's lexer backtrack for hours (issue 21): `review`
and `allocate` (`review` with each engine) answer in a fresh process well within the subprocess timeout."""

from __future__ import annotations

import json

import pytest

from allocation_objects import claim, device_class, gpu, node, request, resource_slice, write
from support import cli

REDOS = "(" * 40 + 'device.driver == "' + "\\\\" * 24


@pytest.fixture(scope="module")
def manifests(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    slice_ = resource_slice("node-1-gpus", [gpu("gpu-0")], node="node-1")
    objects = [device_class("gpu.example.com", REDOS), slice_,
               claim("c", request("gpu", "gpu.example.com", 1)), node("node-1")]
    return write(folder / "cluster.json", objects)


@pytest.mark.parametrize("engine", ["auto", "cel-python"])
def test_review_answers_the_redos_selector(manifests, engine):
    result = cli("review", "--cel-engine", engine, "--output", "json", manifests, timeout=60)
    assert result.returncode == 1, result.stderr  # denied, not crashed
    assert "token recognition error" in result.stdout


def test_allocate_answers_the_redos_selector(manifests):
    result = cli("allocate", "--node", "node-1", "--output", "json", manifests, timeout=60)
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["allocated"] is False and "token recognition error" in result.stdout
