"""The flooding tablet of tests/drills/test_stream_flood.py, in a process of its own (asyncio,
raw sockets, loopback only), so its own work never delays the test's measurements.

    python -m tests.drills.stream_flood PORT FLOOD_PATH FLOOD_COOKIE KEEPER_PATH KEEPER_COOKIE \
        ATTEMPTS CONCURRENCY DEADLINE

First the other tablet's stream (the keeper) is opened and kept. Then ATTEMPTS streams are
tried with one tablet's cookie and URL, CONCURRENCY at a time (each attempt lasts until its
answer is refused or its stream's `hello` arrives; an open stream is then kept, as an attacker
would), never past DEADLINE seconds. Prints `FLOODED {json}`; then, when a line comes on stdin
(the test has moved the keeper's table), waits up to 10 s for the keeper to hear it and prints
`HEARD {json}`.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

HOST = "127.0.0.1"
SESSION_CAP = (
    5  # KAVET_STREAMS_PER_SESSION of the drill's server (tests/drills/test_stream_flood.py)
)


class Stream:
    """One server-sent-events request: its status, whether it opened, and how it ended."""

    def __init__(self) -> None:
        self.status = 0
        self.opened = asyncio.get_running_loop().create_future()
        self.ended = False
        self.bye = False
        self.events: list[str] = []
        self.heard = asyncio.Event()
        self.writer: asyncio.StreamWriter | None = None

    async def run(self, path: str, cookie: str) -> None:
        try:
            reader, self.writer = await asyncio.open_connection(HOST, PORT)
            self.writer.write(
                f"GET {path} HTTP/1.1\r\nHost: {HOST}:{PORT}\r\nCookie: {cookie}\r\n"
                f"Accept: text/event-stream\r\n\r\n".encode()
            )
            await self.writer.drain()
            status_line = await asyncio.wait_for(reader.readline(), 30)
            self.status = int(status_line.split()[1])
            chunked = False
            while True:
                line = await asyncio.wait_for(reader.readline(), 30)
                if line in (b"\r\n", b""):
                    break
                if line.lower().startswith(b"transfer-encoding:") and b"chunked" in line.lower():
                    chunked = True
            if self.status != 200 or not chunked:
                return
            buffer = b""
            while True:
                size = int((await reader.readline()).strip() or b"0", 16)
                if size == 0:
                    return  # the server ended the stream (the terminating chunk)
                buffer += (await reader.readexactly(size + 2))[:-2]
                while b"\n\n" in buffer:
                    block, buffer = buffer.split(b"\n\n", 1)
                    for line in block.split(b"\n"):
                        if line.startswith(b"event: "):
                            name = line[7:].decode()
                            self.events.append(name)
                            if name == "hello" and not self.opened.done():
                                self.opened.set_result(True)
                            elif name == "bye":
                                self.bye = True
                            elif name == "table":
                                self.heard.set()
        except (OSError, ValueError, IndexError, asyncio.IncompleteReadError, TimeoutError):
            pass
        finally:
            self.ended = True
            if not self.opened.done():
                self.opened.set_result(False)
            if self.writer is not None:
                self.writer.close()


async def main(args: list[str]) -> None:
    global PORT
    PORT = int(args[0])
    flood_path, flood_cookie, keeper_path, keeper_cookie = args[1:5]
    attempts, concurrency, deadline = int(args[5]), int(args[6]), float(args[7])
    started = time.monotonic()
    tasks: list[asyncio.Task] = []

    keeper = Stream()
    tasks.append(asyncio.ensure_future(keeper.run(keeper_path, keeper_cookie)))
    await asyncio.wait_for(asyncio.shield(keeper.opened), 30)

    streams: list[Stream] = []
    gate = asyncio.Semaphore(concurrency)

    async def attempt() -> None:
        async with gate:
            if time.monotonic() - started > deadline:
                return
            stream = Stream()
            streams.append(stream)
            tasks.append(asyncio.ensure_future(stream.run(flood_path, flood_cookie)))
            await asyncio.wait_for(asyncio.shield(stream.opened), 60)

    await asyncio.gather(*(attempt() for _ in range(attempts)), return_exceptions=True)
    flood_seconds = time.monotonic() - started
    # The streams replaced last say bye and end: at least 2 s, then until no more than the
    # session's cap are open and none has ended for a second, at most 15 s in all. On a busy CI
    # box a bye sent in time can take longer to be read: it was counted twice as a sixth
    # stream still open (once after a fixed 2 s, once after a quiet second); a stream truly
    # over the cap is still open after 15 s and fails the drill.
    await asyncio.sleep(2.0)
    settle_until = time.monotonic() + 13.0

    def open_now() -> int:
        return sum(1 for s in streams if s.events and s.events[0] == "hello" and not s.ended)

    ended = sum(1 for s in streams if s.ended)
    while time.monotonic() < settle_until:
        await asyncio.sleep(1.0)
        now_ended = sum(1 for s in streams if s.ended)
        if now_ended == ended and open_now() <= SESSION_CAP:
            break
        ended = now_ended
    statuses: dict[str, int] = {}
    for stream in streams:
        statuses[str(stream.status)] = statuses.get(str(stream.status), 0) + 1
    opened = [s for s in streams if s.events and s.events[0] == "hello"]
    still_open = [s for s in opened if not s.ended]
    report = {
        "attempts": len(streams),
        "statuses": statuses,
        "opened": len(opened),
        "still_open": len(still_open),
        "ended_with_bye": sum(1 for s in opened if s.ended and s.bye),
        "ended_without_bye": sum(1 for s in opened if s.ended and not s.bye),
        "keeper_open": not keeper.ended,
        "seconds": round(flood_seconds, 1),
    }
    print("FLOODED " + json.dumps(report), flush=True)

    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.readline)
    try:
        await asyncio.wait_for(keeper.heard.wait(), 10)
    except TimeoutError:
        pass
    print("HEARD " + json.dumps({"keeper": keeper.heard.is_set()}), flush=True)
    for stream in [keeper, *streams]:
        if stream.writer is not None:
            stream.writer.close()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


PORT = 0

if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
