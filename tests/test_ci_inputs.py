"""`review` in CI: every byte of every input accounted for, what is not a Kubernetes object skipped (never
denied), and flag values that cannot mean anything refused as usage errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import cli

ROOT = Path(__file__).resolve().parent.parent
DEVICE_CLASS = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\n"
INVALID_CLAIM = ("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: Bad_Name\n"
                 "spec:\n  devices:\n    requests: []\n")

# What a repository holds next to its manifests: none of it is a Kubernetes object but the ConfigMap.
REPOSITORY = {
    ".pre-commit-config.yaml": "repos:\n  - repo: https://example.com/dra-webhook\n    rev: v0.1.0\n"
                               "    hooks:\n      - id: dra-webhook-review\n",
    ".github/workflows/ci.yaml": "name: ci\non: [push]\njobs:\n  check:\n    runs-on: ubuntu-latest\n"
                                 "    steps:\n      - uses: actions/checkout@v4\n",
    "charts/gpu/values.yaml": "replicaCount: 1\nimage:\n  repository: example.com/gpu\n  tag: latest\n",
    "charts/gpu/Chart.yaml": "apiVersion: v2\nname: gpu\nversion: 0.1.0\n",  # Helm's apiVersion, no kind
    "deploy/configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n",
    "deploy/deviceclass.yaml": DEVICE_CLASS,
    "hooks.yaml": "- id: one\n  entry: true\n",  # a list, as .pre-commit-hooks.yaml is
    "package.json": '{"name": "x", "version": "1.0.0"}\n',
}


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _review_bytes(*args: str, stdin: bytes, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    return subprocess.run([sys.executable, "-m", "webhook", "review", *args], input=stdin, capture_output=True,
                          cwd=cwd, timeout=60, env=env)


def test_a_repository_tree_passes_when_its_only_dra_object_is_valid(tmp_path):
    _tree(tmp_path, REPOSITORY)
    result = cli("review", ".", "-o", "json", cwd=str(tmp_path))
    report = json.loads(result.stdout)
    assert result.returncode == 0, result.stdout
    verdicts = {(item["file"], item["verdict"]) for item in report["results"]}
    # hidden directories and files skipped unless named: the workflow and the pre-commit config are not read
    assert verdicts == {("charts/gpu/Chart.yaml", "skipped"), ("charts/gpu/values.yaml", "skipped"),
                        ("deploy/configmap.yaml", "skipped"), ("deploy/deviceclass.yaml", "allowed"),
                        ("hooks.yaml", "skipped"), ("package.json", "skipped")}
    assert report["summary"]["allowed"] == 1 and report["summary"]["skipped"] == 5
    # a document that names one of our kinds (or resource.k8s.io) but is malformed still fails
    (tmp_path / "deploy" / "broken.yaml").write_text("kind: DeviceClass\nmetadata:\n  name: gpu\n---\n"
                                                     "apiVersion: resource.k8s.io/v1\nmetadata:\n  name: x\n")
    result = cli("review", ".", cwd=str(tmp_path))
    assert result.returncode == 1
    assert "  apiVersion not set\n" in result.stdout and "  kind not set\n" in result.stdout


def test_our_pre_commit_hook_passes_a_repository_with_its_own_config(tmp_path):
    """The review hook as pre-commit runs it: its entry, then every YAML and JSON file by name (types_or),
    hidden ones included; our own hooks file is one of them."""
    import shlex

    import yaml

    hook = next(h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
                if h["id"] == "dra-webhook-review")
    assert hook["types_or"] == ["yaml", "json"] and "files" not in hook
    _tree(tmp_path, {**REPOSITORY, ".pre-commit-hooks.yaml": (ROOT / ".pre-commit-hooks.yaml").read_text()})
    names = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    assert ".pre-commit-config.yaml" in names and ".github/workflows/ci.yaml" in names
    entry = shlex.split(hook["entry"])
    assert entry[:2] == ["dra-webhook", "review"]
    result = cli(*entry[1:], *hook.get("args", []), *names, "-v", cwd=str(tmp_path))
    assert result.returncode == 0, result.stdout
    assert any(line.startswith(".pre-commit-config.yaml") and line.endswith(": document: skipped")
               for line in result.stdout.splitlines())
    assert "not a Kubernetes object (no apiVersion, no kind)" in result.stdout
    assert result.stdout.splitlines()[-2] == "9 object(s): 1 allowed, 0 denied, 0 unreadable, 8 skipped"


def test_a_non_utf8_byte_on_stdin_next_to_a_valid_file_fails(tmp_path):
    valid = tmp_path / "class.yaml"
    valid.write_text(DEVICE_CLASS)
    stdin = INVALID_CLAIM.encode() + b"# r\xe9sum\xe9\n"
    result = _review_bytes("-", str(valid), stdin=stdin)
    out = result.stdout.decode()
    assert result.returncode == 2, out
    line = INVALID_CLAIM.count("\n") + 1
    assert (f"<stdin>:{line}: file: unreadable\n  cannot read: not UTF-8 text (byte 0xe9 at offset "
            f"{len(INVALID_CLAIM) + 3}, line {line}); save it as UTF-8") in out
    assert out.splitlines()[-1] == "exit 2: 1 input(s) could not be used"
    # a denial still wins over an unreadable neighbour
    result = _review_bytes("-", str(valid), stdin=b"\xff" + INVALID_CLAIM.encode())
    assert result.returncode == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text(INVALID_CLAIM)
    result = _review_bytes("-", str(bad), stdin=b"\xff")
    assert result.returncode == 1 and "also 1 could not be used" in result.stdout.decode()


def test_stdin_alone_gets_the_same_message_as_a_file(tmp_path):
    data = b"apiVersion: v1\n# caf\xe9\n"
    path = tmp_path / "latin1.yaml"
    path.write_bytes(data)
    from_file = _review_bytes(str(path), stdin=b"").stdout.decode()
    from_stdin = _review_bytes("-", stdin=data).stdout.decode()
    assert from_stdin == from_file.replace(str(path), "<stdin>")
    assert "not UTF-8 text (byte 0xe9 at offset 20, line 2); save it as UTF-8" in from_stdin


@pytest.mark.parametrize("data, why", [
    (b"\xff\xfe" + DEVICE_CLASS.encode("utf-16-le"), "(byte 0xff at offset 0, line 1); UTF-16 text (it starts with a "
                                                      "byte order mark): save it as UTF-8"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "(byte 0x89 at offset 0, line 1); a binary file?"),
    # a truncated character in a comment of the second document, after a valid first one
    (DEVICE_CLASS.encode() + b"---\n" + DEVICE_CLASS.encode() + b"# \xc3\n",
     f"at offset {2 * len(DEVICE_CLASS) + 6}, line {2 * DEVICE_CLASS.count(chr(10)) + 2}); save it as UTF-8"),
])
def test_every_encoding_problem_is_that_inputs_error_on_stdin_and_in_files(tmp_path, data, why):
    path = tmp_path / "input.yaml"
    path.write_bytes(data)
    for args, stdin in (([str(path)], b""), (["-"], data)):
        result = _review_bytes(*args, stdin=stdin)
        out = result.stdout.decode()
        assert result.returncode == 2 and "cannot read: not UTF-8 text " in out and why in out, out
        assert out.splitlines()[-2] == "1 object(s): 0 allowed, 0 denied, 1 unreadable, 0 skipped"


def test_stdin_twice_is_a_usage_error(tmp_path):
    result = cli("review", "-", "-", input=DEVICE_CLASS)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == "dra-webhook review: standard input cannot be used for multiple arguments\n"


@pytest.mark.parametrize("flag, value, message", [
    ("--kinds", "Bogus", "argument --kinds: unknown kind Bogus; the kinds: ResourceSlice, ResourceClaim,"),
    ("--kinds", "DeviceClas", "unknown kind DeviceClas;"),
    ("--kinds", "", "argument --kinds: no kind given; the kinds: ResourceSlice"),
    ("--kinds", " , ", "no kind given"),
    ("--skip-kinds", "DeviceClass,Bogus,Other", "argument --skip-kinds: unknown kinds Bogus, Other; the kinds:"),
    ("--kinds", "Bad\x1b[31m", "unknown kind Bad\\x1b[31m; the kinds:"),  # the user's text, escaped
])
def test_kinds_that_cannot_mean_anything_are_usage_errors(tmp_path, flag, value, message):
    path = tmp_path / "class.yaml"
    path.write_text(DEVICE_CLASS)
    result = cli("review", str(path), flag, value)
    assert result.returncode == 2 and result.stdout == ""
    assert message in result.stderr and "DeviceTaintRule" in result.stderr


def test_nothing_found_says_what_was_searched(tmp_path):
    _tree(tmp_path, {".hidden/class.yaml": DEVICE_CLASS, "notes.txt": "x"})
    result = cli("review", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr == (f"dra-webhook review: no object found: searched {tmp_path} for *.yaml, *.yml, *.json "
                             "(directories recursively, hidden files and directories skipped unless named): "
                             "no file found\n")


@pytest.mark.parametrize("output", ["text", "json", "tap"])
def test_a_reader_that_stops_early_gets_the_verdicts_exit_code_quietly(tmp_path, output):
    """`review ... | head -1`: the reader leaves after one line of far more than a pipe holds."""
    documents = [DEVICE_CLASS.replace("gpu.example.com", f"gpu-{i}.example.com") for i in range(1500)]
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    for denied in (False, True):
        if denied:
            documents[0] = INVALID_CLAIM
        path = tmp_path / "many.yaml"
        path.write_text("---\n".join(documents))
        process = subprocess.Popen([sys.executable, "-m", "webhook", "review", str(path), "-v", "-o", output],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        first = process.stdout.readline()
        process.stdout.close()  # as head does after its line
        stderr = process.stderr.read()
        assert process.wait(timeout=60) == (1 if denied else 0)
        assert first and stderr == b""


def test_the_json_summary_keys_are_identifiers(tmp_path):
    suite = tmp_path / "suite.yaml"
    suite.write_text("apiVersion: dra-webhook/v1alpha1\nkind: TestSuite\ntests: 3\n")
    result = cli("test", str(suite), "-o", "json")
    summary = json.loads(result.stdout)["summary"]
    assert summary["invalid_suite"] == 1 and "invalid suite" not in summary
    assert all(" " not in key for key in summary) and result.returncode == 2


def test_version_into_a_reader_that_left_ends_quietly():
    """`dra-webhook --version | true`: the reader is gone before the first write (argparse's --help copes)."""
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    read, write = os.pipe()
    os.close(read)  # no reader at all
    try:
        result = subprocess.run([sys.executable, "-m", "webhook", "--version"], stdout=write, stderr=subprocess.PIPE,
                                env=env, timeout=60)
    finally:
        os.close(write)
    assert (result.returncode, result.stderr) == (0, b"")


# --exclude and templates ----------------------------------------------------------------------------

BAD_CLASS = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: Bad_Name}\nspec: {}\n"
GOOD_CLASS = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec: {}\n"
HELM = ("# {{ a comment is not the template }}\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n"
        "  name: {{ .Values.name }}\n  labels:\n    {{- include \"x.labels\" . | nindent 4 }}\nspec: {}\n")


