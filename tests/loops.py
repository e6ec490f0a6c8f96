"""Running a coroutine from a sync test."""

from __future__ import annotations

import asyncio
import threading


def run(coro):
    """Run a coroutine on an event loop of its own, in a thread: the browser tests' Playwright
    keeps a loop running in the main thread, where asyncio.run would refuse to start."""
    result: dict = {}

    def target() -> None:
        try:
            result["value"] = asyncio.run(asyncio.wait_for(coro, 10))
        except BaseException as exc:  # handed back to the test's thread
            result["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(30)
    if "error" in result:
        raise result["error"]
    return result["value"]
