"""Simulated tablets: each keeps one HTTP/1.1 keep-alive connection and polls its URL at a steady
pace, as htmx's `every 2s` does, timing every answer. Run by bench_table_load.py in a process of
its own; prints one JSON line with the figures.

asyncio rather than wrk: wrk's Lua `delay()` keeps one timer per connection in a list it scans on
every loop, and with hundreds of tablets it reported half-second stalls even against a trivial
WSGI app that a plain client measured at 1-2 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.stats import pct  # noqa: E402


async def tablet(
    host: str,
    port: int,
    path: str,
    cookie: str,
    *,
    interval: float,
    until: float,
    latencies: list[float],
    statuses: dict[int, int],
    errors: list[str],
    rnd: random.Random,
    headers: str,
) -> None:
    loop = asyncio.get_running_loop()
    await asyncio.sleep(rnd.uniform(0, interval))  # tablets are not switched on in one instant
    reader = writer = None
    next_at = loop.time()
    request = (
        f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nCookie: {cookie}\r\n{headers}\r\n"
    ).encode()
    while loop.time() < until:
        started = time.perf_counter()
        # Like a browser: a request on a kept-alive connection that the server had just closed
        # (a worker recycled) is sent again once on a new connection, and timed as one request.
        for attempt in (1, 2):
            reused = writer is not None
            try:
                if writer is None:
                    reader, writer = await asyncio.open_connection(host, port)
                status, close = await exchange(reader, writer, request)
                latencies.append((time.perf_counter() - started) * 1000)
                statuses[status] = statuses.get(status, 0) + 1
                if close:
                    writer.close()
                    writer = None
                break
            except (
                TimeoutError,
                OSError,
                ValueError,
                IndexError,
                asyncio.IncompleteReadError,
            ) as exc:
                if writer is not None:
                    writer.close()
                writer = None
                if not (reused and attempt == 1 and isinstance(exc, ConnectionError)):
                    errors.append(type(exc).__name__)
                    break
        next_at += interval * rnd.uniform(0.9, 1.1)
        await asyncio.sleep(max(0.0, next_at - loop.time()))
    if writer is not None:
        writer.close()


async def exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes
) -> tuple[int, bool]:
    """Send one request and read its answer: (status, whether the server closes)."""
    writer.write(request)
    await writer.drain()
    status_line = await asyncio.wait_for(reader.readline(), 10)
    if not status_line:
        raise ConnectionResetError("closed by the server")
    status = int(status_line.split()[1])
    length, close = 0, False
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.decode("latin-1").partition(":")
        if name.lower() == "content-length":
            length = int(value)
        elif name.lower() == "connection" and value.strip().lower() == "close":
            close = True
    if length:
        await reader.readexactly(length)
    return status, close


async def main_async(args: argparse.Namespace) -> dict:
    targets = json.load(open(args.targets))
    loop = asyncio.get_running_loop()
    until = loop.time() + args.seconds
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    errors: list[str] = []
    headers = "".join(f"{h}\r\n" for h in args.header)
    await asyncio.gather(
        *(
            tablet(
                args.host,
                args.port,
                path,
                cookie,
                interval=args.interval,
                until=until,
                latencies=latencies,
                statuses=statuses,
                errors=errors,
                rnd=random.Random(i),
                headers=headers,
            )
            for i, (path, cookie) in enumerate(targets)
        )
    )
    return {
        "requests": len(latencies),
        "seconds": args.seconds,
        "p50": pct(latencies, 50),
        "p95": pct(latencies, 95),
        "p99": pct(latencies, 99),
        "max": max(latencies, default=float("nan")),
        "statuses": statuses,
        "errors": len(errors),
        "error_kinds": sorted(set(errors)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", help="JSON file: [[path, cookie], ...], one pair per tablet")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--interval", type=float, default=2.0)
    parser.add_argument("--header", action="append", default=[], help='e.g. "HX-Request: true"')
    args = parser.parse_args()
    sys.setrecursionlimit(10_000)
    print("RESULT " + json.dumps(asyncio.run(main_async(args))), flush=True)


if __name__ == "__main__":
    main()
