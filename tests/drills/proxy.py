"""A small threaded TCP proxy for fault drills: put it in front of PostgreSQL, cut it, restore it.

cut(): every open connection is reset and new ones are refused (the port is closed), as when
the database host goes away. restore(): the same port listens again.
"""

from __future__ import annotations

import socket
import threading


class TCPProxy:
    def __init__(self, upstream: tuple[str, int], port: int = 0) -> None:
        self.upstream = upstream
        self.port = port
        self._listener: socket.socket | None = None
        self._conns: set[socket.socket] = set()
        self._lock = threading.Lock()
        self.accepted = 0

    def start(self) -> TCPProxy:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return self

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # closed by cut()/stop()
            try:
                server = socket.create_connection(self.upstream, timeout=5)
                server.settimeout(None)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._conns.update((client, server))
                self.accepted += 1
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                self._drop(s)

    def _drop(self, s: socket.socket) -> None:
        with self._lock:
            self._conns.discard(s)
        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()

    def cut(self) -> None:
        if self._listener is not None:
            try:  # wakes the thread blocked in accept(); close() alone would not stop listening
                self._listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._listener.close()
            self._listener = None
        with self._lock:
            conns = list(self._conns)
        for s in conns:
            self._drop(s)

    def restore(self) -> None:
        self.start()

    stop = cut
