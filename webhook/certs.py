"""A private CA and a serving certificate for the webhook Service, as PEM files.

The serving certificate's SANs cover the in-cluster Service names and local addresses, so the
same files work in a cluster and for `dra-webhook serve` on a laptop. Keys are written 0600.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

DEFAULT_SERVICE = "dra-webhook"
DEFAULT_NAMESPACE = "dra-webhook"
KEY_TYPES = ("ecdsa", "rsa")
CA_DAYS = 3650
SERVING_DAYS = 365


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


def _write(path: Path, data: bytes, private: bool) -> None:
    # Create with the final mode so a key is never readable by others, not even briefly.
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    fd = os.open(path, flags, 0o600 if private else 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    os.chmod(path, 0o600 if private else 0o644)


def _pem_key(key) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def generate(out_dir: str | os.PathLike, *, service: str = DEFAULT_SERVICE, namespace: str = DEFAULT_NAMESPACE,
             hosts: list[str] | tuple[str, ...] = (), key_type: str = "ecdsa", days: int = SERVING_DAYS,
             now: datetime | None = None) -> CertFiles:
    """Writes ca.crt, ca.key, tls.crt and tls.key into out_dir and returns their paths."""
    now = now or datetime.now(timezone.utc)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ca_key = _new_key(key_type)
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{service} CA")])
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=max(CA_DAYS, days)))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                     content_commitment=False, key_encipherment=False, data_encipherment=False,
                                     key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = _new_key(key_type)
    all_hosts = service_hosts(service, namespace, hosts)
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{service}.{namespace}.svc")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=days))
        .add_extension(_san(all_hosts), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    files = CertFiles(out / "ca.crt", out / "ca.key", out / "tls.crt", out / "tls.key")
    _write(files.ca_cert, ca_cert.public_bytes(serialization.Encoding.PEM), private=False)
    _write(files.ca_key, _pem_key(ca_key), private=True)
    _write(files.cert, cert.public_bytes(serialization.Encoding.PEM), private=False)
    _write(files.key, _pem_key(key), private=True)
    return files


def load_certificate(path: str | os.PathLike) -> x509.Certificate:
    return x509.load_pem_x509_certificate(Path(path).read_bytes())


def not_after(path: str | os.PathLike) -> datetime:
    return load_certificate(path).not_valid_after_utc
