"""Reporters: a finished `Run` to text, json, junit, github, sarif or tap, chosen by name."""

from __future__ import annotations

import importlib
from typing import Callable, TextIO

from webhook.offline.results import Run

# name -> module whose write(run, out) prints that format; imported only when chosen
_MODULES = {"text": "text", "json": "jsonout", "junit": "junit", "github": "github", "sarif": "sarif", "tap": "tap"}
NAMES = tuple(_MODULES)


def writer(name: str) -> Callable[[Run, TextIO], None]:
    return importlib.import_module(f"{__name__}.{_MODULES[name]}").write