def test_exclude_leaves_out_matching_files_and_directories(tmp_path):
    for name, text in {"charts/gpu/templates/class.yaml": HELM, "manifests/bad.generated.yaml": BAD_CLASS,
                       "manifests/good.yaml": GOOD_CLASS}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    everything = cli("review", ".", cwd=str(tmp_path))
    assert everything.returncode == 1 and "3 object(s)" in everything.stdout
    result = cli("review", ".", "--exclude", "charts/*/templates", "--exclude", "*.generated.yaml",
                 cwd=str(tmp_path))
    assert result.returncode == 0, result.stdout
    assert "1 object(s): 1 allowed" in result.stdout and "templates" not in result.stdout
    # Given as a directory path too, with ./ on either side, and a file named on the command line.
    result = cli("review", "manifests", "./charts", "--exclude", "./charts", "--exclude",
                 "manifests/bad.generated.yaml", cwd=str(tmp_path))
    assert result.returncode == 0 and "1 object(s): 1 allowed" in result.stdout, result.stdout
    nothing = cli("review", str(tmp_path / "manifests" / "good.yaml"), "--exclude", "*.yaml")
    assert nothing.returncode == 2 and "no object found" in nothing.stderr


def test_a_template_is_said_to_be_one_at_its_first_braces(tmp_path):
    path = tmp_path / "class.yaml"
    path.write_text(HELM)
    result = cli("review", str(path))
    assert result.returncode == 2
    assert f"{path}:5 (document 0): document: unreadable" in result.stdout
    assert "it looks like a template ({{ ... }})" in result.stdout
    assert "`helm template RELEASE CHART | dra-webhook review -`" in result.stdout
    assert "(line 5, column 9)" in result.stdout
    assert "mapping key" not in result.stdout and "flow node" not in result.stdout
    github = cli("review", "--output", "github", str(path)).stdout
    assert f"::error file={path},line=5," in github
    # Rendered output is reviewed as any manifest.
    rendered = cli("review", "-", input=HELM.replace("{{ .Values.name }}", "gpu").replace(
        '    {{- include "x.labels" . | nindent 4 }}\n', "    app: x\n"))
    assert rendered.returncode == 0, rendered.stdout
