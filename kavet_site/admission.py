"""At most a few requests of one kind are being answered at once per process; the rest wait
briefly on the event loop, or get 503 at once.

An ASGI middleware in front of Django (kavet_site/asgi.py puts the push streams, /push/,
behind it). A stream request costs what a page does until its response starts (a thread,
the session, a pooled database connection for its permission check) and almost nothing after
(it waits on the push hub). A flood of stream opens (1,812 from one tablet) once took every
pooled connection, and /healthz, waiting behind them, answered 503. Here at most `limit` such
requests per process are past the gate before their response starts; `queue` more wait up to
`wait` seconds (a future on the event loop: no thread, no connection); any more, or one that
waited too long, get 503 with Retry-After at once. A stream's slot is given back as soon as
its response starts, not when the stream ends. Everything else (pages, moves, /healthz)
never passes through the gate, so a flood of streams leaves them their pooled connections.
"""

from __future__ import annotations

import asyncio
from collections import deque
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import FileResponse
from django.urls import set_script_prefix


class _Slots:
    """`limit` slots on one event loop; waiters are handed a freed slot in arrival order."""

    def __init__(self, limit: int) -> None:
        self.free = limit
        self.waiters: deque[asyncio.Future] = deque()

    async def enter(self, queue: int, wait: float) -> bool:
        if self.free > 0 and not self.waiters:
            self.free -= 1
            return True
        if len(self.waiters) >= queue:
            return False
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        self.waiters.append(waiter)
        timer = loop.call_later(wait, lambda: waiter.done() or waiter.set_result(False))
        try:
            return await waiter  # True: a slot was handed over
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled() and waiter.result():
                self.leave()  # handed a slot just as the client went away: pass it on
            raise
        finally:
            timer.cancel()
            try:
                self.waiters.remove(waiter)
            except ValueError:
                pass

    def leave(self) -> None:
        while self.waiters:
            waiter = self.waiters.popleft()
            if not waiter.done():
                waiter.set_result(True)
                return
        self.free += 1


class AdmissionGate:
    """ASGI middleware: requests whose path starts with `prefix` pass `limit` at a time."""

    def __init__(
        self,
        app,
        *,
        prefix: str,
        limit: int,
        queue: int,
        wait: float,
        retry_after: int = 5,
    ) -> None:
        self.app = app
        self.prefix = prefix
        self.limit = max(1, limit)
        self.queue = max(0, queue)
        self.wait = wait
        self.retry_after = retry_after
        self._slots: dict[asyncio.AbstractEventLoop, _Slots] = {}
        self.refused = 0  # how many were answered 503 (for tests and a curious operator)

    def _for_loop(self) -> _Slots:
        # One loop per process under uvicorn; a test may run several loops one after another.
        loop = asyncio.get_running_loop()
        slots = self._slots.get(loop)
        if slots is None:
            for old in [k for k in self._slots if k.is_closed()]:
                del self._slots[old]
            slots = self._slots[loop] = _Slots(self.limit)
        return slots

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or not scope.get("path", "").startswith(self.prefix):
            await self.app(scope, receive, send)
            return
        slots = self._for_loop()
        if not await slots.enter(self.queue, self.wait):
            self.refused += 1
            await self._busy(send)
            return
        held = True

        def give_back() -> None:
            nonlocal held
            if held:
                held = False
                slots.leave()

        async def send_and_give_back(message) -> None:
            if message["type"] == "http.response.start":
                give_back()  # the answer has started: the costly part is over
            await send(message)

        try:
            await self.app(scope, receive, send_and_give_back)
        finally:
            give_back()

    async def _busy(self, send) -> None:
        # A stream's EventSource gives up on a 503; static/js/live.js then polls and tries
        # the stream again later.
        await send(
            {
                "type": "http.response.start",
                "status": 503,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"retry-after", str(self.retry_after).encode()),
                    (b"cache-control", b"no-store"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b"busy, try again shortly\n"})


