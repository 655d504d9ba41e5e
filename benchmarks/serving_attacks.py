"""The server's memory under connection-level attacks (server and clients share this machine).

    python benchmarks/serving_attacks.py [--only cycles|held|tls-held|heads] [--cycles 20000] [--held 5000]
                                         [--heads 400] [-- SERVE-ARGS...]

(a) cycles: connections opened and closed one at a time, ending every way in turn (after a request,
    after the handshake, reset, failed handshake). Goal: the server grows by <= 64 MiB.
(b) held: bare TCP connections opened and held (no ClientHello), then closed. Goal: bounded growth
    (counted against --max-connections from accept; closed by the handshake timeout).
(b') tls-held: the same after a TLS handshake and the start of a request head (up to the cap).
(c) heads: TLS connections each sending a 1 MiB request head without its end (--head-bytes). Goal:
    far less than the 435 MiB such heads used to pin (431 over --max-header-bytes or once
    --max-buffered-header-bytes is spent; `--head-bytes 60000 --heads 600` tries the budget).
Each prints the server process's RSS before, at its peak (VmHWM, since start) and after, in MiB;
these numbers justify the Deployment's memory limit.
"""

from __future__ import annotations

import argparse
import contextlib
import resource
import socket
import ssl
import struct
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _servers import Certificates, start_ours  # noqa: E402


def status_mib(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def address(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("https://").split(":")
    return host, int(port)


def cycles(url: str, context: ssl.SSLContext, count: int) -> None:
    """Every way a connection ends, in turn: after a request, after the handshake alone, reset
    before the handshake, a handshake the client gives up on (it does not trust the server)."""
    host, port = address(url)
    distrustful = ssl.create_default_context()
    failed = 0
    for i in range(count):
        raw = socket.create_connection((host, port), timeout=10)
        try:
            if i % 4 == 0:
                with context.wrap_socket(raw, server_hostname=host) as sock:  # closed without close_notify
                    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                    sock.recv(4096)
            elif i % 4 == 1:
                context.wrap_socket(raw, server_hostname=host).close()
            elif i % 4 == 2:
                raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            else:
                with contextlib.suppress(ssl.SSLCertVerificationError):
                    distrustful.wrap_socket(raw, server_hostname=host)
        except OSError:
            failed += 1
        finally:
            raw.close()
    if failed:
        print(f"  {failed} connections failed")


def held(url: str, context: ssl.SSLContext, count: int, pid: int) -> None:
    host, port = address(url)
    sockets = []
    for _ in range(count):
        sock = socket.socket()
        sock.setblocking(False)
        sock.connect_ex((host, port))
        sockets.append(sock)
    time.sleep(3)  # let the server accept them all
    print(f"  while {count} are held: RSS {status_mib(pid, 'VmRSS'):.0f} MiB")
    for sock in sockets:
        sock.close()


def tls_held(url: str, context: ssl.SSLContext, count: int, pid: int) -> None:
    host, port = address(url)
    sockets = []
    for _ in range(count):
        try:
            raw = socket.create_connection((host, port), timeout=10)
            sock = context.wrap_socket(raw, server_hostname=host)
            sock.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\n")  # and never the rest
            sockets.append(sock)
        except OSError:
            break  # the cap
    time.sleep(2)
    print(f"  while {len(sockets)} are held after their handshake: RSS {status_mib(pid, 'VmRSS'):.0f} MiB")
    for sock in sockets:
        sock.close()


def heads(url: str, context: ssl.SSLContext, count: int, pid: int, size: int) -> None:
    host, port = address(url)
    head = b"POST /validate HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * size
    sockets: list[ssl.SSLSocket] = []
    answers: dict[bytes, int] = {}
    lock = threading.Lock()

    def send(sock: ssl.SSLSocket) -> None:
        try:
            sock.sendall(head)
        except OSError:
            pass
        try:
            sock.settimeout(5)
            first = sock.recv(32) or b"(closed)"
        except TimeoutError:
            first = b"(waiting)"  # for the rest of the head
        except OSError:
            first = b"(closed)"
        with lock:
            key = first[:12]
            answers[key] = answers.get(key, 0) + 1

    for _ in range(count):
        raw = socket.create_connection((host, port), timeout=30)
        sockets.append(context.wrap_socket(raw, server_hostname=host))
    threads = [threading.Thread(target=send, args=(sock,)) for sock in sockets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(f"  answers: {answers}; RSS with the connections open: {status_mib(pid, 'VmRSS'):.0f} MiB")
    for sock in sockets:
        sock.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", choices=["cycles", "held", "tls-held", "heads"])
    parser.add_argument("--cycles", type=int, default=20_000)
    parser.add_argument("--held", type=int, default=5_000)
    parser.add_argument("--heads", type=int, default=400)
    parser.add_argument("--head-bytes", type=int, default=1024 * 1024)
    parser.add_argument("--settle", type=float, default=2.0,
                        help="seconds to wait before the 'after' reading (the server trims freed memory every 30 s)")
    parser.add_argument("serve_args", nargs="*")
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the server inherits it too
    certs = Certificates()
    attacks = {"cycles": lambda s: cycles(s.url, s.context, args.cycles),
               "held": lambda s: held(s.url, s.context, args.held, s.process.pid),
               "tls-held": lambda s: tls_held(s.url, s.context, args.held, s.process.pid),
               "heads": lambda s: heads(s.url, s.context, args.heads, s.process.pid, args.head_bytes)}
    for name, attack in attacks.items():
        if args.only and name != args.only:
            continue
        server = start_ours(certs, *args.serve_args)  # a fresh server per attack: its own peak
        try:
            pid = server.process.pid
            time.sleep(1)
            before = status_mib(pid, "VmRSS")
            started = time.monotonic()
            attack(server)
            took = time.monotonic() - started
            time.sleep(args.settle)
            after = status_mib(pid, "VmRSS")
            print(f"{name}: RSS before {before:.0f} MiB, peak {status_mib(pid, 'VmHWM'):.0f} MiB, "
                  f"after {after:.0f} MiB (+{after - before:.0f}), {took:.1f} s", flush=True)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
