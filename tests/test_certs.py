"""`dra-webhook certs`: files, modes, SANs, key types, validity, chain."""

import ipaddress
import stat
from datetime import datetime, timezone

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from support import cli
from webhook import certs


@pytest.mark.parametrize("key_type,key_class", [("ecdsa", ec.EllipticCurvePrivateKey), ("rsa", rsa.RSAPrivateKey)])
def test_generate_writes_a_verifiable_pair(tmp_path, key_type, key_class):
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    files = certs.generate(tmp_path, service="hook", namespace="ns", hosts=["extra.example.com", "10.0.0.7"],
                           key_type=key_type)
    for key in (files.ca_key, files.key):
        assert stat.S_IMODE(key.stat().st_mode) == 0o600
        assert isinstance(load_pem_private_key(key.read_bytes(), None), key_class)
    if key_type == "rsa":
        assert load_pem_private_key(files.key.read_bytes(), None).key_size == 2048
    else:
        assert load_pem_private_key(files.key.read_bytes(), None).curve.name == "secp256r1"
    ca = x509.load_pem_x509_certificate(files.ca_cert.read_bytes())
    cert = x509.load_pem_x509_certificate(files.cert.read_bytes())
    cert.verify_directly_issued_by(ca)
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert set(san.get_values_for_type(x509.DNSName)) == {
        "hook", "hook.ns", "hook.ns.svc", "hook.ns.svc.cluster.local", "localhost", "extra.example.com"}
    assert set(san.get_values_for_type(x509.IPAddress)) == {
        ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1"), ipaddress.ip_address("10.0.0.7")}
    now = datetime.now(timezone.utc)
    assert cert.not_valid_before_utc < now < cert.not_valid_after_utc
    assert cert.not_valid_after_utc.tzinfo is not None
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca


def test_cli_certs(tmp_path):
    result = cli("certs", "--out", str(tmp_path / "out"), "--service", "svc", "--namespace", "team",
                 "--hosts", "a.example.com,b.example.com", "--days", "30")
    assert result.returncode == 0, result.stderr
    names = {line.rsplit("/", 1)[-1] for line in result.stdout.split()}
    assert names == {"ca.crt", "ca.key", "tls.crt", "tls.key"}
    cert = x509.load_pem_x509_certificate((tmp_path / "out" / "tls.crt").read_bytes())
    dns = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(x509.DNSName)
    assert "svc.team.svc" in dns and "b.example.com" in dns
    assert 29 <= (cert.not_valid_after_utc - cert.not_valid_before_utc).days <= 31


def test_cli_certs_rejects_bad_flags(tmp_path):
    result = cli("certs", "--out", str(tmp_path), "--key-type", "dsa")
    assert result.returncode == 2
    assert "invalid choice" in result.stderr


def test_cli_certs_never_replaces_a_file_or_follows_a_link_without_force(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim"
    (out / "ca.key").symlink_to(victim)  # dangling: it must still count as "there", and never be written through
    (out / "tls.crt").write_text("in use\n")
    result = cli("certs", "--out", str(out))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "ca.key, tls.crt already there" in result.stderr and "--force" in result.stderr
    assert not victim.exists() and (out / "tls.crt").read_text() == "in use\n"
    assert sorted(p.name for p in out.iterdir()) == ["ca.key", "tls.crt"]  # nothing written, nothing left over


def test_cli_certs_force_replaces_links_instead_of_writing_through_them(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    victims = {name: tmp_path / f"victim-{name}" for name in ("ca.key", "tls.key", "tls.crt")}
    for name, victim in victims.items():
        victim.write_text("keep me\n")
        (out / name).symlink_to(victim)
    result = cli("certs", "--out", str(out), "--force")
    assert result.returncode == 0, result.stderr
    assert all(victim.read_text() == "keep me\n" for victim in victims.values())
    for name, mode in (("ca.key", 0o600), ("tls.key", 0o600), ("ca.crt", 0o644), ("tls.crt", 0o644)):
        assert not (out / name).is_symlink() and (out / name).stat().st_mode & 0o777 == mode, name
    assert sorted(p.name for p in out.iterdir()) == ["ca.crt", "ca.key", "tls.crt", "tls.key"]
    again = cli("certs", "--out", str(out))
    assert again.returncode == 2 and "ca.crt, ca.key, tls.crt, tls.key already there" in again.stderr


def test_cli_certs_kustomize_files_are_replaced_never_written_through_a_link(tmp_path):
    from webhook.kustomize import SECRET_FILE

    overlay = tmp_path / "overlay"
    overlay.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    (overlay / SECRET_FILE).symlink_to(victim)
    result = cli("certs", "--out", str(tmp_path / "out"), "--kustomize", str(overlay))
    assert result.returncode == 0, result.stderr
    assert victim.read_text() == "keep me\n" and not (overlay / SECRET_FILE).is_symlink()
    assert (overlay / SECRET_FILE).stat().st_mode & 0o777 == 0o600


def _serve_like_make_run(workdir, cert_dir):
    """`make run`'s server: `serve --cert-dir certs`, waited for over TLS verifying the CA it made."""
    import os
    import ssl
    import subprocess
    import sys
    import time

    import httpx

    from support import free_port

    port = free_port()
    log = open(workdir / "serve.log", "w")
    process = subprocess.Popen([sys.executable, "-m", "webhook", "serve", "--host", "127.0.0.1", "--port", str(port),
                                "--cert-dir", str(cert_dir)], stdout=log, stderr=subprocess.STDOUT,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    log.close()
    url = f"https://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        assert process.poll() is None and time.monotonic() < deadline, (workdir / "serve.log").read_text()
        try:
            with httpx.Client(verify=ssl.create_default_context(cafile=str(cert_dir / "ca.crt"))) as client:
                if client.get(url + "/healthz").status_code == 200:
                    return process, url
        except (httpx.TransportError, OSError, ssl.SSLError):
            time.sleep(0.1)


def test_renew_keeps_the_ca_that_make_run_made_and_the_self_signed_install_trusts(tmp_path):
    """`make run`'s server makes certs/; the self-signed install then renews the serving pair from that CA
    instead of refusing it, and both the running server and the overlay's caBundle keep trusting one CA."""
    import base64
    import ssl

    import httpx

    from support import stop_process

    cert_dir = tmp_path / "certs"
    process, url = _serve_like_make_run(tmp_path, cert_dir)
    try:
        ca_before = (cert_dir / "ca.crt").read_bytes(), (cert_dir / "ca.key").read_bytes()
        refused = cli("certs", "--out", str(cert_dir), "--kustomize", str(tmp_path / "overlay"))
        assert refused.returncode == 2 and "refusing to replace them" in refused.stderr
        tls_before = (cert_dir / "tls.crt").read_bytes()
        result = cli("certs", "--out", str(cert_dir), "--renew", "--kustomize", str(tmp_path / "overlay"))
        assert result.returncode == 0, result.stderr
        assert ((cert_dir / "ca.crt").read_bytes(), (cert_dir / "ca.key").read_bytes()) == ca_before
        assert (cert_dir / "tls.crt").read_bytes() != tls_before
        ca = x509.load_pem_x509_certificate(ca_before[0])
        renewed = x509.load_pem_x509_certificate((cert_dir / "tls.crt").read_bytes())
        renewed.verify_directly_issued_by(ca)
        dns = renewed.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        assert "dra-webhook.dra-webhook.svc" in dns.get_values_for_type(x509.DNSName)
        patches = [p for p in (tmp_path / "overlay").iterdir() if "secret" not in p.name.lower()]
        assert patches and all(base64.b64encode(ca_before[0]).decode() in p.read_text() for p in patches)
        with httpx.Client(verify=ssl.create_default_context(cafile=str(cert_dir / "ca.crt"))) as client:
            assert client.get(url + "/healthz").status_code == 200  # still trusted by that one CA
    finally:
        stop_process(process)
    # and `make run` again reuses the renewed pair (it covers 127.0.0.1) rather than replacing anything
    renewed_pair = (cert_dir / "tls.crt").read_bytes()
    process, _ = _serve_like_make_run(tmp_path, cert_dir)
    stop_process(process)
    assert (cert_dir / "tls.crt").read_bytes() == renewed_pair and (cert_dir / "ca.crt").read_bytes() == ca_before[0]


def test_renew_makes_a_ca_only_where_there_is_none_and_never_with_force(tmp_path):
    result = cli("certs", "--out", str(tmp_path / "new"), "--renew")
    assert result.returncode == 0 and (tmp_path / "new" / "ca.key").is_file()
    both = cli("certs", "--out", str(tmp_path / "new"), "--renew", "--force")
    assert both.returncode == 2 and "choose one" in both.stderr
    (tmp_path / "new" / "ca.crt").write_text("not a certificate")
    broken = cli("certs", "--out", str(tmp_path / "new"), "--renew")
    assert broken.returncode == 2 and "not a valid CA pair" in broken.stderr
    (tmp_path / "orphan").mkdir()
    (tmp_path / "orphan" / "tls.crt").write_text("x")
    orphan = cli("certs", "--out", str(tmp_path / "orphan"), "--renew")
    assert orphan.returncode == 2 and "there is no CA" in orphan.stderr


def test_renew_refuses_a_ca_file_that_is_no_regular_file_without_blocking_or_reading_it_whole(tmp_path):
    """A FIFO planted as ca.key would block the read forever; a link to /dev/zero would fill memory: both
    are an unusable CA (exit 2), answered at once."""
    import os
    import resource
    import subprocess
    import sys

    fifo = tmp_path / "fifo"
    assert cli("certs", "--out", str(fifo)).returncode == 0
    (fifo / "ca.key").unlink()
    os.mkfifo(fifo / "ca.key")
    result = cli("certs", "--out", str(fifo), "--renew", timeout=20)
    assert result.returncode == 2 and "not a valid CA pair" in result.stderr, result.stderr

    zero = tmp_path / "zero"
    assert cli("certs", "--out", str(zero)).returncode == 0
    (zero / "ca.crt").unlink()
    (zero / "ca.crt").symlink_to("/dev/zero")

    def limit():  # an unbounded read then fails in the child at 1 GiB instead of filling the machine
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    result = subprocess.run([sys.executable, "-m", "webhook", "certs", "--out", str(zero), "--renew"],
                            capture_output=True, text=True, timeout=20, preexec_fn=limit)
    assert result.returncode == 2 and "not a valid CA pair" in result.stderr, result.stderr


def test_renew_from_an_ed25519_ca_signs_without_a_digest(tmp_path):
    """An Ed25519 CA (Go's crypto/x509 verifies it) issues the serving pair; signing it with SHA-256 was
    a traceback."""
    from datetime import timedelta

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519
    from cryptography.x509.oid import NameOID

    key = ed25519.Ed25519PrivateKey.generate()
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "ed25519 CA")])
    now = datetime.now(timezone.utc)
    ca = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
          .serial_number(1).not_valid_before(now - timedelta(days=1)).not_valid_after(now + timedelta(days=30))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True).sign(key, None))
    (tmp_path / "ca.crt").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "ca.key").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                        serialization.NoEncryption()))
    result = cli("certs", "--out", str(tmp_path), "--renew")
    assert result.returncode == 0, result.stderr
    x509.load_pem_x509_certificate((tmp_path / "tls.crt").read_bytes()).verify_directly_issued_by(ca)


