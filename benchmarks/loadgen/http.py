"""One pooled HTTP/1.1 client on asyncio streams, and the server-sent events reader.

Raw streams rather than httpx or aiohttp: the generator must not be the bottleneck on the same
2 cores as the server, and a request here costs the client a few tens of microseconds (the
school's own CPU is measured in every window, `measure.py`). Every request of every tablet goes
through one `Pool` of keep-alive connections (a request on a kept-alive connection the server
had just closed is sent again once, as a browser does); only the event streams have a
connection each, as a browser's EventSource has.
"""

from __future__ import annotations

import asyncio
import collections
from dataclasses import dataclass, field
from urllib.parse import urlencode

from benchmarks.loadgen.board import unescape


class HTTPError(Exception):
    pass


@dataclass
class Response:
    status: int
    headers: dict[str, list[str]] = field(default_factory=dict)
    body: bytes = b""

    def header(self, name: str) -> str:
        values = self.headers.get(name.lower())
        return values[-1] if values else ""

    def cookies(self) -> dict[str, str]:
        """The cookies this answer sets ("" for a deleted one)."""
        out = {}
        for raw in self.headers.get("set-cookie", []):
            pair = raw.split(";", 1)[0]
            name, _, value = pair.partition("=")
            out[name.strip()] = value.strip().strip('"')
        return out


async def read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, list[str]]]:
    line = await reader.readline()
    if not line:
        raise ConnectionResetError("closed before the answer")
    parts = line.split()
    if len(parts) < 2:
        raise HTTPError(f"bad status line {line[:40]!r}")
    status = int(parts[1])
    headers: dict[str, list[str]] = {}
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.decode("latin-1").partition(":")
        headers.setdefault(name.strip().lower(), []).append(value.strip())
    return status, headers


async def read_body(reader: asyncio.StreamReader, headers: dict[str, list[str]]) -> bytes:
    if "chunked" in ",".join(headers.get("transfer-encoding", [])).lower():
        parts = []
        while True:
            size = int((await reader.readline()).strip().split(b";")[0] or b"0", 16)
            if size == 0:
                await reader.readline()
                return b"".join(parts)
            parts.append((await reader.readexactly(size + 2))[:-2])
    length = int((headers.get("content-length") or ["0"])[-1])
    return await reader.readexactly(length) if length else b""


class Pool:
    """Keep-alive connections to one server, shared by every tablet (cookies per request)."""

    def __init__(self, host: str, port: int, size: int = 128, timeout: float = 30.0) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self.idle: collections.deque = collections.deque()
        self.slots = asyncio.Semaphore(size)
        self.opened = 0
        self.requests = 0

    async def request(
        self,
        method: str,
        path: str,
        *,
        cookies: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        form: dict[str, str] | None = None,
    ) -> Response:
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        if cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in cookies.items() if v))
        for k, v in (headers or {}).items():
            lines.append(f"{k}: {v}")
        body = urlencode(form).encode() if form is not None else b""
        if form is not None:
            lines.append("Content-Type: application/x-www-form-urlencoded")
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        raw = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        async with self.slots:
            self.requests += 1
            for attempt in (1, 2):
                conn, reused = None, False
                if self.idle and attempt == 1:
                    conn, reused = self.idle.popleft(), True
                try:
                    if conn is None:
                        conn = await asyncio.wait_for(
                            asyncio.open_connection(self.host, self.port), self.timeout
                        )
                        self.opened += 1
                    reader, writer = conn
                    writer.write(raw)
                    status, head = await asyncio.wait_for(read_head(reader), self.timeout)
                    data = await asyncio.wait_for(read_body(reader, head), self.timeout)
                except (OSError, asyncio.IncompleteReadError, HTTPError) as exc:
                    if conn is not None:
                        conn[1].close()
                    if (
                        reused
                        and attempt == 1
                        and isinstance(exc, (ConnectionError, asyncio.IncompleteReadError))
                    ):
                        continue  # the server had closed the kept-alive connection
                    raise
                except TimeoutError:
                    if conn is not None:
                        conn[1].close()
                    raise
                if "close" in ",".join(head.get("connection", [])).lower():
                    writer.close()
                else:
                    self.idle.append(conn)
                return Response(status, head, data)
        raise HTTPError("unreachable")

    def close(self) -> None:
        while self.idle:
            self.idle.popleft()[1].close()


@dataclass
class Event:
    name: str
    data: str
    id: str | None


async def open_stream(
    host: str, port: int, path: str, *, cookies: dict, headers: dict, timeout: float = 30.0
):
    """An event stream's connection once its answer's head is in: (status, reader, writer,
    chunked). The caller reads the events with `events()` and closes the writer."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}", "Accept: text/event-stream"]
    lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in cookies.items() if v))
    lines += [f"{k}: {v}" for k, v in headers.items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    try:
        status, head = await asyncio.wait_for(read_head(reader), timeout)
    except BaseException:
        writer.close()
        raise
    chunked = "chunked" in ",".join(head.get("transfer-encoding", [])).lower()
    return status, reader, writer, chunked


async def events(reader: asyncio.StreamReader, chunked: bool):
    """The events of an open stream, as the browser's EventSource parses them, until it ends."""
    buffer = b""
    while True:
        if chunked:
            size_line = await reader.readline()
            if not size_line:
                return
            size = int(size_line.strip() or b"0", 16)
            if size == 0:
                return
            buffer += (await reader.readexactly(size + 2))[:-2]
        else:
            data = await reader.read(65536)
            if not data:
                return
            buffer += data
        while b"\n\n" in buffer:
            block, buffer = buffer.split(b"\n\n", 1)
            name, data, ident = "message", [], None
            for line in block.decode().split("\n"):
                if not line or line.startswith(":"):
                    continue
                key, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if key == "event":
                    name = value
                elif key == "data":
                    data.append(value)
                elif key == "id":
                    ident = value
            if data or name != "message":
                yield Event(name, "\n".join(data), ident)


def html_attr(body: str, pattern) -> str:
    m = pattern.search(body)
    return unescape(m.group(1)) if m else ""
