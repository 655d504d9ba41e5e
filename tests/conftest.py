"""Fixtures: one real `dra-webhook serve` process over TLS for the whole session."""

from __future__ import annotations

import os

import pytest

import realserver  # before the autouse fixture below moves XDG_CACHE_HOME: the build cache is the user's
from support import RunningServer, start_server


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