class SharedThreads:
    """Requests run their sync code on a few shared threads, not on a new thread each.

    Django's ASGI handler runs each request in asgiref's ThreadSensitiveContext, with a
    single-thread executor of its own until the request ends. A push stream is a request of
    minutes whose sync part (the permission check, one read) is over in milliseconds: 10,000
    open streams kept 10,024 idle OS threads (about 115 KiB each), and every later request paid
    for them (starting a thread walks the list of live threads). Here such requests enter a
    context with one of `threads` shared single-thread executors first, so Django's own context
    is a no-op inside it and no thread is made per stream (benchmarks/README.md, the capacity
    sweep: 40 threads instead of 10,024, 799 MiB of workers' RSS instead of 1,417).

    Every other request (pages, moves, board fetches) runs on `others` shared threads of its
    own the same way (0: Django's thread per request): a thread made and ended per request,
    and the hand-offs to it, were a quarter of a busy worker's samples. One request stays on
    one thread from start to end (asgiref's rule: each executor runs one call at a time), so
    its database connection (per thread, borrowed from the pool at its start and given back
    at its end by Django's request signals) and its thread-locals are its own meanwhile. A new
    request goes to the thread with the fewest requests in flight, so a slow one (a lock wait)
    holds up as few others as can be; the streams' threads are apart from the pages', so
    thousands of open streams never make a page wait.
    """

    def __init__(self, app, *, prefix: str, threads: int = 4, others: int = 0) -> None:
        self.app = app
        self.prefix = prefix
        self._pools = {
            "prefix": self._pool("kavet-shared", threads),
            "others": self._pool("kavet-request", others),
        }

    @staticmethod
    def _pool(name: str, threads: int) -> tuple[list[ThreadPoolExecutor], list[int]]:
        executors = [
            ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"{name}-{i}")
            for i in range(threads)
        ]
        return executors, [0] * len(executors)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        executors, busy = self._pools[
            "prefix" if scope.get("path", "").startswith(self.prefix) else "others"
        ]
        if not executors:
            return await self.app(scope, receive, send)
        i = min(range(len(busy)), key=busy.__getitem__)  # the fewest requests in flight
        busy[i] += 1
        try:
            async with ThreadSensitiveContext(executor=executors[i]):
                return await self.app(scope, receive, send)
        finally:
            busy[i] -= 1


class OneHopASGIHandler(ASGIHandler):
    """Django's ASGI handler with a request's whole sync part in one hand-off to its thread.

    The site's middleware are sync (one of them, AxesMiddleware, both), so under Django's own
    handler a request went to its thread for the outer middleware, back to the event loop for
    Axes and the async response path, and to the thread again for the view: three hand-offs
    (a future, a wake-up of the loop, the context copied each way) where one does. Here the
    chain is built sync, as under WSGI, and runs in one call on the request's thread.

    The request_started signal and, for an answer that is not streamed, the response's close
    (request_finished: the database connection back to its pool) run in that same call, before
    the bytes go out: Django's handler sends each of them to the thread on its own (three
    hand-offs per request in all, each copying the context both ways: a fifth of a bare view's
    CPU, issue 38). A streamed answer (the push streams, which keep Django's own handling
    whole; a static file) is sent as Django sends it, listening for the client going away
    meanwhile, and closed after. An async view (none today) would still work: Django's sync
    path runs it with async_to_sync.
    """

    def __init__(self, *, streams_prefix: str = "/push/") -> None:
        super().__init__()
        self.streams_prefix = streams_prefix

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    async def get_response_async(self, request):
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)

    async def handle(self, scope, receive, send) -> None:
        if scope.get("path", "").startswith(self.streams_prefix):
            await super().handle(scope, receive, send)  # minutes long: Django's own, whole
            return
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        set_script_prefix(get_script_prefix(scope))
        try:
            response = await sync_to_async(self._answer, thread_sensitive=True)(scope, body_file)
            if response.streaming:
                await self._send_streamed(response, receive, send)
            else:
                try:
                    await self.send_response(response, send)
                except asyncio.CancelledError:
                    pass  # the client went away while it was sent (as Django's handler)
        finally:
            body_file.close()

    def _answer(self, scope, body_file):
        """On the request's thread: request_started, the middleware and view, and the close of
        an answer that is not streamed (request_finished)."""
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
            response._handler_class = self.__class__
            if isinstance(response, FileResponse):
                response.block_size = self.chunk_size
        if not response.streaming:
            response.close()
        return response

    async def _send_streamed(self, response, receive, send) -> None:
        """As Django's handler: sent while listening for the client going away, then closed."""
        tasks = [
            asyncio.create_task(self.listen_for_disconnect(receive)),
            asyncio.create_task(self.send_response(response, send)),
        ]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            if not task.done():
                task.cancel()
            try:
                await task
            except (asyncio.CancelledError, RequestAborted):
                pass
        if tasks[1].cancelled():
            await signals.request_finished.asend(sender=self.__class__)
        else:
            await sync_to_async(response.close, thread_sensitive=True)()
