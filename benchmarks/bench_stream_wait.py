"""What a stream's wait costs (games.push.Watcher.get): CPU per wait that times out (a
heartbeat) and per wait woken by a change, for thousands of streams on one event loop; and
what the Redis subscriber's look at the streams opened and closed costs (RedisBridge._reconcile),
beside its whole check of every channel (as it looked at every turn before), in the same run.

    .venv/bin/python benchmarks/bench_stream_wait.py [--streams 5000] [--waits 20] [--quick]

The yardstick, in the same run: the same waits made as they were before 952ef51, with
asyncio.wait_for over an asyncio.Event (a task per wait on Python 3.11). Compare the ratio; on a
shared box the microseconds move, the ratio much less.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kavet_site.settings")

from benchmarks.quick import parse_args  # noqa: E402


class EventWaiter:
    """The wait as it was: an Event, asyncio.wait_for with a timeout."""

    def __init__(self) -> None:
        self.pending: list = []
        self.event = asyncio.Event()

    def offer(self, change) -> None:
        self.pending.append(change)
        self.event.set()

    async def get(self, timeout: float) -> list:
        if not self.pending:
            try:
                await asyncio.wait_for(self.event.wait(), timeout)
            except TimeoutError:
                return []
        self.event.clear()
        changes, self.pending = self.pending, []
        return changes


async def measure(make, offer, streams: int, waits: int) -> tuple[float, float]:
    """(µs of CPU per wait that times out, per wait woken by a change)."""
    waiters = [make(i) for i in range(streams)]
    done = 0

    async def time_out(w) -> None:
        nonlocal done
        for _ in range(waits):
            await w.get(0.002)
            done += 1

    start = time.process_time()
    await asyncio.gather(*(time_out(w) for w in waiters))
    timed_out = (time.process_time() - start) / done * 1e6
    got = 0

    async def woken(w) -> None:
        nonlocal got
        for _ in range(waits):
            changes = await w.get(10)
            got += len(changes)  # (not `got += len(await ...)`: got would be read before)

    tasks = [asyncio.ensure_future(woken(w)) for w in waiters]
    await asyncio.sleep(0)
    start = time.process_time()
    for _ in range(waits):
        for w in waiters:
            offer(w)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
    await asyncio.gather(*tasks)
    return timed_out, (time.process_time() - start) / got * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=5000)
    parser.add_argument("--waits", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    args = parse_args(parser, quick={"streams": 500, "waits": 5, "runs": 1})
    import django

    django.setup()
    from games import push

    change = push.Change(game_id=1, version=1)

    async def run() -> None:
        loop = asyncio.get_running_loop()

        def watcher(i: int):
            w = push.Watcher(f"bench:{i}")
            push.hub.attach(w, loop)
            return w

        for _ in range(args.runs):
            old = await measure(
                lambda i: EventWaiter(), lambda w: w.offer(change), args.streams, args.waits
            )
            new = await measure(watcher, lambda w: w._offer(change), args.streams, args.waits)
            print(
                f"{args.streams} streams: a wait that times out {new[0]:.1f} us of CPU "
                f"(wait_for: {old[0]:.1f}, {old[0] / new[0]:.1f}x); a wait woken by a change "
                f"{new[1]:.1f} us (wait_for: {old[1]:.1f}, {old[1] / new[1]:.1f}x)"
            )

    asyncio.run(run())
    looks(args.streams)


def looks(streams: int, rounds: int = 300) -> None:
    """The subscriber's look after a stream closed, with `streams` streams on 80 % as many
    tables (a process's share of 10,000 tablets on four processes: 2,500 on ~2,000)."""
    from games.push import RedisBridge, _LocalHub, table_channel

    class Quiet:  # the subscriptions themselves are Redis's work, not counted here
        def subscribe(self, *names):
            pass

        def unsubscribe(self, *names):
            pass

    hub = _LocalHub()
    bridge = RedisBridge("redis://unused", "kavet:bench", hub)
    tables = int(streams * 0.8)
    watchers = [hub.watch(table_channel(i % tables)) for i in range(streams)]
    bridge._requested = bridge._wanted()
    bridge._confirmed = set(bridge._requested)
    cost = {}
    for full in (True, False):
        start = time.process_time()
        for i in range(rounds):
            bridge._leaving.append(table_channel(i))  # (each still has a stream: none dropped)
            bridge._reconcile(Quiet(), full=full)
        cost[full] = (time.process_time() - start) / rounds * 1e3
    print(
        f"{streams} streams on {tables} tables: the subscriber's look after a stream closed "
        f"{cost[False]:.3f} ms of CPU (a whole check: {cost[True]:.3f} ms, "
        f"{cost[True] / cost[False]:.0f}x)"
    )
    assert len(watchers) == streams


if __name__ == "__main__":
    main()
