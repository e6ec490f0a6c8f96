"""Server-sent events: a table's tablets and the teacher's live view hear each change at once.

    GET /push/table/<game_id>/?t=<poll token>&v=<version seen>   (a seat's tablet)
    GET /push/session/<session_id>/?v=<version seen>              (the teacher's live view)

The second is a group of tables watched together (games.signals.table_group): the app above
serves it through `group_stream` (classgames.stream: a class game's tables).

Each event is `id: V / event: table / data: {"version": V}`, and on a seat's stream, for a move
made from a tablet, `{"version": V, "board": "<the seat's new board>"}` (`_Table`: the board the
move's push carries, filled in for this seat as its fetch would be); the browser's EventSource sends
the last id back as Last-Event-ID when it reconnects, and a client that is behind the database
gets the current version at once. An `hb` event every HEARTBEAT seconds keeps proxies from
closing the connection and tells the page its stream is alive; after LIFETIME seconds the server
closes it and the browser reconnects (so connections spread again over the processes behind a
load balancer). Under ASGI each process's keeper (`_Keeper`) watches its seats' streams in place
of the tablets' safety-net poll: their presence stamped, their tables checked.

The views are sync: they check permissions with the same rules as the pages (classrooms.permissions), read the
version once, give their database connection back, and return a response that only waits on
the push hub (games.push). Under ASGI the body is an async iterator (no thread, no database
connection per tablet); under WSGI (runserver, the embedded default) a generator that blocks
on the in-process hub. Under gunicorn's WSGI workers a stream would hold a thread per tablet,
so there the view answers 204 and the tablet keeps polling.

A flood of streams from one tablet must not take the database from everyone else:

- What is checked before the database: the signed token (a tablet's) and the session's user
  id (the session comes from the cache) must match, else 403 at once.
- The database is used in one short block (the user, the seat or the class, the version),
  and its connection goes back to the pool at the end of that block: never held while the
  stream waits for the push subscriber, for Redis or for a change.
- Under ASGI, kavet_site.admission lets only a few stream requests per process be in that
  phase at once (the rest wait briefly on the event loop, or get 503): a flood queues for a
  few pooled connections, never for all of them, and /healthz and the pages keep theirs.
- games.streamcap caps the streams open per session and per address: the oldest is closed
  with a `bye` event (static/js/live.js then polls and does not reconnect).

For a group, the event id is the sum of its games' versions (it only ever grows).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import uuid
import weakref
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import SESSION_KEY as AUTH_USER_KEY
from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden, StreamingHttpResponse
from django.middleware.csrf import get_token
from django.utils import timezone
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from games import permissions, push, push_events, services, streamcap, table_cache
from games.models import Game
from games.polling import poll_token_read
from kavet_site.clientip import client_bucket

log = logging.getLogger(__name__)

# Seconds between keep-alive events (push_events.Heartbeat). 25, not 15: 10,000 open streams
# sent 667 a second, each a wait, a write through uvicorn and a read by the tablet (issue 38);
# proxies' read timeouts are 60 s by default, and a tablet gives a stream up after 60 s of
# silence (static/js/live.js: SILENT_AFTER, over two heartbeats).
HEARTBEAT = 25.0
# Seconds before the server closes a stream (the browser reconnects, so the streams spread
# again over the processes behind a load balancer, within half an hour of a new one). Each
# reconnect costs a stream's opening (the session, its permission read, its cap's ticket) and
# the page's one fetch on `hello`: at 5 minutes, 10,000 tablets reopened 32 streams a second
# for that alone, at 30 minutes about 5 (issue 38).
LIFETIME = 1800.0
LIFETIME_JITTER = 300.0  # so the streams of one class do not all reconnect in the same second
RETRY_MS = 2000  # how long the browser waits before reconnecting after a close
ENDED = (Game.Status.FINISHED, Game.Status.ABANDONED)
# First thing on every stream: the reconnect delay, and an event the page waits for (a stream
# that opens but never delivers it is behind a buffering proxy: the page goes back to polling).
HELLO = push_events.Hello(retry_ms=RETRY_MS).encode()
# ... on a seat's stream whose table this process's keeper watches (ASGI): no safety-net poll.
HELLO_WATCHED = push_events.Hello(retry_ms=RETRY_MS, watched=True).encode()
HB = push_events.Heartbeat().encode()
# The keeper (ASGI): every KEEP_EVERY seconds (spread by a tenth), one statement for all the
# seats' streams of a process stamps their presence where older than KEEP_STALE seconds (so a
# tablet with its stream open is never "quiet" on the teacher's live view, which says so past
# 60 s: classgames.selectors) and reads their tables' versions and statuses.
KEEP_EVERY = 40.0
KEEP_STALE = 20.0
# Last thing on a stream closed because a newer one of the same tablet (or address) took its
# place (games.streamcap): the page polls and does not reconnect.
BYE = push_events.Bye().encode()
# Beyond its lifetime a stream no longer counts against a cap (a process that died left it).
CAP_MARGIN = 60.0


def _client_version(request: HttpRequest) -> int | None:
    """What the client has seen: the id of the last event it got, else the page's version."""
    for raw in (request.headers.get("Last-Event-ID", ""), request.GET.get("v", "")):
        try:
            return int(raw)
        except ValueError:
            continue
    return None


