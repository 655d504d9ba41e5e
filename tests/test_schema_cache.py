"""The wire-model validators built from cached core schemas: same errors as pydantic's, every cache state safe."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from support import cli
from webhook.api import mirror, schema_cache
from webhook.api.decode import check_types
from webhook.kinds import KINDS

REFS = sorted({ref for kind in KINDS.values() for ref in kind.model.values()})

# Each is checked against every model: wrong JSON types, bad quantities, out-of-range ints, unknown fields.
BAD = [
    {"spec": {"devices": [{"name": 1, "capacity": {"memory": {"value": "80 Gi"}}, "attributes": {"a": {"int": "1"}},
                           "taints": [{"effect": 3}], "bogus": True}],
              "pool": {"generation": 2**63}, "nodeName": ["x"]}},
    {"spec": {"devices": {"requests": [{"name": 5, "exactly": {"count": "2", "capacity": {"requests": {"m": "1x"}},
                                                                "selectors": [{"cel": {"expression": 7}}]}}],
                          "constraints": "x"}}},
    {"spec": {"selectors": "x", "config": [{"opaque": {"parameters": 1}}], "extendedResourceName": 1.5}},
    {"spec": {"taint": {"effect": 3, "timeAdded": 5}, "deviceSelector": {"pool": []}}},
    {"spec": {"spec": {"devices": {"requests": "x"}}}, "metadata": {"labels": {"a": 1}, "generation": -(2**64)}},
    {"apiVersion": 1, "kind": None, "metadata": "m", "status": []},
    {"spec": {"devices": [{"capacity": {"memory": "80Gi"}}]}},
]


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """An empty cache directory, and no validator kept in memory."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    schema_cache.validator.cache_clear()
    schema_cache._cache_dir.cache_clear()
    yield tmp_path
    schema_cache.validator.cache_clear()
    schema_cache._cache_dir.cache_clear()


def errors(validator, obj) -> list | None:
    try:
        validator.validate_python(obj)
    except schema_cache.ValidationError as exc:
        # ctx holds the raised ValueError itself, which compares by identity: compare its repr
        return [{**e, "ctx": repr(e.get("ctx"))} for e in exc.errors(include_url=False)]
    return None


def cached(ref: str) -> list:
    return sorted(schema_cache._cache_dir().glob(f"{ref}.json"))


@pytest.mark.parametrize("ref", REFS)
def test_a_validator_read_back_from_the_cache_agrees_with_pydantic(fresh, ref):
    reference = mirror._adapter(mirror.load_model(ref)).validator
    built = schema_cache.validator(ref)  # a miss: built from the models, then stored
    assert cached(ref)
    schema_cache.validator.cache_clear()
    loaded = schema_cache.validator(ref)  # read back from the file
    assert loaded is not built
    for obj in BAD:
        expected = errors(reference, obj)
        assert expected, obj
        assert errors(built, obj) == expected
        assert errors(loaded, obj) == expected


def test_type_errors_render_the_same_from_a_cold_and_a_warm_cache(fresh):
    ref = KINDS["ResourceSlice"].model["1.36"]
    cold = [check_types(ref, obj) for obj in BAD]
    schema_cache.validator.cache_clear()
    warm = [check_types(ref, obj) for obj in BAD]
    assert cold == warm
    rendered = [str(e) for e in cold[0][0]]
    assert ('spec.devices[0].name: Invalid value: 1: json: cannot unmarshal number into Go struct field '
            'Device.spec.devices.name of type string') in rendered
    # A quantity's own decoding error stops Go's decoder: it comes first.
    assert rendered[0].startswith('spec.devices[0].capacity[memory].value: Invalid value: "80 Gi": '
                                  'quantities must match the regular expression')
    assert cold[0][1] == ['unknown field "spec.devices[0].bogus"']
    assert check_types(ref, {"spec": {"driver": "gpu.example.com"}}) == ([], [])


