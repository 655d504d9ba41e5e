"""Fixtures: one real `dra-webhook serve` process over TLS for the whole session."""

from __future__ import annotations

import os

import pytest

from support import RunningServer, require_faithful_cel, start_server


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