def _event(version: int) -> bytes:
    """A table's version alone: what a stream sends first to a client that is behind."""
    return push_events.TableAt(version=version).encode()


def _release_database() -> None:
    """A stream must not keep a database connection for minutes (one per tablet), nor while it
    waits for anything: back to the pool (or closed) as soon as the reads are done."""
    for conn in connections.all(initialized_only=True):
        if not conn.in_atomic_block:  # inside a test's transaction: leave it alone
            conn.close()


def _session_user(request: HttpRequest) -> str | None:
    """The signed-in user's id as the session holds it, with no database query when the
    session is in the cache: the cheap refusal of a signed-out or borrowed stream URL. The
    full check (the user row, its session hash) comes after, in the database block."""
    session = getattr(request, "session", None)
    held = session.get(AUTH_USER_KEY) if session is not None else None
    _release_database()  # a session read from the database (cache miss) gave its connection back
    return None if held is None else str(held)


def _sync_streams_allowed(request: HttpRequest) -> bool:
    # gunicorn's WSGI workers have a few threads each: minutes-long streams would starve them.
    return not request.META.get("SERVER_SOFTWARE", "").lower().startswith("gunicorn")


@dataclass(frozen=True)
class Viewer:
    """Who a seat's stream fills the pushed boards in for (games.table_cache.seat_board): its
    seat, its language, its poll token and a CSRF token of its browser."""

    position: int
    language: str
    token: str
    csrf: str


class _Table:
    """What a tablet's stream says: its game's version, and with a move's push the table's new
    board as this seat sees it (`"board"` in the event's data: the HTML its fetch would answer),
    so the tablet shows it without asking. A push without a board for this seat (a computer
    player, a pause, a tablet in another language) says only the version: the tablet fetches.

    A change at the same version is sent too: pausing, resuming or ending a game changes its
    status, not its version (Move.number is the version), and the tablet must hear it."""

    def __init__(
        self,
        version: int,
        viewer: Viewer | None = None,
        *,
        game_id: int | None = None,
        status: str | None = None,
    ) -> None:
        self.version = version
        self.viewer = viewer
        self.game_id = game_id  # with a viewer: the keeper watches this stream
        self.status = status  # the game's status as the keeper last knew it

    def apply(self, changes: list[push.Change]) -> bytes:
        newest = max(c.version for c in changes)
        if newest < self.version:
            return b""  # older than what was sent (a late message): never go back
        since, self.version = self.version, newest
        # Two changes at the newest version (a move, then a pause at that version) stay two
        # events: the mover's tablet sets one event at its move's version aside as its own
        # (static/js/table.js), and must still hear the other. Older versions fold into it.
        latest = [c for c in changes if c.version == newest][-2:]
        return b"".join(
            push_events.TableAt(version=newest, board=self._board(c, since)).encode()
            for c in latest
        )

    def _board(self, change: push.Change, since: int) -> str | None:
        if change.board is None or self.viewer is None:
            return None
        viewer = self.viewer
        html = table_cache.seat_board(
            change.board,
            position=viewer.position,
            language=viewer.language,
            since=since,
            token=viewer.token,
            csrf=viewer.csrf,
        )
        return html


