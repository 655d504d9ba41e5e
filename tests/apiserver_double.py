"""The project's HTTPS test double of kube-apiserver, for the webhook's client side: a real HTTPS server
(certificates from `dra-webhook certs`, bearer-token authentication) that serves /version, discovery of
resource.k8s.io, /metrics with `kubernetes_feature_enabled`, and list+watch of cluster-scoped resources
with resourceVersion, bookmarks and 410 Gone after compaction, as the real API server speaks them.

It stands in for the real kube-apiserver (which the upstream harness builds) where only the webhook's
reading of the cluster is under test; admission itself is tested against the webhook's own server.
"""

from __future__ import annotations

import copy
import json
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from support import free_port

GROUP = "resource.k8s.io"
KINDS = {"deviceclasses": "DeviceClass", "resourceslices": "ResourceSlice", "devicetaintrules": "DeviceTaintRule",
         "resourceclaims": "ResourceClaim", "resourceclaimtemplates": "ResourceClaimTemplate"}
BOOKMARK_SECONDS = 0.2
_TRUE = ("1", "t", "T", "true", "TRUE", "True")  # Go's strconv.ParseBool


class ApiServerDouble:
    def __init__(self, cert_dir: Path, *, git_version: str = "v1.34.3", gates: dict | None = None,
                 served: dict | None = None, token: str = "double-token", port: int = 0) -> None:
        self.cert_dir = cert_dir
        self.git_version = git_version
        self.gates = gates if gates is not None else {}
        self.served = served or {"v1": ["deviceclasses", "resourceslices", "resourceclaims", "resourceclaimtemplates"],
                                 "v1beta2": ["deviceclasses", "resourceslices", "resourceclaims",
                                             "resourceclaimtemplates"],
                                 "v1alpha3": ["devicetaintrules"]}
        self.token = token
        self.objects: dict[str, dict[str, dict]] = {plural: {} for plural in KINDS}
        self.events: list[tuple[int, str, str, dict]] = []  # (resourceVersion, type, plural, object)
        self.revision = 100
        self.compacted = 0  # a watch from a resourceVersion below this gets 410 Gone
        self.requests: list[str] = []  # "GET /path?query", in order
        self.metrics_allowed = True
        # Series served ahead of kubernetes_feature_enabled: a real kube-apiserver's /metrics has over a MiB
        # of them (apiserver_*, etcd_*, ...), which reaches a client in many chunks.
        self.metrics_series_before = 0
        self.stream_epoch = 0
        self._changed = threading.Condition()
        self._server: ThreadingHTTPServer | None = None
        self.port = port or free_port()

    # State -----------------------------------------------------------------------------------

    def put(self, obj: dict) -> dict:
        plural = next(p for p, k in KINDS.items() if k == obj["kind"])
        with self._changed:
            self.revision += 1
            stored = copy.deepcopy(obj)
            stored.setdefault("metadata", {})["resourceVersion"] = str(self.revision)
            kind = "MODIFIED" if stored["metadata"]["name"] in self.objects[plural] else "ADDED"
            self.objects[plural][stored["metadata"]["name"]] = stored
            self.events.append((self.revision, kind, plural, stored))
            self._changed.notify_all()
        return stored

    def delete(self, kind: str, name: str) -> None:
        plural = next(p for p, k in KINDS.items() if k == kind)
        with self._changed:
            self.revision += 1
            stored = self.objects[plural].pop(name)
            stored = {**stored, "metadata": {**stored["metadata"], "resourceVersion": str(self.revision)}}
            self.events.append((self.revision, "DELETED", plural, stored))
            self._changed.notify_all()

    def compact(self) -> None:
        """Forgets every event so far: watches from an older resourceVersion get 410 Gone (and are ended)."""
        with self._changed:
            self.revision += 1
            self.compacted = self.revision
            self.events.clear()
            self._changed.notify_all()

    def end_watches(self) -> None:
        """Ends every watch stream open now (as an API server does at its timeout): clients resume."""
        with self._changed:
            self.stream_epoch += 1
            self._changed.notify_all()

    def count(self, prefix: str) -> int:
        return sum(1 for r in list(self.requests) if r.startswith(prefix))

    # Serving ---------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def kubeconfig(self, path: Path) -> Path:
        ca = (self.cert_dir / "ca.crt").read_text()
        import base64

        config = {"apiVersion": "v1", "kind": "Config", "current-context": "double",
                  "clusters": [{"name": "double", "cluster": {
                      "server": self.url, "certificate-authority-data": base64.b64encode(ca.encode()).decode()}}],
                  "users": [{"name": "double", "user": {"token": self.token}}],
                  "contexts": [{"name": "double", "context": {"cluster": "double", "user": "double"}}]}
        path.write_text(json.dumps(config))
        return path

    def start(self) -> "ApiServerDouble":
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert_dir / "tls.crt", self.cert_dir / "tls.key")
        server = ThreadingHTTPServer(("127.0.0.1", self.port), _handler(self))
        server.daemon_threads = True
        server.socket = context.wrap_socket(server.socket, server_side=True)
        self._server = server
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            with self._changed:
                self._server_stopping = True
                self._changed.notify_all()
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    _server_stopping = False


