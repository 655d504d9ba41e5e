"""Hostile inputs to the offline commands (issue 21): what a pull request's manifests may hold when a CI
job reviews them. Each is refused or escaped for that input alone; the other inputs are still reviewed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from webhook.offline.results import EXIT_INPUT

ROOT = Path(__file__).resolve().parent.parent
VALID = str(ROOT / "examples" / "gpu-driver" / "deviceclasses.yaml")


def alias_bomb(levels: int = 8) -> str:
    """A ResourceClaim whose opaque parameters expand to 10^(levels+1) nodes (about 800 bytes)."""
    lines = ["apiVersion: resource.k8s.io/v1", "kind: ResourceClaim", "metadata: {name: bomb, namespace: default}",
             "spec:", "  devices:", "    requests: [{name: r, exactly: {deviceClassName: gpu.example.com}}]",
             "    config:", "    - opaque:", "        driver: gpu.example.com", "        parameters:",
             "          a: &a [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"          {chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]"
              for i in range(levels)]
    return "\n".join(lines) + "\n"


def run_measured(tmp_path: Path, *args: str, timeout: float = 60) -> tuple[subprocess.CompletedProcess, float, int]:
    """`dra-webhook ARGS` in a fresh process: the result, its wall time and its own peak RSS in bytes
    (from wait4, so no other child counts)."""
    import threading

    out_file, err_file = tmp_path / "stdout", tmp_path / "stderr"
    started = time.monotonic()
    with out_file.open("w") as out, err_file.open("w") as err:
        process = subprocess.Popen([sys.executable, "-m", "webhook", *args], stdout=out, stderr=err)
    timer = threading.Timer(timeout, process.kill)
    timer.start()
    try:
        _, status, usage = os.wait4(process.pid, 0)
    finally:
        timer.cancel()
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
    seconds = time.monotonic() - started
    result = subprocess.CompletedProcess(process.args, process.returncode, out_file.read_text(), err_file.read_text())
    return result, seconds, usage.ru_maxrss * 1024


def test_alias_bomb_is_refused_quickly_and_small_and_the_other_input_still_reviewed(tmp_path):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(alias_bomb())
    assert len(bomb.read_bytes()) < 1024
    result, seconds, peak = run_measured(tmp_path, "review", str(bomb), VALID)
    assert result.returncode == EXIT_INPUT, result.stdout + result.stderr
    assert "YAML aliases expand beyond 250,000 nodes in a document; refused" in result.stdout
    assert "3 allowed" in result.stdout and "1 unreadable" in result.stdout
    assert "Traceback" not in result.stderr
    assert seconds < 15 and peak < 512 * 2**20, (seconds, peak)  # measured: 0.4 s, 47 MiB


# --- output injection: what a manifest names must not forge a line, a workflow command or an escape ----

EVIL = "x\n::error file=README.md,line=1::forged\r\n::add-mask::secret\x1b]0;title\x07\x1b[31m\u202eexe.yaml\ud800"
FORMATS = ("text", "tap", "github", "junit", "sarif", "json")


def _evil_inputs(tmp_path: Path) -> list[str]:
    import json

    named = tmp_path / "evil.json"  # JSON keeps the lone surrogate a YAML file cannot hold
    named.write_text(json.dumps({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                                 "metadata": {"name": EVIL, "labels": {EVIL: EVIL}}}))
    in_name = tmp_path / "a\n::error file=README.md::forged\x1b[2J.yaml"  # a file name is the user's too
    in_name.write_text("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: 'Bad_Name'}\n")
    return [str(named), str(in_name), VALID]


def _assert_no_injection(out: str) -> None:
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out and "\r" not in out
    assert not any(0xD800 <= ord(c) <= 0xDFFF for c in out)
    for line in out.splitlines():
        assert not line.startswith(("::error file=README.md", "::add-mask::")), line


def test_names_from_the_inputs_are_escaped_in_every_output_format(tmp_path, capsys):
    import json
    from xml.etree import ElementTree as ET

    from webhook import cli

    paths = _evil_inputs(tmp_path)
    for output in FORMATS:
        code = cli.main(["review", "-o", output, *paths])
        out = capsys.readouterr().out
        assert code == 1, (output, out)
        _assert_no_injection(out)
        if output in ("text", "tap"):
            assert "x\\n::error file=README.md" in out and "\\x1b]0;title\\x07" in out and "\\u202eexe" in out
        elif output == "junit":
            ET.fromstring(out.split("\n", 1)[1])  # well-formed XML (the declaration aside)
        elif output in ("sarif", "json"):
            json.loads(out)
        elif output == "github":  # each annotation stays one line: ours are the only commands
            assert sum(line.startswith("::error ") for line in out.splitlines()) == 2


def test_a_file_name_is_escaped_on_stderr(tmp_path):
    from support import cli as run_cli

    result = run_cli("test", str(tmp_path / "missing\x1b[2J\n::error::forged.yaml"))
    assert result.returncode == 2
    _assert_no_injection(result.stdout + result.stderr)
    assert "missing\\x1b[2J\\n::error::forged.yaml" in result.stdout + result.stderr


# --- inputs that cannot be parsed or are too large: an error for that input, the others still reviewed ----

def _hostile_inputs(tmp_path: Path) -> dict[str, Path]:
    head = '{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": '
    files = {
        "deep.json": "[" * 100_000 + "]" * 100_000,
        "deepflow.yaml": "a: " + "[" * 100_000 + "]" * 100_000 + "\n",
        "digits.yaml": "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: x, generation: "
                       + "9" * 5_000 + "}\n",
        "digits.json": head + '"x", "generation": ' + "9" * 5_000 + "}}",
        "surrogate.json": head + '"x", "annotations": {"a": "\\ud800"}}}',
        "bomb.yaml": alias_bomb(),
    }
    paths = {}
    for name, text in files.items():
        paths[name] = tmp_path / name
        paths[name].write_text(text)
    huge = paths["huge.yaml"] = tmp_path / "huge.yaml"
    with huge.open("wb") as file:  # sparse: 100 MiB of nothing, over the default 64 MiB
        file.truncate(100 * 2**20)
    return paths


def test_unparsable_and_huge_inputs_are_errors_of_their_own_next_to_a_valid_file(tmp_path):
    import json

    from support import cli as run_cli

    paths = _hostile_inputs(tmp_path)
    result = run_cli("review", "-o", "json", *map(str, paths.values()), VALID, timeout=60)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == EXIT_INPUT, result.stdout
    report = json.loads(result.stdout)
    why = {Path(item["file"]).name: item["messages"][0]["message"] for item in report["results"]
           if item["verdict"] == "unreadable"}
    assert why == {
        "deep.json": "cannot parse: nested too deeply",
        "deepflow.yaml": "cannot parse: while increasing flow level, exceeded maximum nesting depth (line 1, "
                         "column 1003)",
        "digits.yaml": "cannot parse: a number of 5,000 digits is too long to read (at most 4,300)",
        "digits.json": "cannot parse: a number of 5,000 digits is too long to read (at most 4,300)",
        "bomb.yaml": "cannot parse: YAML aliases expand beyond 250,000 nodes in a document; refused (line 16, "
                     "column 22)",
        "huge.yaml": "cannot read: larger than 64 MiB (--max-input-bytes); refused",
    }
    verdicts = {item["name"]: item["verdict"] for item in report["results"] if item["verdict"] != "unreadable"}
    assert verdicts == {"DeviceClass/x (CREATE)": "allowed",  # the surrogate, as Go decodes it: U+FFFD
                        "DeviceClass/gpu.example.com (CREATE)": "allowed",
                        "DeviceClass/gpu-40gi.gpu.example.com (CREATE)": "allowed",
                        "DeviceClass/h100-full.gpu.example.com (CREATE)": "allowed"}


def test_a_lone_surrogate_is_read_as_go_reads_it(tmp_path, capsys):
    import json

    from webhook import cli

    bad = tmp_path / "bad.json"
    bad.write_text('{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "x\\udc00y"}}')
    assert cli.main(["review", "-o", "json", str(bad)]) == 1
    message = json.loads(capsys.readouterr().out)["results"][0]["messages"][0]["message"]
    assert 'Invalid value: "x\ufffdy"' in message


def test_an_endless_input_is_refused_at_the_limit(tmp_path):
    from support import cli as run_cli

    endless = "/dev/zero" if Path("/dev/zero").exists() else str(tmp_path / "big.yaml")
    if endless != "/dev/zero":
        Path(endless).write_text("# " + "x" * 4 * 2**20 + "\n")
    for command in (["review"], ["allocate"], ["test"]):
        result = run_cli(*command, "--max-input-bytes", "1Mi", endless, timeout=60)
        assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr, result.stderr
        assert result.returncode == EXIT_INPUT, (command, result.stdout, result.stderr)
        assert "larger than 1 MiB (--max-input-bytes); refused" in result.stdout + result.stderr
    with_stdin = run_cli("review", "--max-input-bytes", "1Ki", "-", input="# " + "x" * 2048 + "\n")
    assert with_stdin.returncode == EXIT_INPUT and "larger than 1 KiB" in with_stdin.stdout


def test_suites_and_allocate_report_hostile_inputs_without_a_traceback(tmp_path):
    from support import cli as run_cli

    paths = _hostile_inputs(tmp_path)
    tests = "".join(f"- name: {name}\n  object: {name}\n  expect: {{allowed: true}}\n"
                    for name in ("deep.json", "digits.yaml", "bomb.yaml", "huge.yaml"))
    (tmp_path / "suite.yaml").write_text(f"apiVersion: dra-webhook/v1alpha1\nkind: TestSuite\ntests:\n{tests}")
    (tmp_path / "bombsuite.yaml").write_text("apiVersion: dra-webhook/v1alpha1\nkind: TestSuite\n"
                                             + alias_bomb().split("\n", 3)[3].replace("spec:", "x:", 1))
    result = run_cli("test", str(tmp_path / "suite.yaml"), str(tmp_path / "bombsuite.yaml"), timeout=60)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == EXIT_INPUT, result.stdout
    assert result.stdout.count("nested too deeply") == 1 and "5,000 digits" in result.stdout
    assert result.stdout.count("YAML aliases expand beyond 250,000 nodes") == 2
    assert "larger than 64 MiB" in result.stdout
    allocated = run_cli("allocate", *(str(paths[n]) for n in ("deep.json", "digits.json", "bomb.yaml")), VALID)
    assert "Traceback" not in allocated.stderr and allocated.returncode == EXIT_INPUT, allocated.stderr
    assert allocated.stderr.count("dra-webhook allocate: ") == 3


# --- seeded fuzzing of the offline inputs: hostile shapes, every output format, never a crash -------------

FUZZ_SEED = 2026_12_02
FUZZ_FILES = 24
_HEAD = "apiVersion: resource.k8s.io/v1\nkind: {kind}\nmetadata: {{name: {name}, namespace: default}}\n"


def _hostile_shape(rng) -> tuple[str, str]:
    """(suffix, text) of one hostile input, chosen and sized by `rng`."""
    import json

    kind = rng.choice(["DeviceClass", "ResourceClaim", "ResourceSlice", "ResourceClaimTemplate"])
    evil = "".join(rng.choice(["a", "\n", "\x1b[2J", "\x1b]8;;x\x07", "\u202e", "\x9b", "::error::", "%0A", "\x00"])
                   for _ in range(rng.randint(1, 12)))
    shape = rng.randrange(8)
    if shape == 0:  # aliases, from harmless to a bomb
        width, levels = rng.randint(2, 12), rng.randint(1, 9)
        lines = ["spec:", "  x: &a0 [" + ", ".join(["v"] * width) + "]"]
        lines += [f"  x{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]" for i in range(1, levels)]
        return ".yaml", _HEAD.format(kind=kind, name="bomb") + "\n".join(lines) + "\n"
    if shape == 1:  # nesting, in flow YAML or JSON
        depth = rng.choice([10, 900, 1_001, 5_000, 50_000])
        body = "[" * depth + "]" * depth
        if rng.random() < 0.5:
            return ".json", '{"apiVersion": "resource.k8s.io/v1", "kind": "%s", "metadata": {"name": "d"}, ' \
                            '"spec": {"x": %s}}' % (kind, body)
        return ".yaml", _HEAD.format(kind=kind, name="d") + f"spec: {{x: {body}}}\n"
    if shape == 2:  # long numbers
        digits = "9" * rng.choice([19, 400, 4_300, 4_301, 20_000])
        suffix = rng.choice([".yaml", ".json"])
        if suffix == ".json":
            return suffix, '{"apiVersion": "resource.k8s.io/v1", "kind": "%s", "metadata": {"name": "n", ' \
                           '"generation": %s}}' % (kind, digits)
        return suffix, _HEAD.format(kind=kind, name="n") + f"spec: {{x: {digits}}}\n"
    if shape == 3:  # surrogates and control characters in JSON strings
        name = rng.choice(["\\ud800", "\\udfff", "x\\ud83d", "\\u001b[31m", "\\u202e", "a\\u0000b"])
        return ".json", '{"apiVersion": "resource.k8s.io/v1", "kind": "%s", "metadata": {"name": "%s", ' \
                        '"labels": {"%s": "%s"}}}' % (kind, name, name, name)
    if shape == 4:  # names that would forge lines, commands or escapes
        return ".json", json.dumps({"apiVersion": "resource.k8s.io/v1", "kind": kind,
                                    "metadata": {"name": evil, "namespace": evil, "annotations": {evil: evil}}})
    if shape == 5:  # not text at all
        return ".yaml", bytes(rng.randrange(256) for _ in range(rng.randint(1, 64))).decode("latin-1")
    if shape == 6:  # broken YAML of every sort
        return ".yaml", rng.choice(["a: [\n", "? [a]\n: 1\n", "*nowhere\n", "a: &x 1\nb: &x 2\n", "x: &s 1\n<<: *s\n",
                                    "--- !!binary '%%%'\n", "\t- tab\n", "a: 'unterminated\n"])
    return rng.choice([".yaml", ".json"]), rng.choice(["[]", "42", '"text"'])  # documents that are no object


def test_fuzz_hostile_inputs_in_every_output_format(tmp_path, capsys):
    import json
    import random
    from xml.etree import ElementTree as ET

    from webhook import cli

    rng = random.Random(FUZZ_SEED)
    paths = []
    for index in range(FUZZ_FILES):
        suffix, text = _hostile_shape(rng)
        path = tmp_path / f"input-{index}{suffix}"
        path.write_bytes(text.encode("utf-8", "surrogatepass") if rng.random() < 0.9 else text.encode("latin-1"))
        paths.append(str(path))
    started = time.monotonic()
    for output in FORMATS:
        code = cli.main(["review", "-o", output, *paths, VALID])
        out = capsys.readouterr().out
        assert code in (1, 2), (output, out[-500:])
        _assert_no_injection(out)
        if output == "junit":
            ET.fromstring(out.split("\n", 1)[1])
        elif output == "sarif":
            json.loads(out)
        elif output == "json":
            results = json.loads(out)["results"]
            assert len({item["file"] for item in results}) == FUZZ_FILES + 1  # every input has its result
            assert [item["verdict"] for item in results if item["file"] == VALID] == ["allowed"] * 3
    assert cli.main(["review", "--jobs", "2", *paths, VALID]) in (1, 2)  # parts in worker processes
    _assert_no_injection(capsys.readouterr().out)
    assert cli.main(["allocate", *paths, VALID]) == 2  # allocate needs every input: it names each it cannot use
    err = capsys.readouterr().err
    _assert_no_injection(err)
    assert "Traceback" not in err
    assert time.monotonic() - started < 60  # measured: about 1 s