class _Group:
    """What a group's stream (the teacher's) says: which table moved, and the sum of the versions."""

    def __init__(self, versions: dict[int, int]) -> None:
        self.versions = versions

    @property
    def version(self) -> int:
        return sum(self.versions.values())

    def apply(self, changes: list[push.Change]) -> bytes:
        out = []
        for change in changes:
            if change.version >= self.versions.get(change.game_id, -1):
                self.versions[change.game_id] = change.version
                event = push_events.GroupAt(
                    version=self.version, game=change.game_id, game_version=change.version
                )
                out.append(event.encode())
        return b"".join(out)


def _lifetime() -> float:
    return LIFETIME + random.uniform(0, LIFETIME_JITTER)


def _max_age() -> float:
    return LIFETIME + LIFETIME_JITTER + CAP_MARGIN


class _Keeper:
    """Keeps watch over the seats' streams of one event loop (a web process under ASGI), in
    place of each tablet's safety-net poll (issue 38: 10,000 tablets asked once a minute each,
    ~170 requests a second for "nothing new", a third of a 2-core box).

    Every KEEP_EVERY seconds, in one statement on a thread of its own (services.streams_seen):
    the presence of every seat with a stream open here is stamped, and its table's version and
    status read. A stream behind its table (a change whose push was lost: a message Redis
    dropped, a bug) or whose game's status changed since it last looked is sent the table's
    version, and its tablet fetches the board, as after any push without one. A tablet whose
    stream stalls silently notices the missing heartbeats and opens another (static/js/live.js).
    """

    _by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Keeper] = (
        weakref.WeakKeyDictionary()
    )
    _thread: ThreadPoolExecutor | None = None

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.streams: dict[push.Watcher, _Table] = {}
        self.task: asyncio.Task | None = None

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop) -> _Keeper:
        keeper = cls._by_loop.get(loop)
        if keeper is None:
            keeper = cls._by_loop[loop] = cls(loop)
        return keeper

    @classmethod
    def thread(cls) -> ThreadPoolExecutor:
        if cls._thread is None:
            cls._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kavet-keeper")
        return cls._thread

    def add(self, watcher: push.Watcher, state: _Table) -> None:
        self.streams[watcher] = state
        if self.task is None or self.task.done():
            self.task = self.loop.create_task(self._run())

    def discard(self, watcher: push.Watcher) -> None:
        self.streams.pop(watcher, None)

    async def _run(self) -> None:
        while self.streams:
            await asyncio.sleep(KEEP_EVERY * random.uniform(0.9, 1.1))
            await self.round()

    async def round(self) -> int:
        """One look at every seat's stream of this loop; how many were sent their table."""
        streams = [(w, s) for w, s in self.streams.items() if not w.closed]
        if not streams:
            return 0
        seats = {(state.game_id, state.viewer.position) for _, state in streams}
        try:
            facts = await self.loop.run_in_executor(
                self.thread(), _streams_seen, seats, timezone.now()
            )
        except Exception:  # noqa: BLE001 - the database away: the next round looks again
            log.warning("the streams' keeper could not read their tables", exc_info=True)
            return 0
        sent = 0
        for watcher, state in streams:
            fact = facts.get(state.game_id)
            if fact is None:
                continue
            version, status = fact
            if version > state.version or status != state.status:
                state.status = status
                watcher._offer(push.Change(game_id=state.game_id, version=version))
                sent += 1
        return sent


def _streams_seen(seats: set[tuple[int, int]], now) -> dict[int, tuple[int, str]]:
    """On the keeper's thread: one statement, and its database connection given back."""
    try:
        return services.streams_seen(seats=seats, now=now, stale_after=KEEP_STALE)
    finally:
        _release_database()


