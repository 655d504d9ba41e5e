"""action.yml, run as the GitHub runner runs a composite action: each `run:` step's script with its
`${{ }}` expressions substituted, its `env:` set, under `bash --noprofile --norc -eo pipefail`, with
$GITHUB_PATH additions carried to the next step, in a temporary copy of the repository (no network).

The install step is substituted and checked but not run: it builds the package with setuptools>=77 from
the package index, which a test must not reach. The project's own environment (where this checkout is
installed) takes its place on $GITHUB_PATH, as the step would put its virtualenv there."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
VALID = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\n"
DENIED = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: Bad_Name\n"
V1BETA2 = VALID.replace("/v1\n", "/v1beta2\n")


def _expression(expression: str, context: dict) -> str:
    """The value of `inputs.x`, `github.x` or `runner.x`: the only expressions action.yml may use."""
    scope, _, name = expression.strip().partition(".")
    assert scope in context and name in context[scope], f"unexpected expression {expression!r}"
    return context[scope][name]


def _substitute(text: str, context: dict) -> str:
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: _expression(m[1], context), text)


def run_action(tmp_path: Path, workspace: Path, **inputs: str) -> tuple[int, str, list[str]]:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    action_path = tmp_path / "action"
    if not action_path.exists():
        files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        for name in files.decode().split("\0"):
            if name and (ROOT / name).is_file():
                (action_path / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, action_path / name)
        shutil.copy2(ROOT / "action.yml", action_path / "action.yml")
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    github_path = runner_temp / "path"
    github_path.write_text("")
    defaults = {name: spec.get("default", "") for name, spec in action["inputs"].items()}
    unknown = set(inputs) - set(defaults)
    assert not unknown, unknown
    context = {"inputs": {**defaults, **inputs}, "github": {"action_path": str(action_path)},
               "runner": {"temp": str(runner_temp)}}
    base_env = {k: v for k, v in os.environ.items() if k not in ("SOURCE_DATE_EPOCH", "VIRTUAL_ENV")}
    base_env.update(GITHUB_PATH=str(github_path), RUNNER_TEMP=str(runner_temp), GITHUB_WORKSPACE=str(workspace),
                    GITHUB_ACTION_PATH=str(action_path))
    path = base_env["PATH"]
    output = []
    for step in action["runs"]["steps"]:
        assert step["shell"] == "bash" and "uses" not in step and "if" not in step
        script = _substitute(step["run"], context)
        env = {**base_env, **{k: _substitute(str(v), context) for k, v in step.get("env", {}).items()}}
        if step["name"] == "Install dra-webhook":
            assert str(action_path) not in script  # the action's path reaches the script as a variable only
            assert '--constraint "$constraints" "$GITHUB_ACTION_PATH"' in script
            assert '"$GITHUB_ACTION_PATH/requirements.lock" > "$constraints"' in script
            assert '>> "$GITHUB_PATH"' in script
            github_path.write_text(f"{BIN}\n")  # what the step adds: a bin directory with this checkout installed
            continue
        additions = [line for line in github_path.read_text().splitlines() if line]
        env["PATH"] = os.pathsep.join([*reversed(additions), path])
        script_file = runner_temp / "step.sh"
        script_file.write_text(script)
        result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script_file)],
                                cwd=workspace, env=env, capture_output=True, text=True, timeout=120)
        output.append(result.stdout + result.stderr)
        if result.returncode != 0:
            return result.returncode, "".join(output), additions
    return 0, "".join(output), additions


@pytest.fixture
def workspace(tmp_path) -> Path:
    root = tmp_path / "workspace"
    (root / "deploy").mkdir(parents=True)
    (root / "deploy" / "class.yaml").write_text(VALID)
    (root / "deploy" / "values.yaml").write_text("replicaCount: 1\n")  # not a Kubernetes object: skipped
    (root / "beta").mkdir()
    (root / "beta" / "class.yaml").write_text(V1BETA2)
    return root


def test_the_action_passes_valid_manifests_and_writes_sarif(tmp_path, workspace):
    code, out, additions = run_action(tmp_path, workspace, paths="deploy", sarif="dra.sarif")
    assert code == 0, out
    assert additions == [str(BIN)]
    assert out.startswith("dra-webhook 0.")
    assert "exit 0: every object passed" in out
    sarif = json.loads((workspace / "dra.sarif").read_text())
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["results"] == []


def test_the_action_fails_a_denial_with_an_annotation_and_still_writes_sarif(tmp_path, workspace):
    (workspace / "deploy" / "bad.yaml").write_text(DENIED)
    code, out, _ = run_action(tmp_path, workspace, paths="deploy beta", sarif="dra.sarif")
    assert code == 1
    assert "::error file=deploy/bad.yaml,line=4,col=3,title=DeviceClass/Bad_Name (CREATE)%3A denied::" in out
    results = json.loads((workspace / "dra.sarif").read_text())["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["FieldValueInvalid", "warning/deprecated-api", "warning/opt-in-api"]


def test_the_action_passes_the_users_flags(tmp_path, workspace):
    args = "--warnings-as-errors --runtime-config resource.k8s.io/v1beta2=true --ignore-warning deprecated-api"
    code, out, _ = run_action(tmp_path, workspace, paths="beta deploy", args=args)
    assert code == 0, out
    code, out, _ = run_action(tmp_path, workspace, paths="beta", args="--warnings-as-errors")
    assert code == 1 and "::warning file=beta/class.yaml" in out
    # a path with a glob character is a path, not a pattern; an input is never script text
    code, out, _ = run_action(tmp_path, workspace, paths="deploy/*.yaml", args="$(touch pwned)")
    assert code == 2 and not (workspace / "pwned").exists()


def test_the_install_step_pins_the_locked_versions_as_constraints(tmp_path):
    """The install step's sed, run on requirements.lock: one `name==version` per locked package, no hash."""
    from packaging.requirements import Requirement

    action = yaml.safe_load((ROOT / "action.yml").read_text())
    [install] = [step for step in action["runs"]["steps"] if step["name"] == "Install dra-webhook"]
    [sed] = [line.strip() for line in install["run"].splitlines() if line.strip().startswith("sed ")]
    script = tmp_path / "sed.sh"
    script.write_text(f'constraints="{tmp_path}/constraints.txt"\n{sed}\n')
    subprocess.run(["bash", str(script)], env={**os.environ, "GITHUB_ACTION_PATH": str(ROOT)}, check=True)
    lines = [line for line in (tmp_path / "constraints.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    locked = re.findall(r"^([A-Za-z0-9._-]+)==([^ \\]+)", (ROOT / "requirements.lock").read_text(), re.M)
    assert [(Requirement(line).name, str(Requirement(line).specifier)) for line in lines] == [
        (name, f"=={version}") for name, version in locked]
    assert len(locked) >= 20 and "pydantic" in dict(locked)


def test_the_action_reviews_once_and_passes_the_excludes(tmp_path, workspace):
    (workspace / "charts" / "x" / "templates").mkdir(parents=True)
    (workspace / "charts" / "x" / "templates" / "class.yaml").write_text("metadata:\n  name: {{ .Values.name }}\n")
    (workspace / "deploy" / "bad.generated.yaml").write_text(DENIED)
    code, out, _ = run_action(tmp_path, workspace, paths=".", exclude="charts/*/templates *.generated.yaml",
                              sarif="dra.sarif")
    assert code == 0, out
    assert out.count("object(s):") == 1  # one review, whose SARIF went to the file
    [review] = [step["run"] for step in yaml.safe_load((ROOT / "action.yml").read_text())["runs"]["steps"]
                if step["name"] == "Review DRA manifests"]
    assert review.count("dra-webhook review ") == 1
    results = json.loads((workspace / "dra.sarif").read_text())["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["warning/deprecated-api", "warning/opt-in-api"]


def test_one_version_number_shown_by_version():
    from importlib.metadata import version

    import webhook
    from support import cli

    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject and 'version = { attr = "webhook.__version__" }' in pyproject
    assert version("dra-webhook") == webhook.__version__
    assert cli("--version").stdout.splitlines()[0] == f"dra-webhook {webhook.__version__}"
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "## [Unreleased]" in changelog and f"## [{webhook.__version__}]" in changelog