def _handler(double: ApiServerDouble):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def _json(self, code: int, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _status(self, code: int, reason: str, message: str) -> None:
            self._json(code, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message,
                              "reason": reason, "code": code})

        def do_GET(self) -> None:  # noqa: N802
            double.requests.append(f"GET {self.path}")
            if self.headers.get("Authorization") != f"Bearer {double.token}":
                return self._status(401, "Unauthorized", "Unauthorized")
            parts = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
            path = parts.path.rstrip("/")
            if path == "/version":
                major, minor = double.git_version.lstrip("v").split(".")[:2]
                return self._json(200, {"major": major, "minor": minor, "gitVersion": double.git_version})
            if path == "/metrics":
                if not double.metrics_allowed:
                    return self._status(403, "Forbidden", 'forbidden: User cannot get path "/metrics"')
                lines = [f'apiserver_request_total{{resource="r{i}",verb="GET",code="200"}} {i}'
                         for i in range(double.metrics_series_before)]
                lines += ["# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage "
                         "and enablement of a k8s feature.", "# TYPE kubernetes_feature_enabled gauge"]
                lines += [f'kubernetes_feature_enabled{{name="{n}",stage="BETA"}} {int(v)}'
                          for n, v in sorted(double.gates.items())]
                data = ("\n".join(lines) + "\napiserver_request_total{code=\"200\"} 5\n").encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            if path == f"/apis/{GROUP}":
                versions = [{"groupVersion": f"{GROUP}/{v}", "version": v} for v in double.served]
                return self._json(200, {"kind": "APIGroup", "apiVersion": "v1", "name": GROUP,
                                        "versions": versions, "preferredVersion": versions[0]})
            segments = path.split("/")
            if len(segments) == 4 and segments[1] == "apis" and f"{segments[2]}" == GROUP:
                version = segments[3]
                if version not in double.served:
                    return self._status(404, "NotFound", "the server could not find the requested resource")
                return self._json(200, {"kind": "APIResourceList", "apiVersion": "v1",
                                        "groupVersion": f"{GROUP}/{version}",
                                        "resources": [{"name": p, "kind": KINDS[p], "namespaced": False,
                                                       "verbs": ["get", "list", "watch"]}
                                                      for p in double.served[version]]})
            if len(segments) == 5 and segments[2] == GROUP and segments[4] in KINDS:
                version, plural = segments[3], segments[4]
                if plural not in double.served.get(version, []):
                    return self._status(404, "NotFound", "the server could not find the requested resource")
                if query.get("watch") in _TRUE:
                    return self._watch(version, plural, query)
                return self._list(version, plural, query)
            return self._status(404, "NotFound", "the server could not find the requested resource")

        def _list(self, version: str, plural: str, query: dict) -> None:
            with double._changed:
                items = sorted(double.objects[plural].values(), key=lambda o: o["metadata"]["name"])
                revision = double.revision
            start = int(query.get("continue") or 0)
            limit = int(query.get("limit") or 0) or len(items) or 1
            page = items[start:start + limit]
            metadata = {"resourceVersion": str(revision)}
            if start + limit < len(items):
                metadata["continue"] = str(start + limit)
            self._json(200, {"kind": KINDS[plural] + "List", "apiVersion": f"{GROUP}/{version}", "metadata": metadata,
                             "items": [{**o, "apiVersion": f"{GROUP}/{version}"} for o in page]})

        def _chunk(self, event: dict) -> None:
            data = (json.dumps(event) + "\n").encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def _watch(self, version: str, plural: str, query: dict) -> None:
            since = int(query.get("resourceVersion") or 0)
            bookmarks = query.get("allowWatchBookmarks") in _TRUE
            ends = time.monotonic() + float(query.get("timeoutSeconds") or 3600)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                if since < double.compacted:
                    self._chunk({"type": "ERROR", "object": {
                        "kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 410, "reason": "Expired",
                        "message": f"too old resource version: {since} ({double.compacted})"}})
                    self.wfile.write(b"0\r\n\r\n")
                    return
                last_bookmark = time.monotonic()
                epoch = double.stream_epoch
                while time.monotonic() < ends and not double._server_stopping and epoch == double.stream_epoch:
                    with double._changed:
                        if since < double.compacted:
                            break  # compacted under us: the stream ends, the client resumes and gets 410
                        pending = [e for e in double.events if e[0] > since and e[2] == plural]
                        if not pending:
                            double._changed.wait(BOOKMARK_SECONDS / 2)
                            # Checked again after the wait: a compaction during it ends the stream before
                            # any event or bookmark after it is sent (a bookmark at the new revision would
                            # carry the watch past the compaction, and the client would never see 410).
                            if since < double.compacted:
                                break
                            pending = [e for e in double.events if e[0] > since and e[2] == plural]
                        revision = double.revision
                    for rv, kind, _, obj in pending:
                        self._chunk({"type": kind, "object": {**obj, "apiVersion": f"{GROUP}/{version}"}})
                        since = rv
                    if bookmarks and time.monotonic() - last_bookmark >= BOOKMARK_SECONDS:
                        since = max(since, revision)
                        self._chunk({"type": "BOOKMARK", "object": {
                            "kind": KINDS[plural], "apiVersion": f"{GROUP}/{version}",
                            "metadata": {"resourceVersion": str(since)}}})
                        last_bookmark = time.monotonic()
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
                pass

    return Handler