async def _astream(
    watcher: push.Watcher, state, first: bytes, ticket: streamcap.Ticket
) -> AsyncIterator[bytes]:
    loop = asyncio.get_running_loop()
    push.hub.attach(watcher, loop)
    keeper = None
    if isinstance(state, _Table) and state.game_id is not None and state.viewer is not None:
        keeper = _Keeper.of(loop)
        keeper.add(watcher, state)
    try:
        if watcher.replaced:
            yield HELLO + BYE  # replaced before it even started (a burst of streams)
            return
        yield (HELLO_WATCHED if keeper is not None else HELLO) + first
        deadline = loop.time() + _lifetime()
        while True:
            left = deadline - loop.time()
            if left <= 0:
                return
            changes = await watcher.get(min(HEARTBEAT, left))
            if watcher.replaced:
                yield BYE
                return
            if watcher.closed:
                return  # messages may have been lost: the browser reconnects and resyncs
            if changes:
                out = state.apply(changes)
                if out:
                    yield out
                    continue
            if loop.time() < deadline:
                yield HB
    finally:
        if keeper is not None:
            keeper.discard(watcher)
        push.hub.unwatch(watcher)
        streamcap.release(ticket)


def _sstream(
    channel: str, cursor: int, state, first: bytes, ticket: streamcap.Ticket
) -> Iterator[bytes]:
    # Ended at each return below; a body closed early (the WSGI server's close() when the
    # client goes) or never started ends from its weakref.finalize (_respond), so no code of
    # it has to run at its close.
    stream_id = ticket.stream_id
    yield HELLO + first
    deadline = time.monotonic() + _lifetime()
    epoch = push.hub.epoch
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        count, changes = push.hub.wait(channel, cursor, min(HEARTBEAT, left), stream_id)
        if push.hub.sync_replaced(stream_id):
            _end_sync(ticket)
            yield BYE
            return
        if push.hub.epoch != epoch:
            break
        if count > cursor:
            # The sync hub keeps the channel's last changes (push._LocalHub.RECENT); a stream
            # further behind may skip an intermediate version, never the newest one.
            cursor = count
            out = state.apply(changes) if changes else b""
            if out:
                yield out
                continue
        yield HB
    _end_sync(ticket)


def _end_sync(ticket: streamcap.Ticket) -> None:
    push.hub.untrack_sync(ticket.stream_id)
    streamcap.release(ticket)


