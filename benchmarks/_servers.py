"""Servers for the serving benchmarks: `dra-webhook serve` and the do-nothing floor (the same
Starlette + uvicorn + TLS stack answering a constant), started side by side with one certificate."""

from __future__ import annotations

import os
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from foundation import CONSTANT_APP  # noqa: E402


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    name: str
    process: subprocess.Popen
    url: str
    context: ssl.SSLContext

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()

    def rss_mib(self, children: bool = True) -> float:
        """Resident memory of the server process (and its worker processes), MiB."""
        pids = [self.process.pid]
        if children:
            pid = self.process.pid
            pids += [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        total = 0
        for pid in pids:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        return total / 1024


class Certificates:
    def __init__(self) -> None:
        from webhook import certs

        self.dir = Path(tempfile.mkdtemp(prefix="dra-bench-"))
        self.files = certs.generate(self.dir)
        self.context = ssl.create_default_context(cafile=str(self.files.ca_cert))


def _launch(name: str, argv: list[str], url: str, context: ssl.SSLContext, pin: str | None) -> Server:
    if pin is not None:
        argv = ["taskset", "-c", pin, *argv]
    process = subprocess.Popen(argv, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    server = Server(name, process, url, context)
    deadline = time.monotonic() + 60
    with httpx.Client(verify=context, timeout=5) as client:
        while time.monotonic() < deadline:
            try:
                client.post(url + "/validate", content=b"{}", headers={"content-type": "application/json"})
                return server
            except httpx.TransportError:
                time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"{name} did not come up")


def start_ours(certs: Certificates, *args: str, pin: str | None = None, port: int | None = None) -> Server:
    port = port or free_port()
    argv = [sys.executable, "-m", "webhook", "serve", "--host", "127.0.0.1", "--port", str(port),
            "--cert-file", str(certs.files.cert), "--key-file", str(certs.files.key), *args]  # logs at info, as deployed
    return _launch("dra-webhook", argv, f"https://127.0.0.1:{port}", certs.context, pin)


def start_floor(certs: Certificates, pin: str | None = None) -> Server:
    port = free_port()
    argv = [sys.executable, "-c", CONSTANT_APP, str(port), str(certs.files.cert), str(certs.files.key)]
    return _launch("floor", argv, f"https://127.0.0.1:{port}", certs.context, pin)
