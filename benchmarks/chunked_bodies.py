"""Chunked request bodies sent a byte at a time, and chunk extensions, against `dra-webhook serve` (issue 37).

    python benchmarks/chunked_bodies.py [--seconds 10] [--connections 8]

(a) Idle: /validate of the typical claim, one request at a time: p50.
(b) Under attack: `--connections` TLS connections each POST /validate with `Transfer-Encoding: chunked`
    and send the body one byte per chunk, 16 KiB of chunks a write, as fast as the server reads (from one
    process of their own); idle and attacked windows alternate, so the machine's other load falls on both;
    meanwhile the same /validate requests as in (a). Goal: p50 <= 3x the idle p50. Also printed: how many
    chunks an attacking connection sent at most (what the kernel took included) and how many connections
    the attackers opened (the server cuts a request at its chunk limit).
(c) Chunk extensions: one connection sends 1-byte chunks each with a 4 KiB chunk extension for
    `--seconds`: how many wire bytes the server took before it cut the connection (it once took 2 GB
    in 10 s, charged to no budget).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import socket
import ssl
import statistics
import threading
import time
from pathlib import Path

import httpx

from _servers import Certificates, start_ours
from serving_load import review, typical_claim


def _address(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("https://").rsplit(":", 1)
    return host, int(port)


def _connect(url: str, context: ssl.SSLContext) -> ssl.SSLSocket:
    sock = socket.create_connection(_address(url), timeout=10)
    return context.wrap_socket(sock, server_hostname="localhost")


HEAD = (b"POST /validate HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n"
        b"transfer-encoding: chunked\r\n\r\n")


def attacker(url: str, context: ssl.SSLContext, active, stop, stats: dict, extension: bytes = b"") -> None:
    """While `active`, sends a chunked body a byte per chunk, reconnecting whenever the server cuts it."""
    body = json.dumps(review(typical_claim())).encode() * 1000
    while not stop.is_set():
        if not active.wait(0.1):
            continue
        try:
            conn = _connect(url, context)
        except OSError:
            time.sleep(0.05)
            continue
        stats["connections"] += 1
        chunks = 0
        # One-byte chunks written 16 KiB at a time (~2,700 chunks a write, as many as one TLS record
        # holds): what one read of the server then brings.
        chunk = b"1" + extension + b"\r\n \r\n"
        per_write = max(1, 16384 // len(chunk))
        burst = chunk * per_write
        try:
            conn.sendall(HEAD + b"1\r\n{\r\n")
            while active.is_set() and chunks < len(body):
                conn.sendall(burst)
                chunks += per_write
                stats["wire"] += len(burst)
        except OSError:
            pass
        finally:
            stats["chunks"].append(chunks)
            conn.close()


def _attack_process(url: str, ca_file, active, stop, results, connections: int, extension: bytes = b"") -> None:
    context = ssl.create_default_context(cafile=str(ca_file))
    stats = {"connections": 0, "chunks": [], "wire": 0}
    threads = [threading.Thread(target=attacker, args=(url, context, active, stop, stats, extension), daemon=True)
               for _ in range(connections)]
    for thread in threads:
        thread.start()
    stop.wait()
    for thread in threads:
        thread.join(15)
    results.put(stats)


def latencies(url: str, context: ssl.SSLContext, seconds: float) -> list[float]:
    body = json.dumps(review(typical_claim())).encode()
    out = []
    with httpx.Client(verify=context, timeout=35) as client:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            start = time.perf_counter()
            reply = client.post(url + "/validate", content=body, headers={"content-type": "application/json"})
            out.append(time.perf_counter() - start)
            assert reply.status_code == 200, reply.text
            time.sleep(0.02)
    return out


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _attack(server, certs, connections: int, rounds: int, window: float, extension: bytes = b""):
    """Idle and attacked windows in turn (the machine's other load falls on both alike): the /validate
    latencies of each, the server's CPU seconds per second in each, and the attackers' counts."""
    active, stop, results = multiprocessing.Event(), multiprocessing.Event(), multiprocessing.Queue()
    worker = multiprocessing.Process(target=_attack_process, args=(server.url, certs.files.ca_cert, active, stop,
                                                                   results, connections, extension))
    worker.start()
    idle, attacked, cpu = [], [], {"idle": 0.0, "attacked": 0.0}
    try:
        for _ in range(rounds):
            for state, into in (("idle", idle), ("attacked", attacked)):
                if state == "attacked":
                    active.set()
                else:
                    active.clear()
                time.sleep(0.5)
                before = _cpu_seconds(server.process.pid)
                into.extend(latencies(server.url, certs.context, window))
                cpu[state] += (_cpu_seconds(server.process.pid) - before) / (window * rounds)
    finally:
        active.clear()
        stop.set()
        stats = results.get(timeout=60)
        worker.join(15)
    return idle, attacked, cpu, stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10, help="attacked seconds in all (and as many idle)")
    parser.add_argument("--connections", type=int, default=8)
    args = parser.parse_args()
    certs = Certificates()
    server = start_ours(certs)
    rounds = 5
    try:
        latencies(server.url, certs.context, 2)  # warm
        idle, attacked, cpu, stats = _attack(server, certs, args.connections, rounds, args.seconds / rounds)
        p50_idle, p50 = statistics.median(idle), statistics.median(attacked)
        ratio = p50 / p50_idle
        print(f"(a) idle /validate p50: {p50_idle * 1e3:.1f} ms; server CPU {cpu['idle']:.2f} s/s")
        print(f"(b) {args.connections} one-byte-chunk connections: /validate p50 {p50 * 1e3:.1f} ms "
              f"({ratio:.1f}x idle, "
              f"p90 {statistics.quantiles(attacked, n=10)[-1] * 1e3:.1f} ms); server CPU {cpu['attacked']:.2f} s/s; "
              f"{stats['connections']} attacking connections, {stats['wire'] / 2**20:.1f} MiB sent  "
              f"[{'ok' if ratio <= 3 else 'MISS'}: p50 <= 3x idle]")
        _, _, cpu, stats = _attack(server, certs, 1, 1, args.seconds, b";" + b"e" * 4096)
        print(f"(c) chunk extensions for {args.seconds:g} s on one connection at a time: "
              f"{stats['wire'] / 2**20:.1f} MiB "
              f"sent over {stats['connections']} connection(s), at most {max(stats['chunks'], default=0):,} chunks "
              f"(~{max(stats['chunks'], default=0) * 4100 / 2**20:.2f} MiB) sent on one before the server cut it "
              f"(the kernel's buffers included)")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