def test_the_written_paths_are_escaped_one_per_line(tmp_path):
    """--out and --kustomize are echoed as the written files: a newline or an escape in them printed
    raw forged a line (a workflow command) or drove the terminal."""
    out = tmp_path / "out\x1b[31m\n::error::forged"
    overlay = tmp_path / "overlay\x07\n::add-mask::x"
    result = cli("certs", "--out", str(out), "--kustomize", str(overlay))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) >= 6 and "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert not any(line.startswith("::") for line in lines)
    assert lines[0] == str(tmp_path) + "/out\\x1b[31m\\n::error::forged/ca.crt"
    assert (out / "ca.crt").is_file()


# issue 37: inputs checked up front (exit 2, the rule named), never a traceback from the certificate library.

def test_a_legal_long_service_and_namespace_make_certificates(tmp_path):
    """40 + 20 characters: `service.namespace.svc` is 65, over X.509's 64 for a common name; the SANs
    hold the full names, the common name falls back to the service."""
    run = cli("certs", "--out", str(tmp_path / "c"), "--service", "s" * 40, "--namespace", "n" * 20)
    assert run.returncode == 0, run.stderr
    cert = x509.load_pem_x509_certificate((tmp_path / "c" / "tls.crt").read_bytes())
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert f"{'s' * 40}.{'n' * 20}.svc" in san.get_values_for_type(x509.DNSName)
    ca = x509.load_pem_x509_certificate((tmp_path / "c" / "ca.crt").read_bytes())
    cert.verify_directly_issued_by(ca)


def test_longest_service_name_makes_a_ca(tmp_path):
    run = cli("certs", "--out", str(tmp_path / "c"), "--service", "s" * 63)
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("args,rule", [
    (("--days", "2932000"), "the last date an X.509 certificate can hold"),
    (("--days", "9" * 5000), "is not a whole number"),
    (("--service", "Bad_Name"), "is not a DNS-1035 label"),
    (("--service", "1abc"), "is not a DNS-1035 label"),
    (("--service", "s" * 64), "is not a DNS-1035 label"),
    (("--namespace", "n" * 64), "is not a DNS-1123 label"),
    (("--namespace", "a.b"), "is not a DNS-1123 label"),
])
def test_bad_inputs_are_refused_before_anything_is_written(tmp_path, args, rule):
    run = cli("certs", "--out", str(tmp_path / "c"), *args)
    assert run.returncode == 2, run.stderr
    assert rule in run.stderr
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "c").exists()


def test_renew_checks_inputs_too(tmp_path):
    assert cli("certs", "--out", str(tmp_path)).returncode == 0
    run = cli("certs", "--out", str(tmp_path), "--renew", "--days", "2932000")
    assert run.returncode == 2 and "at most" in run.stderr, run.stderr
