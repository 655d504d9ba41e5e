"""A TCP relay from a loopback port to a server, for the client side of the cluster-state tests. TLS stays end
to end (the relay sees only bytes; the server's SAN is 127.0.0.1).

- Before open() its port refuses connections, as an API server not started yet does.
- freeze() makes it a silent peer, as a hung server or a proxy that lost its upstream: every connection open
  stays open and gets no byte more, and a new one is accepted and then answered nothing (not even the TLS
  handshake). thaw() lets the bytes flow again.
"""

from __future__ import annotations

import socket
import threading

from support import free_port


class Relay:
    def __init__(self, target_port: int) -> None:
        self.port, self.target_port = free_port(), target_port
        self.listener: socket.socket | None = None
        self.sockets: list[socket.socket] = []
        self.flowing = threading.Event()
        self.flowing.set()
        self.accepted = 0

    def open(self) -> "Relay":
        self.listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def freeze(self) -> None:
        self.flowing.clear()

    def thaw(self) -> None:
        self.flowing.set()

    def _accept(self) -> None:
        while True:
            try:
                inbound, _ = self.listener.accept()
            except OSError:
                return
            self.accepted += 1
            self.sockets.append(inbound)
            threading.Thread(target=self._connect, args=(inbound,), daemon=True).start()

    def _connect(self, inbound: socket.socket) -> None:
        self.flowing.wait()
        try:
            outbound = socket.create_connection(("127.0.0.1", self.target_port))
        except OSError:
            inbound.close()
            return
        self.sockets.append(outbound)
        for source, sink in ((inbound, outbound), (outbound, inbound)):
            threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                self.flowing.wait()
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.flowing.set()
        for sock in [self.listener, *self.sockets]:
            if sock is not None:
                sock.close()
