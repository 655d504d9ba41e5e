"""What bit new users: certificates replaced behind their back, bad hosts in certificates, a mistyped flag
answered with the wrong usage, pre-commit hooks that split or skip work, versions nobody could see."""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import httpx
import jsonschema
import pytest
import yaml
from cryptography import x509

from support import cli, free_port, stop_process, valid_slice
from webhook import certs

ROOT = Path(__file__).resolve().parent.parent


# --- certs --out: an existing CA is not replaced without --force --------------------------------------


def test_certs_refuses_to_replace_an_existing_ca_without_force(tmp_path):
    out = tmp_path / "certs"
    assert cli("certs", "--out", str(out)).returncode == 0
    ca_key, ca_cert = (out / "ca.key").read_bytes(), (out / "ca.crt").read_bytes()
    result = cli("certs", "--out", str(out))
    assert result.returncode == 2
    assert f"{out}: ca.crt, ca.key, tls.crt, tls.key already there: refusing to replace them (the CA" in result.stderr
    assert "--force" in result.stderr
    assert (out / "ca.key").read_bytes() == ca_key and (out / "ca.crt").read_bytes() == ca_cert
    result = cli("certs", "--out", str(out), "--force")
    assert result.returncode == 0 and (out / "ca.key").read_bytes() != ca_key


@pytest.mark.parametrize("hosts", ["bad host!", "UPPER.example.com", "a..b", "-lead.example.com", "x" * 64 + ".com"])
def test_certs_refuses_invalid_hosts_and_writes_nothing(tmp_path, hosts):
    result = cli("certs", "--out", str(tmp_path / "certs"), "--hosts", f"ok.example.com,{hosts}")
    assert result.returncode == 2
    assert f"--hosts: {hosts!r} is neither an IP address nor a DNS name" in result.stderr
    assert not (tmp_path / "certs").exists()


def test_certs_accepts_dns_names_wildcards_and_addresses(tmp_path):
    assert certs.parse_hosts(" a.example.com, *.svc.example.com ,10.0.0.1,::1,") == [
        "a.example.com", "*.svc.example.com", "10.0.0.1", "::1"]
    result = cli("certs", "--out", str(tmp_path / "c"), "--hosts", "webhook.example.com,192.0.2.4")
    assert result.returncode == 0
    cert = x509.load_pem_x509_certificate((tmp_path / "c/tls.crt").read_bytes())
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "webhook.example.com" in names.get_values_for_type(x509.DNSName)


# --- serve --cert-dir: a valid CA pair survives restarts ---------------------------------------------


