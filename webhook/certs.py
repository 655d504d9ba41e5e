"""A private CA and a serving certificate for the webhook Service, as PEM files.

The serving certificate's SANs cover the in-cluster Service names and local addresses, so the
same files work in a cluster and for `dra-webhook serve` on a laptop. Keys are written 0600.
No existing file is replaced without `force`: clusters and overlays trust that CA, and the serving
pair may be in use. Each file is written whole under a new name and then renamed into place, never
through a symbolic link someone placed in the directory.
"""

from __future__ import annotations

import errno
import ipaddress
import os
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from webhook.regularfile import read_regular

DEFAULT_SERVICE = "dra-webhook"
DEFAULT_NAMESPACE = "dra-webhook"
KEY_TYPES = ("ecdsa", "rsa")
CA_DAYS = 3650
SERVING_DAYS = 365
# A PEM certificate or key is a few KiB: a file larger than this is not one (and is never read whole).
MAX_PEM_BYTES = 1 << 20


class CertError(Exception):
    """A usage problem: an invalid host name, an existing CA that must not be replaced."""


# RFC 1123 DNS subdomain (what Kubernetes accepts as a host), optionally with a leading "*." wildcard.
_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_NAME = re.compile(rf"^(\*\.)?{_LABEL}(\.{_LABEL})*$")


def parse_hosts(text: str) -> list[str]:
    """Comma-separated DNS names or IP addresses; CertError naming the first invalid one."""
    hosts = []
    for raw in text.split(","):
        host = raw.strip()
        if not host:
            continue
        try:
            ipaddress.ip_address(host)
        except ValueError:
            if len(host) > 253 or not _DNS_NAME.match(host) or any(len(label) > 63 for label in host.split(".")):
                raise CertError(f"--hosts: {host!r} is neither an IP address nor a DNS name (lower-case letters, "
                                f"digits, '-' and '.', e.g. webhook.example.com)") from None
        hosts.append(host)
    return hosts


# A Service name is a DNS-1035 label, a namespace a DNS-1123 label (apimachinery's IsDNS1035Label/IsDNS1123Label).
_DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
LABEL_MAX = 63
# X.509's upper bound on a common name (RFC 5280 ub-common-name); the SANs carry the names TLS checks.
COMMON_NAME_MAX = 64
# The last instant an X.509 time (GeneralizedTime) and Python's datetime can hold.
LAST_TIME = datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc)


def check_inputs(service: str, namespace: str, days: int, now: datetime) -> None:
    """CertError naming the rule an input breaks, before any key is made or any file written."""
    for flag, value, pattern, rule in (("--service", service, _DNS1035_LABEL, "a DNS-1035 label"),
                                       ("--namespace", namespace, _DNS1123_LABEL, "a DNS-1123 label")):
        if len(value) > LABEL_MAX or not pattern.match(value):
            first = "a lower-case letter" if pattern is _DNS1035_LABEL else "a lower-case letter or digit"
            raise CertError(f"{flag} {value!r} is not {rule}: at most {LABEL_MAX} characters, lower-case letters, "
                            f"digits and '-', starting with {first} and ending with a letter or digit")
    if days < 1:
        raise CertError(f"--days {days}: must be at least 1")
    latest = (LAST_TIME - now).days
    if days > latest:
        raise CertError(f"--days {days}: the certificate would end after {LAST_TIME:%Y-%m-%d}, the last date an "
                        f"X.509 certificate can hold: at most {latest} days from now")


def _common_name(name: str, shorter: str) -> str:
    """`name`, or `shorter` when `name` is longer than X.509 allows a common name to be (the certificate's
    SANs still hold every full name; verifiers read those, not the common name)."""
    return name if len(name) <= COMMON_NAME_MAX else shorter[:COMMON_NAME_MAX]


@dataclass(frozen=True)
class CertFiles:
    ca_cert: Path
    ca_key: Path
    cert: Path
    key: Path


def service_hosts(service: str, namespace: str, extra: list[str] | tuple[str, ...] = ()) -> list[str]:
    hosts = [
        service,
        f"{service}.{namespace}",
        f"{service}.{namespace}.svc",
        f"{service}.{namespace}.svc.cluster.local",
        "localhost",
        "127.0.0.1",
        "::1",
    ]
    for host in extra:
        host = host.strip()
        if host and host not in hosts:
            hosts.append(host)
    return hosts


