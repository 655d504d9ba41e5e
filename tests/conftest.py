"""Fixtures: one real `dra-webhook serve` process over TLS for the whole session."""

from __future__ import annotations

import os

import pytest

import realserver  # before the autouse fixture below moves XDG_CACHE_HOME: the build cache is the user's
from support import GET_TOOLS, RunningServer, in_ci, require_faithful_cel, start_server, upstream_tool


@pytest.fixture(scope="session")
def webhook_server(tmp_path_factory) -> RunningServer:
    """The webhook as a subprocess with certs from `dra-webhook certs`; clients verify the generated CA."""
    server = start_server(tmp_path_factory.mktemp("webhook"))
    yield server
    server.stop()


@pytest.fixture(scope="session", autouse=True)
def schema_cache_dir(tmp_path_factory):
    """The wire-model schema cache of every process the suite starts, in a fresh directory (not the user's)."""
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))


@pytest.fixture
def faithful_cel():
    """Tests of the faithful CEL engine: failing where pyproject.toml requires it and it does not import."""
    require_faithful_cel()


def pytest_collection_modifyitems(config, items):
    """Tests that need upstream's binaries whose binaries are missing: marked needs_tool(name) (kubectl, helm) or
    upstream (kube-apiserver and etcd, the registry oracle, the allocator). In CI (CI=true) the run stops with an
    error, since CI builds every tool; on a developer's machine they are not run, and one line says how to get
    the tools."""
    lacking: dict[str, list] = {}
    for item in items:
        for mark in item.iter_markers("needs_tool"):
            if upstream_tool(mark.args[0]) is None:
                lacking.setdefault(mark.args[0], []).append(item)
    missing = realserver.upstream_missing()
    if missing:
        lacking[missing] = [item for item in items if item.get_closest_marker("upstream")]
        if not lacking[missing]:
            del lacking[missing]
    if not lacking:
        return
    tools = ", ".join(sorted(lacking))
    if in_ci():
        raise pytest.UsageError(f"CI=true and {tools} not found: CI never skips a test; {GET_TOOLS}")
    left_out = {id(item) for group in lacking.values() for item in group}
    config.hook.pytest_deselected(items=[item for item in items if id(item) in left_out])
    items[:] = [item for item in items if id(item) not in left_out]
    config.stash[_NOT_RUN] = f"{len(left_out)} tests not run: {tools} not found; {GET_TOOLS}"


_NOT_RUN = pytest.StashKey[str]()


def pytest_terminal_summary(terminalreporter, config):
    if _NOT_RUN in config.stash:
        terminalreporter.write_line(f"SKIPPED {config.stash[_NOT_RUN]}", yellow=True)


# The real kube-apiserver 1.36 (tests/realserver.py): once per run, with DRA's beta versions served and
# DeviceTaintRules on (its effect-change default is the one the API server's own defaulting leaves to
# the webhook: tests/test_apiserver_e2e.py).
E2E_GATES = "DRADeviceTaintRules=true"


@pytest.fixture(scope="session")
def kube_apiserver(tmp_path_factory):
    if realserver.binaries() is None:
        realserver.skip_or_fail("kube-apiserver 1.36 and etcd are not built")
    plane = realserver.ControlPlane.start(tmp_path_factory.mktemp("apiserver"), feature_gates=E2E_GATES)
    yield plane
    plane.stop()


@pytest.fixture(scope="session")
def webhook_in_cluster(kube_apiserver, tmp_path_factory):
    """`dra-webhook serve` with the API server's profile, registered by deploy/base's configurations."""
    in_cluster = realserver.serve_registered(kube_apiserver, tmp_path_factory.mktemp("in-cluster"))
    yield in_cluster
    in_cluster.stop()
