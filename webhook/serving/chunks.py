"""Chunked request bodies charged by what they cost: chunks and wire bytes, not only body bytes.

h11 spends 5-30 microseconds of the event loop on each chunk of a `Transfer-Encoding: chunked` body
(more per chunk the more a read brings: its buffer is consumed from the front), and a chunk may carry
kilobytes of chunk extensions that h11 skips and no budget saw. Eight connections sending one-byte
chunks as fast as the server read them raised /validate's latency from 5 ms to over a second, and one
connection streamed 2 GB of extensions in 10 s.

So each chunked request is charged, as its bytes arrive:
- its chunks: at most `max_chunks` (8,192 with the 8 MiB default body limit: 1 KiB a chunk on
  average; Go's chunked writer sends 4 KiB or more), and at most `CHUNK_RATE` a second per connection
  after a burst of `CHUNK_BURST`: a connection ahead of its rate is not read until it is back on it, and
  what it sent is parsed `SLICE_BYTES` at a time, so one read never holds the loop for thousands of chunks;
- its wire bytes, extensions and framing included: at most the body limit plus `FRAMING_BYTES` per
  chunk allowed plus `WIRE_SLACK`.
Over a limit, the request is answered 413 and its connection closed. A body with a Content-Length is
not affected (the API server sends those).
"""

from __future__ import annotations

CHUNK_RATE = 2000.0  # chunks a second, per connection, after the burst
CHUNK_BURST = 512
SLICE_BYTES = 1024  # fed to h11 at a time: at most ~170 one-byte chunks per step
FRAMING_BYTES = 16  # per chunk: hex size, CRLFs (an extension beyond this counts against the slack)
WIRE_SLACK = 64 * 1024
MAX_PENDING_BYTES = 64 * 1024  # read ahead of the pace: past this, reading stops


def max_chunks(max_body_bytes: int) -> int:
    return max(1024, max_body_bytes // 1024)


def max_wire_bytes(max_body_bytes: int) -> int:
    return max_body_bytes + FRAMING_BYTES * max_chunks(max_body_bytes) + WIRE_SLACK


class ChunkCharge:
    """One connection's current chunked body: its chunks and wire bytes, and the connection's chunk rate."""

    def __init__(self, max_body_bytes: int, now: float) -> None:
        self.max_chunks = max_chunks(max_body_bytes)
        self.max_wire = max_wire_bytes(max_body_bytes)
        self.chunks = 0
        self.wire = 0
        self.pending = bytearray()  # received, not yet given to h11 (ahead of the pace)
        self.tokens = float(CHUNK_BURST)
        self.updated = now

    def refill(self, now: float) -> None:
        self.tokens = min(float(CHUNK_BURST), self.tokens + (now - self.updated) * CHUNK_RATE)
        self.updated = now

    def spend(self, chunks: int, wire: int) -> str | None:
        """Charges what h11 just parsed; why the request is refused, or None."""
        self.chunks += chunks
        self.wire += wire
        self.tokens -= chunks
        if self.chunks > self.max_chunks:
            return f"chunked request body of more than {self.max_chunks} chunks"
        if self.wire > self.max_wire:
            return f"chunked request body of more than {self.max_wire} bytes on the wire (chunk extensions included)"
        return None

    def wait(self) -> float:
        """Seconds until the connection is back on its rate (0: now)."""
        return max(0.0, -self.tokens / CHUNK_RATE) if self.tokens < 1 else 0.0
