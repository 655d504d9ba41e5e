"""Fixtures: one real `dra-webhook serve` process over TLS for the whole session."""

from __future__ import annotations

import os

import pytest

import realserver  # before the autouse fixture below moves XDG_CACHE_HOME: the build cache is the user's
from support import RunningServer, start_server


def pytest_configure(config):
    config.addinivalue_line("markers", "upstream: needs Go and upstream's binaries (make upstream)")


def pytest_collection_modifyitems(config, items):
    """Without Go or upstream's binaries, the tests marked `upstream` are left out and the summary says so in
    one line; with CI=true they run (and fail), since CI never skips them."""
    missing = realserver.upstream_missing()
    if not missing or os.environ.get("CI", "").lower() == "true":
        return
    left_out = [item for item in items if item.get_closest_marker("upstream")]
    if left_out:
        items[:] = [item for item in items if not item.get_closest_marker("upstream")]
        config.hook.pytest_deselected(items=left_out)
        config.stash[_LEFT_OUT] = f"{len(left_out)} upstream tests skipped ({missing}): {realserver.HOW_TO_GET}"


_LEFT_OUT = pytest.StashKey[str]()


def pytest_terminal_summary(terminalreporter, config):
    if _LEFT_OUT in config.stash:
        terminalreporter.write_line(config.stash[_LEFT_OUT])


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
