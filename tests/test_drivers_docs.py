"""docs/drivers.md is executed: its example profile loads, and its example claim gets the verdict the page states."""

from __future__ import annotations

import json
import re
from pathlib import Path

from support import cli

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs/drivers.md").read_text()


def _yaml_blocks() -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", PAGE, flags=re.S)


def test_example_profile_and_claim(tmp_path):
    blocks = _yaml_blocks()
    profile = next(b for b in blocks if "kind: DriverProfile" in b)
    claim = next(b for b in blocks if "kind: ResourceClaim" in b)
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles/fpga.yaml").write_text(profile)
    (tmp_path / "claim.yaml").write_text(claim)
    checked = cli("profiles", "check", str(tmp_path / "profiles/fpga.yaml"))
    assert checked.returncode == 0, checked.stdout
    result = cli("review", "--driver-profiles", str(tmp_path / "profiles"), "-o", "json", str(tmp_path / "claim.yaml"))
    assert result.returncode == 1, result.stderr
    messages = json.loads(result.stdout)["results"][0]["messages"]
    assert [(m["field"], m["message"]) for m in messages] == [
        ("spec.devices.config[0].opaque.parameters.clockMHz",
         'Invalid value: "object": shared mode runs at most at 400 MHz')]
    assert "denied at `spec.devices.config[0].opaque.parameters.clockMHz` (`Invalid value:\n\"object\": shared " \
           "mode runs at most at 400 MHz`)" in PAGE


def test_every_bundled_profile_is_in_the_table():
    listed = cli("profiles", "list")
    for line in listed.stdout.splitlines():
        name = line.split()[0]
        commit = re.search(r"@([0-9a-f]{40})", line).group(1)
        assert f"| `{name}` |" in PAGE and commit[:8] in PAGE, (name, commit)
