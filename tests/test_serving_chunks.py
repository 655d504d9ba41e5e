"""Chunked request bodies are charged their chunks and wire bytes, chunk extensions included (issue 37):
a request over either limit is answered 413 and its connection closed; ordinary chunked requests, even
a byte per chunk, are answered as before. A real server over TLS; nothing here depends on the clock."""

from __future__ import annotations

import json

import pytest

from support import review_body, start_server, valid_slice
from test_serving import certs_dir, read_until_closed, tls_socket
from webhook.serving import chunks

BODY = json.dumps(review_body(valid_slice())).encode()
HEAD = (b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n")


def _chunked(body: bytes, size: int, extension: bytes = b"") -> bytes:
    pieces = [b"%x%s\r\n%s\r\n" % (len(body[i:i + size]), extension, body[i:i + size])
              for i in range(0, len(body), size)]
    return b"".join(pieces) + b"0\r\n\r\n"


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("chunks")
    started = {"default": start_server(tmp, cert_dir=certs_dir(tmp)),
               "small": start_server(tmp, "--max-body-bytes", "65536", cert_dir=certs_dir(tmp))}
    yield started
    for server in started.values():
        server.stop()


def _exchange(server, data: bytes) -> bytes:
    sock = tls_socket(server)
    try:
        try:
            sock.sendall(data)
        except OSError:
            pass  # cut while sending: what it answered first is still there to read
        return read_until_closed(sock)
    finally:
        sock.close()


def test_the_limits_follow_the_body_limit():
    assert chunks.max_chunks(8 * 1024 * 1024) == 8192 and chunks.max_chunks(65536) == 1024
    assert chunks.max_wire_bytes(65536) == 65536 + 16 * 1024 + 64 * 1024


def test_too_many_chunks_are_refused_and_the_connection_closed(servers):
    padding = b" " * 1025  # 1,025 one-byte chunks: one more than a 64 KiB body limit allows
    reply = _exchange(servers["small"], HEAD + _chunked(padding + BODY, 1))
    assert reply.startswith(b"HTTP/1.1 413 "), reply[:200]
    assert reply.endswith(b"chunked request body of more than 1024 chunks\n")


def test_chunk_extensions_are_charged_as_wire_bytes(servers):
    extension = b";x=" + b"e" * 4096  # h11 skips extensions: they never reach the body, nor did they a budget
    reply = _exchange(servers["small"], HEAD + _chunked(BODY, 8, extension))  # ~400 KiB of extensions
    assert reply.startswith(b"HTTP/1.1 413 "), reply[:200]
    assert b"on the wire (chunk extensions included)" in reply


@pytest.mark.parametrize("size", [1, 7, 4096])
def test_ordinary_chunked_reviews_are_answered(servers, size):
    reply = _exchange(servers["default"], HEAD.replace(b"HTTP/1.1\r\n", b"HTTP/1.1\r\nConnection: close\r\n")
                      + _chunked(BODY, size))
    assert reply.startswith(b"HTTP/1.1 200 "), reply[:300]
    assert json.loads(reply.split(b"\r\n\r\n", 1)[1])["response"]["allowed"] is True


def test_a_request_after_a_chunked_one_on_the_same_connection_is_answered(servers):
    plain = (b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n"
             b"Content-Length: %d\r\n\r\n" % len(BODY) + BODY)
    reply = _exchange(servers["default"], HEAD + _chunked(BODY, 3) + plain)
    assert reply.count(b"HTTP/1.1 200 ") == 2, reply[:300]