def _new_key(key_type: str):
    if key_type == "ecdsa":
        return ec.generate_private_key(ec.SECP256R1())
    if key_type == "rsa":
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    raise ValueError(f"unknown key type {key_type!r}; expected one of {', '.join(KEY_TYPES)}")


def _san(hosts: list[str]) -> x509.SubjectAlternativeName:
    names: list[x509.GeneralName] = []
    for host in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    return x509.SubjectAlternativeName(names)


def write_file(path: Path, data: bytes, private: bool, replace: bool) -> None:
    """Writes `path` atomically: a new file (O_EXCL, O_NOFOLLOW: not through a link planted under its
    name) with its final mode, so a key is never readable by others, not even briefly; then renamed to
    `path`, which replaces a file or link there only when `replace` (a rename never follows a link)."""
    mode = 0o600 if private else 0o644
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), mode)
    try:
        try:
            os.fchmod(fd, mode)  # the umask may have taken bits off the public files' mode
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        if replace:
            os.replace(temporary, path)
        else:
            try:
                os.link(temporary, path)  # fails if anything, even a dangling link, took the name meanwhile
            except FileExistsError:
                raise CertError(f"{path} exists: refusing to replace it (use --force)") from None
    finally:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass


def _present(path: Path) -> bool:
    """Whether anything is at `path`: a file, a directory, or a link, even one that points nowhere."""
    try:
        os.lstat(path)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return False
        raise
    return True


def _pem_key(key) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _files(out: Path) -> CertFiles:
    return CertFiles(out / "ca.crt", out / "ca.key", out / "tls.crt", out / "tls.key")


def generate(out_dir: str | os.PathLike, *, service: str = DEFAULT_SERVICE, namespace: str = DEFAULT_NAMESPACE,
             hosts: list[str] | tuple[str, ...] = (), key_type: str = "ecdsa", days: int = SERVING_DAYS,
             now: datetime | None = None, force: bool = False) -> CertFiles:
    """Writes ca.crt, ca.key, tls.crt and tls.key into out_dir and returns their paths.

    CertError if out_dir already holds any of them (a file or a link), unless `force`.
    """
    now = now or datetime.now(timezone.utc)
    check_inputs(service, namespace, days, now)
    out = Path(out_dir)
    present = [path.name for path in vars(_files(out)).values() if _present(path)]
    if present and not force:
        raise CertError(f"{out}: {', '.join(present)} already there: refusing to replace them (the CA that "
                        f"clusters and overlays may trust, the serving pair in use); use --force to replace "
                        f"them, or another --out")
    for host in hosts:
        parse_hosts(host)
    out.mkdir(parents=True, exist_ok=True)
    ca_key = _new_key(key_type)
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, _common_name(f"{service} CA", service))])
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(min(now + timedelta(days=max(CA_DAYS, days)), LAST_TIME))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                     content_commitment=False, key_encipherment=False, data_encipherment=False,
                                     key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    files = _files(out)
    write_file(files.ca_cert, ca_cert.public_bytes(serialization.Encoding.PEM), private=False, replace=force)
    write_file(files.ca_key, _pem_key(ca_key), private=True, replace=force)
    _issue_serving(files, ca_cert, ca_key, service, namespace, hosts, key_type, days, now, replace=force)
    return files


def _issue_serving(files: CertFiles, ca_cert: x509.Certificate, ca_key, service: str, namespace: str,
                   hosts, key_type: str, days: int, now: datetime, replace: bool = True) -> None:
    ca_name = ca_cert.subject
    key = _new_key(key_type)
    all_hosts = service_hosts(service, namespace, hosts)
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME,
                                                    _common_name(f"{service}.{namespace}.svc", service))]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=days))
        .add_extension(_san(all_hosts), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, _signing_hash(ca_key))
    )
    write_file(files.cert, cert.public_bytes(serialization.Encoding.PEM), private=False, replace=replace)
    write_file(files.key, _pem_key(key), private=True, replace=replace)


