"""pydantic-core validators of the wire models, built from core schemas cached on disk.

Building the models and their validators with pydantic costs more start-up time than an offline review
of hundreds of objects spends validating, so the core schemas are generated once (first use) into
`$XDG_CACHE_HOME/dra-webhook/` (default `~/.cache`), keyed by the pydantic-core version and a hash of the
model sources, and later runs build each validator from its schema with pydantic-core alone. pydantic
pins its exact pydantic-core version, so the key covers both. A missing, stale, corrupt or unwritable
cache only costs the build: the validator is then made from the models, as without a cache.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

_API = Path(__file__).resolve().parent
# Marks a function in a stored schema (the same value as webhook.api.mirror.FUNCTION).
_FUNCTION = "$function"
# The only functions a stored schema may name: the validators of the wire models (a model using another one
# fails on its first build until it is added here, so a tampered cache can never name arbitrary code).
_FUNCTIONS = frozenset({"webhook.quantity:check_json_quantity", "webhook.api.gotime:check"})


def _load_core() -> ModuleType:
    """pydantic-core's compiled module, loaded without the `pydantic_core` package: its __init__ imports
    `core_schema` (~10 ms of TypedDict definitions, as much as all the rules' modules), which a validator
    built from a stored schema does not use. A later `import pydantic_core` (a type error, a cache miss)
    reuses this module. Any surprise falls back to the ordinary import."""
    name = "pydantic_core._pydantic_core"
    if name in sys.modules:
        return sys.modules[name]
    try:
        package = importlib.util.find_spec("pydantic_core")
        folder = Path(package.origin).parent  # type: ignore[union-attr, arg-type]
        binary = next(path for suffix in importlib.machinery.EXTENSION_SUFFIXES
                      if (path := folder / f"_pydantic_core{suffix}").is_file())
        spec = importlib.util.spec_from_file_location(name, binary)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        sys.modules[name] = module
        spec.loader.exec_module(module)  # type: ignore[union-attr]
        return module
    except Exception:
        sys.modules.pop(name, None)
        return importlib.import_module(name)


_core = _load_core()
SchemaValidator = _core.SchemaValidator
ValidationError = _core.ValidationError


@lru_cache(maxsize=None)
def validator(ref: str) -> SchemaValidator:
    """The validator of the mirror of the wire model `ref` ("module.Class")."""
    return _build(_schema(ref))


@lru_cache(maxsize=None)
def quick_validator(ref: str) -> SchemaValidator | None:
    """`validator(ref)` with each device attribute map checked by `check_common_attributes` instead
    (quick, or deferred to validation: webhook.api.attributes): what it accepts, the full validator
    accepts with no error and no unknown field; what it refuses goes to the full validator. None when
    the model has no attribute map (the full one is as quick)."""
    stored = _schema(ref)
    quick = _quick_attribute_maps(stored["schema"])
    if quick is stored["schema"]:
        return None
    try:
        return SchemaValidator(quick, stored["config"])
    except Exception:  # a schema shape this does not foresee: the full validator alone
        return None


def _schema(ref: str) -> dict:
    """The stored core schema and config of `ref`, functions resolved; built and stored on a miss."""
    path = _cache_dir() / f"{ref}.json"
    try:
        stored = json.loads(path.read_text(encoding="utf-8"), object_hook=_resolve)
        _build(stored)  # an unusable file is rebuilt below
        return stored
    except Exception:  # missing or unusable: rebuild below
        pass
    from webhook.api.mirror import stored_schema

    stored = stored_schema(ref)
    _store(path, stored)
    return json.loads(json.dumps(stored), object_hook=_resolve)


def _build(stored: dict) -> SchemaValidator:
    return SchemaValidator(stored["schema"], stored["config"])


# The mirror of webhook.api.resourceslice.DeviceAttribute, as its typed-dict schema names it.
_ATTRIBUTE_TITLE = "DeviceAttributeWire"


def _quick_attribute_maps(node: Any) -> Any:
    """`node` with every map of DeviceAttribute replaced by the quick check; `node` itself when it has none."""
    if isinstance(node, dict):
        values = node.get("values_schema")
        if node.get("type") == "dict" and isinstance(values, dict) and \
                values.get("config", {}).get("title") == _ATTRIBUTE_TITLE:
            from webhook.api.attributes import check_common_attributes

            return {"type": "function-plain", "function": {"type": "no-info", "function": check_common_attributes}}
        changed = {key: _quick_attribute_maps(value) for key, value in node.items()}
        return node if all(changed[key] is node[key] for key in node) else changed
    if isinstance(node, list):
        changed_list = [_quick_attribute_maps(value) for value in node]
        return node if all(new is old for new, old in zip(changed_list, node)) else changed_list
    return node


def _resolve(node: dict) -> Any:
    if _FUNCTION not in node:
        return node
    if len(node) != 1 or node[_FUNCTION] not in _FUNCTIONS:
        raise ValueError(f"unexpected function {node[_FUNCTION]!r} in a cached schema")
    module, _, name = node[_FUNCTION].partition(":")
    return getattr(importlib.import_module(module), name)


def _store(path: Path, stored: dict) -> None:
    """Writes atomically (concurrent runs and -j workers may write the same file); failures are ignored."""
    import tempfile  # only a cache miss writes

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(stored, out)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass


@lru_cache(maxsize=None)
def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    digest = hashlib.sha256(_core.__version__.encode())
    for source in sorted(_API.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return Path(base) / "dra-webhook" / f"schemas-{digest.hexdigest()[:16]}"