def _respond(
    request: HttpRequest,
    channel: str,
    state,
    client: int | None,
    *,
    watcher: push.Watcher | None,
    cursor: int,
    stream_id: str,
) -> HttpResponse:
    first = b""
    if client is None or client < state.version:
        first = _event(state.version)  # behind (or new): the current version at once
    _release_database()
    # Counted (and the oldest past a cap closed) only once allowed: a refused request never
    # closes anyone's stream.
    ticket = streamcap.admit(
        stream_id,
        session_key=request.session.session_key or "",
        address=client_bucket(request),
        max_age=_max_age(),
    )
    if watcher is not None:
        body = _astream(watcher, state, first, ticket)
        # A body that never starts (the client went away before its first byte) never
        # reaches its `finally`: it stops counting when it is collected.
        weakref.finalize(body, streamcap.release, ticket)
    else:
        body = _sstream(channel, cursor, state, first, ticket)
        weakref.finalize(body, _end_sync, ticket)
    response = StreamingHttpResponse(body, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: do not buffer the stream
    return response


class _Deaf(Exception):
    """Redis is down: a stream of this process would not hear the others' changes."""


def _subscribe(
    request: HttpRequest, channel: str, stream_id: str
) -> tuple[push.Watcher | None, int]:
    """Before the database is read, so that no change committed after the read is missed.

    Refused (``_Deaf``) while the Redis subscriber is down: the tablet then polls every 2 s
    (static/js/live.js) rather than trusting a stream that hears only this process.
    """
    if not push.ensure_listening():
        raise _Deaf
    if isinstance(request, ASGIRequest):
        # Subscribed to this table's channel (or group's) in Redis before it returns.
        watcher = push.hub.watch(channel, stream_id)
        if watcher.closed:  # the subscription failed (Redis went away meanwhile)
            push.hub.unwatch(watcher)
            raise _Deaf
        return watcher, 0
    if not push.hub.track_sync(stream_id, channel):
        push.hub.untrack_sync(stream_id)
        raise _Deaf
    return None, push.hub.cursor(channel)


def _unsubscribe(watcher: push.Watcher | None, stream_id: str) -> None:
    if watcher is not None:
        push.hub.unwatch(watcher)
    push.hub.untrack_sync(stream_id)


def _refuse_sync(request: HttpRequest) -> HttpResponse | None:
    if not isinstance(request, ASGIRequest) and not _sync_streams_allowed(request):
        return HttpResponse(status=204)  # EventSource stops; the tablet keeps polling
    return None


@require_GET
def table_stream(request: HttpRequest, game_id: int) -> HttpResponse:
    """A seat's tablet: the same signed token as its poll, and a seat at this very game."""
    token = poll_token_read(request.GET.get("t", ""))
    if token is None or token[0] != game_id or _session_user(request) != str(token[2]):
        return HttpResponseForbidden()

    def opened() -> tuple[Any, int | None]:
        if request.user.pk != token[2]:
            raise _Refused
        # The table's one prepared read (as the board fetch and the move), or 404: a stream
        # opens at every reconnection and every stream lifetime (~10 a second at 10,000
        # tablets), and the ORM's query compiled each time was 1.2 % of the web CPU (issue 38).
        game, seat, _seats = permissions.table_for_seat(user=request.user, game_id=game_id)
        client = _client_version(request)
        if game.status in ENDED and client is not None and client >= game.version:
            raise _Nothing  # an ended game changes no more: EventSource stops
        viewer = Viewer(
            position=seat.position,
            language=get_language(),
            token=request.GET.get("t", ""),
            csrf=get_token(request),
        )
        return _Table(game.version, viewer, game_id=game.pk, status=game.status), client

    return _stream(request, push.table_channel(game_id), opened)


def group_stream(
    request: HttpRequest, group: int, versions: Callable[[HttpRequest], dict[int, int]]
) -> HttpResponse:
    """The stream of a group of tables (games.signals.table_group), for the app above's view.

    `versions(request)` runs in the database block, for a signed-in user: it checks who may
    watch the group (an Http404 or PermissionDenied goes up, as the page's) and answers its
    tables' versions by game id.
    """
    if _session_user(request) is None:
        return HttpResponseForbidden()  # signed out: nothing to read

    def opened() -> tuple[Any, int | None]:
        if not request.user.is_authenticated:
            raise _Refused
        return _Group(versions(request)), _client_version(request)

    return _stream(request, push.group_channel(group), opened)


def _stream(request: HttpRequest, channel: str, opened: Callable[[], tuple]) -> HttpResponse:
    """A stream of `channel`, subscribed before `opened()` reads what the client is told first
    (so no change falls between the two): `opened()`, run in the database block, answers the
    stream's state and the client's version, or raises _Nothing (204) or _Refused (403)."""
    refused = _refuse_sync(request)
    if refused:
        return refused
    stream_id = uuid.uuid4().hex
    try:
        watcher, cursor = _subscribe(request, channel, stream_id)
    except _Deaf:
        return HttpResponse(status=204)  # EventSource stops; the page polls every 2 s
    try:
        try:  # the database block: its connection goes back before anything waits
            state, client = opened()
        finally:
            _release_database()
        return _respond(
            request, channel, state, client, watcher=watcher, cursor=cursor, stream_id=stream_id
        )
    except _Nothing:
        _unsubscribe(watcher, stream_id)
        return HttpResponse(status=204)
    except _Refused:
        _unsubscribe(watcher, stream_id)
        return HttpResponseForbidden()
    except BaseException:
        _unsubscribe(watcher, stream_id)
        raise


class _Nothing(Exception):
    pass


class _Refused(Exception):
    pass