@pytest.mark.parametrize("content", ["", "{not json", '{"schema": {"type": "nonsense"}, "config": {}}',
                                     '{"schema": {"type": "int"}}', "[1, 2]"])
def test_a_corrupt_cache_file_is_rebuilt(fresh, content):
    ref = KINDS["DeviceClass"].model["1.36"]
    schema_cache.validator(ref)
    [path] = cached(ref)
    good = path.read_text()
    path.write_text(content)
    schema_cache.validator.cache_clear()
    assert errors(schema_cache.validator(ref), BAD[2])
    assert path.read_text() == good


def test_a_cached_schema_may_only_name_our_own_functions(fresh):
    ref = KINDS["ResourceSlice"].model["1.36"]
    schema_cache.validator(ref)
    [path] = cached(ref)
    text = path.read_text()
    assert '"$function": "webhook.quantity:check_json_quantity"' in text
    for foreign in ("os:getcwd", "webhook.quantity:parse_json_quantity"):
        path.write_text(text.replace("webhook.quantity:check_json_quantity", foreign))
        schema_cache.validator.cache_clear()
        assert errors(schema_cache.validator(ref), BAD[0])
        assert path.read_text() == text


def test_an_unwritable_cache_only_costs_the_build(fresh, monkeypatch):
    blocker = fresh / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    schema_cache._cache_dir.cache_clear()
    ref = KINDS["DeviceTaintRule"].model["1.36"]
    assert errors(schema_cache.validator(ref), BAD[3])
    assert check_types(ref, {"spec": {"taint": {"key": "k", "effect": "NoSchedule"}}}) == ([], [])


# Runs `dra-webhook review` in-process and says on stderr whether pydantic was imported.
_PROBE = ("import sys\nfrom webhook.cli import main\ncode = main(sys.argv[1:])\n"
          "print('pydantic' in sys.modules, file=sys.stderr)\nsys.exit(code)")
GOOD = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
         "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
         "spec": {"driver": "gpu.example.com", "nodeName": "n", "pool": {"name": "p", "resourceSliceCount": 1},
                  "devices": [{"name": "d", "capacity": {"memory": {"value": "80Gi"}}}]}}]


def probe(tmp_path, *args):
    return subprocess.run([sys.executable, "-c", _PROBE, "review", "--now", "2026-01-01T00:00:00Z", *args],
                          capture_output=True, text=True, env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")})


def test_a_warm_review_does_not_import_pydantic_and_prints_the_same(tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text("\n---\n".join(json.dumps(obj) for obj in GOOD))
    cold, warm = probe(tmp_path, "-o", "json", str(good)), probe(tmp_path, "-o", "json", str(good))
    assert cold.returncode == warm.returncode == 0, cold.stdout + cold.stderr
    assert cold.stdout == warm.stdout
    assert cold.stderr.split()[-1] == "True"  # the first run built the schemas from the models
    assert warm.stderr.split()[-1] == "False"
    bad = tmp_path / "bad.yaml"
    wrong = {**GOOD[1], "spec": {**GOOD[1]["spec"], "nodeName": 7}}
    bad.write_text("\n---\n".join(json.dumps(obj) for obj in [GOOD[0], wrong]))
    denied = probe(tmp_path, str(bad))
    assert denied.returncode == 1
    assert ("spec.nodeName: Invalid value: 7: json: cannot unmarshal number into Go struct field "
            "ResourceSliceSpec.spec.nodeName of type string") in denied.stdout
    assert denied.stdout == cli("review", "--now", "2026-01-01T00:00:00Z", str(bad),
                                env={"XDG_CACHE_HOME": str(tmp_path / "other")}).stdout


def test_pydantic_core_is_loaded_without_its_package():
    """Its package's __init__ imports core_schema, which start-up avoids (and pydantic with it)."""
    probe = "import sys, webhook.api.schema_cache\nprint(sorted(m for m in sys.modules if 'pydantic' in m))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['pydantic_core._pydantic_core']"
