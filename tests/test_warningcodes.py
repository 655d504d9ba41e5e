"""Warning codes of texts that quote what a user wrote, at any length."""

from __future__ import annotations

import json

from test_offline_hostile import run_measured
from webhook.cel import depth, portable
from webhook.offline.warningcodes import code


def test_the_engines_skipped_checks_have_their_code():
    assert code(f"dra-webhook: spec.selectors[0].cel.expression: {portable.SKIPPED_WARNING}") == "cel-unchecked"
    assert code(f"dra-webhook: spec.selectors[0].cel.expression: {depth.SKIPPED_WARNING}") == "cel-unchecked"


def test_a_warning_quoting_a_long_request_name_is_coded_in_linear_time(tmp_path):
    """A request name repeating `type and cost check ` (no `skipped` after it) made the cel-unchecked
    pattern (`type and cost checks? .*skipped`) rescan the rest of the warning from each repetition:
    a 1.6 MB claim took a minute to review; now its warning is coded at once, as unknown-device-class."""
    name = "type and cost check " * 80_000
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "a", "namespace": "d"},
             "spec": {"devices": {"requests": [{"name": name, "exactly": {"deviceClassName": "nope"}}]}}}
    device_class = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "a"}}
    path = tmp_path / "claim.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [device_class, claim]}))
    result, seconds, peak = run_measured(tmp_path, "review", "-o", "json", str(path), timeout=60)
    assert result.returncode == 1, result.stderr  # the name is no DNS label: denied, as the API server does
    claim_result = json.loads(result.stdout)["results"][1]
    assert claim_result["warningCodes"] == ["unknown-device-class"]
    assert "Traceback" not in result.stderr
    assert seconds < 15 and peak < 512 * 2**20, (seconds, peak)  # measured: 1 s (before: over 60 s)