def _serve(cert_dir: Path, log: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    with open(log, "a") as out:
        process = subprocess.Popen([sys.executable, "-m", "webhook", "serve", "--host", "127.0.0.1", "--port",
                                    str(port), "--cert-dir", str(cert_dir)], stdout=out, stderr=subprocess.STDOUT,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
    return process, f"https://127.0.0.1:{port}"


def _healthy(process: subprocess.Popen, url: str, ca_file: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, "server exited early"
        if ca_file.exists():
            try:
                with httpx.Client(verify=ssl.create_default_context(cafile=str(ca_file)), timeout=5) as client:
                    if client.get(url + "/healthz").status_code == 200:
                        return
            except httpx.HTTPError:
                pass
        time.sleep(0.1)
    raise AssertionError("server did not become healthy")




def test_serve_cert_dir_reuses_a_valid_ca_across_restarts(tmp_path):
    cert_dir, log = tmp_path / "certs", tmp_path / "serve.log"
    process, url = _serve(cert_dir, log)
    try:
        _healthy(process, url, cert_dir / "ca.crt")
    finally:
        stop_process(process)
    first = {name: (cert_dir / name).read_bytes() for name in ("ca.crt", "ca.key", "tls.crt", "tls.key")}
    trusted = tmp_path / "trusted-ca.crt"  # what an overlay was built with
    trusted.write_bytes(first["ca.crt"])
    process, url = _serve(cert_dir, log)
    try:
        _healthy(process, url, trusted)  # the client trusting the first CA still connects
    finally:
        stop_process(process)
    assert {name: (cert_dir / name).read_bytes() for name in first} == first
    assert '"reused certificates"' in log.read_text() or "reused certificates" in log.read_text()


def test_ensure_reissues_an_expiring_serving_pair_from_the_same_ca(tmp_path):
    files, reused = certs.ensure(tmp_path)
    assert not reused
    ca, serving = files.ca_cert.read_bytes(), files.cert.read_bytes()
    assert certs.ensure(tmp_path) == (files, True)
    later = datetime.now(timezone.utc) + timedelta(days=400)  # serving pair expired, CA still valid
    assert certs.ensure(tmp_path, now=later) == (files, False)
    assert files.ca_cert.read_bytes() == ca and files.cert.read_bytes() != serving
    x509.load_pem_x509_certificate(files.cert.read_bytes()).verify_directly_issued_by(
        x509.load_pem_x509_certificate(ca))
    files.ca_key.write_text("not a key")  # a broken CA pair: start over
    assert certs.ensure(tmp_path) == (files, False) and files.ca_cert.read_bytes() != ca


def test_ensure_reissues_when_a_host_is_missing(tmp_path):
    files, _ = certs.ensure(tmp_path)
    ca = files.ca_cert.read_bytes()
    assert certs.ensure(tmp_path, hosts=["10.1.2.3"]) == (files, False)
    assert certs.ensure(tmp_path, hosts=["10.1.2.3"]) == (files, True) and files.ca_cert.read_bytes() == ca


# --- usage ------------------------------------------------------------------------------------------


def test_a_mistyped_flag_gets_the_command_usage_and_a_suggestion(tmp_path):
    result = cli("review", "--ouput", "json", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.startswith("usage: dra-webhook review ")
    assert "unrecognized arguments: --ouput (did you mean --output?)" in result.stderr


def test_version_names_the_rules_and_the_cel_engine():
    result = cli("--version")
    lines = result.stdout.splitlines()
    assert result.returncode == 0 and lines[0].startswith("dra-webhook ")
    assert lines[1].startswith("Kubernetes rules: 1.36 (default); --kubernetes-version ")
    assert lines[2].startswith("CEL engine: cel-expr (cel-expr-python ") or lines[2].startswith(
        "CEL engine: cel-python (cel-python ")


def test_now_must_be_rfc3339_with_a_zone(tmp_path):
    result = cli("review", "--now", "2026-01-01T00:00:00", str(tmp_path))
    assert result.returncode == 2 and "has no time zone" in result.stderr
    result = cli("review", "--now", "tomorrow", str(tmp_path))
    assert result.returncode == 2 and "is not an RFC 3339 time" in result.stderr


# --- pre-commit hooks -------------------------------------------------------------------------------


def _hooks() -> dict[str, dict]:
    return {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}


def test_review_hook_runs_once_over_yaml_and_json_files(tmp_path):
    hook = _hooks()["dra-webhook-review"]
    assert hook["require_serial"] is True  # one process: one summary, one exit code
    assert set(hook["types_or"]) == {"yaml", "json"}  # recorded AdmissionReviews are .json
    review_json = ROOT / "examples/testdata/review-delete-slice.json"
    manifests = sorted(str(p) for p in (ROOT / "examples/gpu-driver").glob("*.yaml"))
    result = subprocess.run([*hook["entry"].split(), *manifests, str(review_json)], capture_output=True, text=True,
                            cwd=ROOT, env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"})
    assert result.returncode == 0, result.stdout
    assert result.stdout.count("object(s):") == 1 and "11 object(s)" in result.stdout


def test_test_hook_needs_no_args(tmp_path):
    hook = _hooks()["dra-webhook-test"]
    assert "args" not in hook and hook["pass_filenames"] is False
    result = subprocess.run(hook["entry"].split(), capture_output=True, text=True, cwd=ROOT,
                            env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "exit 0: every test passed"


# --- the TestSuite schema is published -------------------------------------------------------------


def test_published_suite_schema_is_current_and_accepts_the_examples():
    published = (ROOT / "schemas/testsuite.schema.json").read_text()
    assert cli("test", "--schema").stdout == published  # regenerate with: dra-webhook test --schema
    schema = json.loads(published)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(yaml.safe_load((ROOT / "examples/suite.yaml").read_text()), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"apiVersion": "dra-webhook/v1alpha1", "kind": "TestSuite",
                             "tests": [{"name": "t", "object": valid_slice(), "expect": {"allowed": True},
                                        "expected": 1}]}, schema)


# --- shell completion -------------------------------------------------------------------------------


@pytest.mark.parametrize("words, expected", [
    ("dra-webhook re", "review"),
    ("dra-webhook review --ou", "--output"),
    ("dra-webhook review -o s", "sarif"),
    ("dra-webhook test --output j", "json junit"),
    ("dra-webhook certs --key-type r", "rsa"),
    ("dra-webhook --ver", "--version"),
])
def test_bash_completion_completes_commands_flags_and_choices(words, expected):
    script = cli("completion", "bash").stdout
    line = (f"{script}\nCOMP_WORDS=({words}); COMP_CWORD={len(words.split()) - 1}; _dra_webhook; "
            f"echo \"${{COMPREPLY[*]}}\"")
    result = subprocess.run(["bash", "-c", line], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected


def test_zsh_completion_loads_the_bash_script_through_bashcompinit():
    script = cli("completion", "zsh").stdout
    assert script.startswith("autoload -U +X bashcompinit && bashcompinit\n") and "_dra_webhook()" in script
