"""Manifests for deploy/overlays/self-signed, written next to freshly generated certificates.

`dra-webhook certs --kustomize DIR` writes the TLS Secret and, for each webhook configuration, a
patch that sets clientConfig.caBundle to the new CA. The names here must match deploy/base.
The Secret holds a private key: it is written 0600 and never belongs in version control.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

import yaml

from webhook.certs import CertFiles, write_file

SECRET_NAME = "dra-webhook-tls"
CONFIGURATION_NAME = "dra-webhook"
SECRET_FILE = "secret.yaml"
# file name -> (kind of the webhook configuration, the names of its webhooks)
CA_BUNDLE_PATCHES = {
    "cabundle-validating.yaml": ("ValidatingWebhookConfiguration",
                                 ("parameters.validate.dra-webhook.io", "validate.dra-webhook.io")),
    "cabundle-mutating.yaml": ("MutatingWebhookConfiguration", ("mutate.dra-webhook.io",)),
}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def tls_secret(files: CertFiles, namespace: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": SECRET_NAME, "namespace": namespace},
        "type": "kubernetes.io/tls",
        "data": {"tls.crt": _b64(files.cert.read_bytes()), "tls.key": _b64(files.key.read_bytes())},
    }


def ca_bundle_patch(kind: str, webhook_names: tuple[str, ...], ca_pem: bytes) -> dict:
    # A strategic merge patch: kustomize merges the webhooks list by name.
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": kind,
        "metadata": {"name": CONFIGURATION_NAME},
        "webhooks": [{"name": name, "clientConfig": {"caBundle": _b64(ca_pem)}} for name in webhook_names],
    }


def _write_yaml(path: Path, doc: dict, private: bool = False) -> None:
    # Regenerated on every run, so replaced; but as the certificates are: never through a planted link.
    write_file(path, yaml.safe_dump(doc, sort_keys=False).encode(), private=private, replace=True)


def write(out_dir: str | os.PathLike, files: CertFiles, namespace: str) -> list[Path]:
    """Writes the Secret and the caBundle patches into out_dir; returns their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = [out / SECRET_FILE]
    _write_yaml(written[0], tls_secret(files, namespace), private=True)
    ca_pem = files.ca_cert.read_bytes()
    for file_name, (kind, webhook_names) in CA_BUNDLE_PATCHES.items():
        written.append(out / file_name)
        _write_yaml(written[-1], ca_bundle_patch(kind, webhook_names, ca_pem))
    return written
