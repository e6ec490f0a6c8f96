"""The admission gate in front of the push streams (kavet_site.admission): a few at a time per
process until their response starts, a short queue, 503 at once past it; other paths never wait."""

from __future__ import annotations

import asyncio
import threading

from kavet_site.admission import AdmissionGate
from tests.loops import run


class SlowApp:
    """Answers each request once told to (`go[path]`), as a stream whose permission check waits."""

    def __init__(self) -> None:
        self.go: dict[str, asyncio.Event] = {}
        self.inside = 0
        self.most_inside = 0

    async def __call__(self, scope, receive, send) -> None:
        self.inside += 1
        self.most_inside = max(self.most_inside, self.inside)
        try:
            await self.go.setdefault(scope["path"], asyncio.Event()).wait()
        finally:
            self.inside -= 1
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await asyncio.sleep(0.05)  # the stream goes on: its slot is already given back
        await send({"type": "http.response.body", "body": b"ok"})


async def request(app, path: str) -> int:
    status = {}

    async def send(message):
        if message["type"] == "http.response.start":
            status["code"] = message["status"]
            status["headers"] = dict(message["headers"])

    async def receive():
        return {"type": "http.request", "body": b""}

    await app({"type": "http", "path": path}, receive, send)
    return status["code"]


def test_a_few_at_a_time_a_short_queue_and_503_past_it():
    inner = SlowApp()
    gate = AdmissionGate(inner, prefix="/push/", limit=2, queue=2, wait=5)

    async def scenario():
        first = [asyncio.ensure_future(request(gate, f"/push/{i}")) for i in range(4)]
        await asyncio.sleep(0.05)
        assert inner.inside == 2  # two past the gate, two queued
        refused = await request(gate, "/push/5")  # the queue is full: at once
        for i in range(4):
            inner.go.setdefault(f"/push/{i}", asyncio.Event()).set()
        return refused, await asyncio.gather(*first)

    refused, statuses = run(scenario())
    assert refused == 503
    assert statuses == [200, 200, 200, 200]
    assert inner.most_inside == 2
    assert gate.refused == 1


def test_a_queued_request_waits_only_so_long():
    inner = SlowApp()
    gate = AdmissionGate(inner, prefix="/push/", limit=1, queue=5, wait=0.2)

    async def scenario():
        held = asyncio.ensure_future(request(gate, "/push/held"))
        await asyncio.sleep(0.02)
        loop = asyncio.get_running_loop()
        started = loop.time()
        status = await request(gate, "/push/waits")
        waited = loop.time() - started
        inner.go["/push/held"].set()
        await held
        inner.go.setdefault("/push/after", asyncio.Event()).set()
        return status, waited, await request(gate, "/push/after")

    status, waited, after = run(scenario())
    assert status == 503 and 0.15 < waited < 2
    assert after == 200  # the slot came back when the held one's response started


def test_other_paths_never_wait_behind_the_streams():
    inner = SlowApp()
    gate = AdmissionGate(inner, prefix="/push/", limit=1, queue=0, wait=1)

    async def scenario():
        held = asyncio.ensure_future(request(gate, "/push/held"))
        await asyncio.sleep(0.02)
        inner.go.setdefault("/healthz", asyncio.Event()).set()
        healthz = await request(gate, "/healthz")
        refused = await request(gate, "/push/more")
        inner.go["/push/held"].set()
        await held
        return healthz, refused

    assert run(scenario()) == (200, 503)


def test_the_refusal_says_when_to_try_again():
    inner = SlowApp()
    gate = AdmissionGate(inner, prefix="/push/", limit=1, queue=0, wait=1, retry_after=7)
    seen: list[dict] = []

    async def scenario():
        held = asyncio.ensure_future(request(gate, "/push/held"))
        await asyncio.sleep(0.02)

        async def send(message):
            seen.append(message)

        await gate({"type": "http", "path": "/push/more"}, None, send)
        inner.go["/push/held"].set()
        await held

    run(scenario())
    start = seen[0]
    assert start["status"] == 503
    assert (b"retry-after", b"7") in start["headers"]


def test_a_client_that_leaves_while_queued_gives_its_turn_on():
    inner = SlowApp()
    gate = AdmissionGate(inner, prefix="/push/", limit=1, queue=5, wait=5)

    async def scenario():
        held = asyncio.ensure_future(request(gate, "/push/held"))
        await asyncio.sleep(0.02)
        leaving = asyncio.ensure_future(request(gate, "/push/leaves"))
        waiting = asyncio.ensure_future(request(gate, "/push/next"))
        await asyncio.sleep(0.02)
        leaving.cancel()
        inner.go.setdefault("/push/next", asyncio.Event()).set()
        inner.go["/push/held"].set()
        await held
        return await waiting, leaving.cancelled()

    assert run(scenario()) == (200, True)


def test_streams_run_their_sync_part_on_a_few_shared_threads_not_one_each():
    from asgiref.sync import ThreadSensitiveContext, sync_to_async

    from kavet_site.admission import SharedThreads

    threads: dict[str, set[int]] = {"/push/": set(), "/page/": set()}
    release = None

    async def django_like(scope, receive, send):
        # As Django's ASGI handler: its own context (a thread of its own unless one is set),
        # the view's sync part there, then a long async body (a stream waiting on the hub).
        async with ThreadSensitiveContext():
            ident = await sync_to_async(threading.get_ident)()
            threads[scope["path"]].add(ident)
            await release.wait()

    app = SharedThreads(django_like, prefix="/push/", threads=4)

    async def scenario():
        nonlocal release
        release = asyncio.Event()
        calls = [app({"type": "http", "path": "/push/"}, None, None) for _ in range(40)]
        calls += [app({"type": "http", "path": "/page/"}, None, None) for _ in range(5)]
        tasks = [asyncio.ensure_future(c) for c in calls]
        while sum(len(s) for s in threads.values()) < 4 + 5 and not all(t.done() for t in tasks):
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)  # every stream has run its sync part and is waiting
        release.set()
        await asyncio.gather(*tasks)

    run(scenario())
    assert 1 <= len(threads["/push/"]) <= 4  # 40 open streams, at most 4 threads
    assert len(threads["/page/"]) == 5  # pages keep a thread of their own each, as before
