"""Driver profiles offline: Markdown documents, the portable CEL engine, and the engine's own limits."""

from __future__ import annotations

import json
import textwrap

from drivercases import claim_with
from support import cli
from webhook.drivers.check import validate_opaque_parameters
from webhook.drivers.profiles import read_profile
from webhook.drivers.registry import DriverSet
from webhook.field import Path

BAD_GPU = {"apiVersion": "gpu.resource.example.com/v1alpha1", "kind": "GpuConfig",
           "sharing": {"strategy": "SpacePartitioning", "timeSlicingConfig": {"interval": "Long"}}}


def test_markdown_documents_are_checked(tmp_path):
    document = tmp_path / "guide.md"
    claim = json.dumps(claim_with("gpu.example.com", BAD_GPU), indent=2)
    document.write_text(f"# Sharing a GPU\n\nSome text.\n\n```json\n{claim}\n```\n")
    result = cli("review", "-o", "json", str(document))
    assert result.returncode == 1, result.stderr
    [message] = json.loads(result.stdout)["results"][0]["messages"]
    assert message["field"] == "spec.devices.config[0].opaque.parameters.sharing.timeSlicingConfig"
    assert message["line"] > 5  # placed in the Markdown file, inside the fence


def test_portable_engine_checks_schemas_and_says_rules_were_skipped(tmp_path):
    manifest = tmp_path / "claim.json"
    manifest.write_text(json.dumps(claim_with("gpu.example.com", BAD_GPU)))
    faithful = cli("review", str(manifest))
    assert faithful.returncode == 1 and "cannot use TimeSlicingConfig" in faithful.stdout
    portable = cli("review", "--cel-engine", "cel-python", str(manifest))
    assert portable.returncode == 0, portable.stdout
    assert "[cel-unchecked]" in portable.stdout and "CEL rules of driver profile gpu.example.com were skipped" \
        in portable.stdout
    schema_error = dict(BAD_GPU, sharing={"strategy": "Bogus"})
    manifest.write_text(json.dumps(claim_with("gpu.example.com", schema_error)))
    assert cli("review", "--cel-engine", "cel-python", str(manifest)).returncode == 1


def test_the_engines_iteration_limit_is_no_verdict_about_the_value():
    """cel-cpp stops after 10,000 comprehension iterations; the API server would run this rule (its cost is
    within budget). The webhook says it could not decide (InternalError), never that the value is invalid.
    (12,000 items do not fit in the 10 KiB of a claim's parameters: checked here in process.)"""
    profile = read_profile(textwrap.dedent("""\
        apiVersion: dra-webhook/v1alpha1
        kind: DriverProfile
        drivers: [loops.example.org]
        decoding: untyped
        kinds:
        - openAPIV3Schema:
            type: object
            properties:
              values:
                type: array
                maxItems: 20000
                items: {type: integer}
                x-kubernetes-validations:
                - rule: "self.all(x, x >= 0)"
        """), "loops.yaml")
    drivers = DriverSet({"loops.example.org": profile}, {"loops.example.org": {}})
    path = Path("spec", "devices", "config").index(0).child("opaque").child("parameters")
    small = validate_opaque_parameters(profile, drivers, "loops.example.org", {"values": list(range(50))}, path)
    assert small == []
    negative = validate_opaque_parameters(profile, drivers, "loops.example.org", {"values": [1, -5]}, path)
    assert [(e.field, e.type.value) for e in negative] == [(f"{path}.values", "FieldValueInvalid")]
    large = validate_opaque_parameters(profile, drivers, "loops.example.org", {"values": list(range(12_000))}, path)
    assert [(e.field, e.type.value) for e in large] == [(f"{path}.values", "InternalError")]