def ensure(out_dir: str | os.PathLike, *, hosts: list[str] | tuple[str, ...] = (),
           now: datetime | None = None) -> tuple[CertFiles, bool]:
    """The certificates in out_dir for `serve --cert-dir`: reused when the CA pair and the serving pair
    are valid now and cover `hosts` (True), else a new serving pair from the existing CA when that CA
    is valid, else everything new (False). The CA a self-signed overlay was built with survives restarts."""
    now = now or datetime.now(timezone.utc)
    files = _files(Path(out_dir))
    ca = _load_pair(files.ca_cert, files.ca_key, now)
    if ca is None:
        return generate(out_dir, hosts=hosts, now=now, force=True), False
    ca_cert, ca_key = ca
    serving = _load_pair(files.cert, files.key, now)
    if serving is not None and _issued_by(serving[0], ca_cert) and _covers(serving[0], hosts):
        return files, True
    key_type = "rsa" if isinstance(ca_key, rsa.RSAPrivateKey) else "ecdsa"
    _issue_serving(files, ca_cert, ca_key, DEFAULT_SERVICE, DEFAULT_NAMESPACE, hosts, key_type, SERVING_DAYS, now)
    return files, False


def renew(out_dir: str | os.PathLike, *, service: str = DEFAULT_SERVICE, namespace: str = DEFAULT_NAMESPACE,
          hosts: list[str] | tuple[str, ...] = (), key_type: str = "ecdsa", days: int = SERVING_DAYS,
          now: datetime | None = None) -> CertFiles:
    """A new serving pair in out_dir from the CA there, which is kept: every caBundle built from it stays
    valid (`certs --renew`). With no CA pair at all in out_dir, a new CA as `generate` makes; a CA that
    is there but unusable (expired, mismatched, unreadable) is a CertError, never replaced without --force."""
    now = now or datetime.now(timezone.utc)
    check_inputs(service, namespace, days, now)
    files = _files(Path(out_dir))
    if not _present(files.ca_cert) and not _present(files.ca_key):
        for path in (files.cert, files.key):  # a serving pair without its CA: nothing anyone can trust
            if _present(path):
                raise CertError(f"{path} exists but there is no CA in {out_dir}: use --force to make a new CA")
        return generate(out_dir, service=service, namespace=namespace, hosts=hosts, key_type=key_type, days=days,
                        now=now)
    for host in hosts:
        parse_hosts(host)
    ca = _load_pair(files.ca_cert, files.ca_key, now)
    if ca is None:
        raise CertError(f"{files.ca_cert} and {files.ca_key} are not a valid CA pair (expired, mismatched or "
                        f"unreadable): use --force to make a new CA (every caBundle must then be updated)")
    _issue_serving(files, ca[0], ca[1], service, namespace, hosts, key_type, days, now)
    return files


def _read_pem(path: Path) -> bytes:
    """A PEM file's bytes: a regular file (a link to one is fine, as a mounted Secret's are) of at most
    MAX_PEM_BYTES; OSError for anything else, so a FIFO or /dev/zero under the name never blocks or
    fills memory."""
    return read_regular(str(path), MAX_PEM_BYTES)


def _signing_hash(key):
    """The hash to sign with: Ed25519 signs the message itself (None)."""
    return None if isinstance(key, ed25519.Ed25519PrivateKey) else hashes.SHA256()


def _load_pair(cert_path: Path, key_path: Path, now: datetime):
    """(certificate, key) when both files parse, match, the key is one a Go client verifies signatures of
    (RSA, ECDSA, Ed25519: not DSA or Ed448) and the certificate is valid at `now`."""
    try:
        cert = x509.load_pem_x509_certificate(_read_pem(cert_path))
        key = serialization.load_pem_private_key(_read_pem(key_path), password=None)
    except (OSError, ValueError, TypeError):
        return None
    if not isinstance(key, (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey, ed25519.Ed25519PrivateKey)):
        return None
    same = cert.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo) \
        == key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    if not same or not cert.not_valid_before_utc <= now < cert.not_valid_after_utc - timedelta(days=1):
        return None
    return cert, key


def _issued_by(cert: x509.Certificate, ca_cert: x509.Certificate) -> bool:
    try:
        cert.verify_directly_issued_by(ca_cert)
    except (ValueError, TypeError, InvalidSignature):
        return False
    return True


def _covers(cert: x509.Certificate, hosts) -> bool:
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return False
    present = {str(v) for v in san.get_values_for_type(x509.IPAddress)} | set(san.get_values_for_type(x509.DNSName))
    return all(h in present for h in hosts)


def load_certificate(path: str | os.PathLike) -> x509.Certificate:
    return x509.load_pem_x509_certificate(_read_pem(Path(path)))


def not_after(path: str | os.PathLike) -> datetime:
    return load_certificate(path).not_valid_after_utc
