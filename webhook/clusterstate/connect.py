"""Credentials for the API server: a kubeconfig when one is named, else the pod's service account,
else $KUBECONFIG or ~/.kube/config; the client is kubernetes_asyncio's (one ApiClient per caller)."""

from __future__ import annotations

import os
from pathlib import Path


class NoCredentials(Exception):
    """Neither a kubeconfig nor a service account to talk to the API server with."""


IN_CLUSTER_ENV = "KUBERNETES_SERVICE_HOST"
MAX_KUBECONFIG_BYTES = 16 * 1024 * 1024


def credentials_available(kubeconfig: str | None) -> bool:
    """Whether `client()` has anything to work with (for serve's automatic profile discovery)."""
    return bool(kubeconfig) or bool(os.environ.get(IN_CLUSTER_ENV)) or _default_kubeconfig() is not None


def _default_kubeconfig() -> str | None:
    named = os.environ.get("KUBECONFIG", "").split(os.pathsep)[0]
    if named and Path(named).is_file():
        return named
    home = Path.home() / ".kube" / "config"
    return str(home) if home.is_file() else None


async def client(kubeconfig: str | None = None, context: str | None = None):
    """A kubernetes_asyncio ApiClient; NoCredentials when there is nothing to connect with."""
    from kubernetes_asyncio import client as k8s
    from kubernetes_asyncio import config
    from kubernetes_asyncio.config.config_exception import ConfigException

    try:
        if kubeconfig:
            return await _from_kubeconfig(kubeconfig, context)
        if os.environ.get(IN_CLUSTER_ENV):
            configuration = k8s.Configuration()
            config.load_incluster_config(client_configuration=configuration)
            return k8s.ApiClient(configuration)
        found = _default_kubeconfig()
        if found:
            return await _from_kubeconfig(found, context)
    except (ConfigException, OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise NoCredentials(f"cannot read the credentials: {error}") from None
    raise NoCredentials("no credentials: not in a pod with a service account, and no kubeconfig "
                        "(--kubeconfig, $KUBECONFIG or ~/.kube/config)")


async def _from_kubeconfig(path: str, context: str | None):
    """A client from a kubeconfig file read as kubectl reads it (sigs.k8s.io/yaml), bounded: a regular file
    (or a pipe: `<(command)`) of at most MAX_KUBECONFIG_BYTES, aliases charged. The client library's own
    reader read a device such as /dev/zero to its end and expanded aliases without a budget. Like kubectl, an `exec` credential plugin the file names is run:
    the kubeconfig is the user's own choice, never taken from the files under review."""
    from kubernetes_asyncio import client as k8s
    from kubernetes_asyncio.config.kube_config import KubeConfigLoader

    from webhook.offline import yamlload
    from webhook.regularfile import read_regular

    try:
        documents = yamlload.load_all(read_regular(path, MAX_KUBECONFIG_BYTES, pipes=True).decode("utf-8"))
    except (UnicodeDecodeError, yamlload.yaml.YAMLError, RecursionError) as error:
        raise ValueError(f"{path}: not a kubeconfig: {getattr(error, 'problem', None) or error}") from None
    if len(documents) != 1 or not isinstance(documents[0], dict):
        raise ValueError(f"{path}: not a kubeconfig (want one YAML mapping)")
    configuration = k8s.Configuration()
    loader = KubeConfigLoader(config_dict=documents[0], active_context=context,
                              config_base_path=os.path.abspath(os.path.dirname(path)))
    await loader.load_and_set(configuration)
    return k8s.ApiClient(configuration)


async def get_raw(api, path: str, timeout: float, limit: int) -> bytes:
    """The body of GET `path` (at most `limit` bytes), through the client's authentication and TLS."""
    from kubernetes_asyncio.client.exceptions import ApiException

    response = await api.call_api(path, "GET", auth_settings=["BearerToken"], _preload_content=False,
                                  _request_timeout=timeout, header_params={"Accept": "application/json, */*"})
    response = response[0] if isinstance(response, tuple) else response
    try:
        if response.status >= 400:
            raise ApiException(status=response.status, reason=response.reason)
        # StreamReader.read(n) returns what one chunk brings (up to n bytes), not the whole answer: read on
        # until the end or past the limit (a real kube-apiserver's /metrics is over a MiB, in many chunks).
        body = bytearray()
        while len(body) <= limit:
            chunk = await response.content.read(limit + 1 - len(body))
            if not chunk:
                break
            body += chunk
        body = bytes(body)
    finally:
        response.release()
    if len(body) > limit:
        raise ValueError(f"GET {path}: the answer is larger than {limit} bytes")
    return body
