"""How many push streams one tablet session and one address may hold open: the oldest goes.

A signed-in tablet once opened 1,812 streams at once. Each open stream is cheap (it waits on
the push hub), but nothing bounded them, so `admit` caps them: at most
KAVET_STREAMS_PER_SESSION per session (a tablet, or a teacher's browser) and
KAVET_STREAMS_PER_ADDRESS per client address (kavet_site.clientip.client_bucket). A new stream
over a cap is let in and the oldest stream of that session (or address) is closed: the newest
is the tab the child is looking at. The closed one says `bye` (static/js/live.js then polls
and does not reconnect, so two tabs over the cap never take turns closing each other); the
caps are well above the one or two streams a tablet or a teacher needs (a tab, a tab more, a
connection the network left half-open), and the address cap above a school's tablets behind
one NAT address.

Where the counting lives: the web processes behind a load balancer share Redis, and a flood
spread over them must meet one cap, so each stream is a member of two Redis sorted sets (per
session, per address; score: when it opened), added, trimmed and read in one MULTI. A stream
closed that way may be open in another process: its id goes out on the push channel
(games.push.streams_replaced) and the process holding it closes it. Each process also counts
its own streams the same way, so without Redis (the embedded default: one process) or while
Redis is down the caps still hold per process. A process that dies leaves its members behind:
they are never older than a stream's lifetime (games.stream.LIFETIME + jitter), so each
admission first drops members older than that, and a stale member over the cap is simply the
first to go.
"""

from __future__ import annotations

import hashlib
import logging
import os
import queue
import threading
import time
from dataclasses import dataclass

from django.conf import settings

from games import push

log = logging.getLogger(__name__)

REDIS_RETRY_AFTER = 5.0  # seconds without Redis after a failure (no 0.5 s timeout per stream)


@dataclass(eq=False)
class Ticket:
    """An admitted stream: its id and the counters (session, address) it is counted in."""

    stream_id: str
    keys: tuple[str, ...]
    released: bool = False


def session_cap() -> int:
    return max(1, int(getattr(settings, "KAVET_STREAMS_PER_SESSION", 5)))


def address_cap() -> int:
    return max(1, int(getattr(settings, "KAVET_STREAMS_PER_ADDRESS", 200)))


def _keys(session_key: str, address: str) -> list[tuple[str, int]]:
    # The session key is a credential: only a digest of it goes into Redis key names.
    digest = hashlib.sha256(session_key.encode()).hexdigest()[:32]
    prefix = f"{push.channel_name()}:streams"
    return [
        (f"{prefix}:session:{digest}", session_cap()),
        (f"{prefix}:address:{address}", address_cap()),
    ]


class _Local:
    """This process's streams per counter, oldest first (dicts keep their insertion order).

    `release` may run from the garbage collector (a stream body collected unfinished), in
    whatever thread, even one inside `admit`: hence a re-entrant lock and code that tolerates
    a member gone between two lines."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._open: dict[str, dict[str, float]] = {}

    def admit(self, stream_id: str, keys: list[tuple[str, int]], now: float) -> list[str]:
        gone: list[str] = []
        with self._lock:
            for key, cap in keys:
                members = self._open.setdefault(key, {})
                members[stream_id] = now
                while len(members) > cap:
                    oldest = next(iter(members))
                    members.pop(oldest, None)
                    gone.append(oldest)
            for oldest in gone:  # closed: counted nowhere any more
                for members in list(self._open.values()):
                    members.pop(oldest, None)
        return gone

    def release(self, ticket: Ticket) -> None:
        with self._lock:
            for key in ticket.keys:
                members = self._open.get(key)
                if members is not None:
                    members.pop(ticket.stream_id, None)
                    if not members:
                        del self._open[key]

    def count(self, key: str) -> int:
        with self._lock:
            return len(self._open.get(key, ()))


class _Shared:
    """The same counters in Redis, for every web process of the site."""

    def __init__(self) -> None:
        self._client = None
        self._pid = 0
        self._url = ""
        self._down_until = 0.0
        self._releases: queue.SimpleQueue[Ticket] = queue.SimpleQueue()
        self._releaser: threading.Thread | None = None
        self._releaser_pid = 0
        self._lock = threading.Lock()

    def _redis(self):
        url = getattr(settings, "REDIS_URL", "")
        if not url or time.monotonic() < self._down_until:
            return None
        if self._client is None or self._pid != os.getpid() or self._url != url:
            import redis

            timeout = getattr(settings, "REDIS_SOCKET_TIMEOUT", 0.5)
            self._client = redis.Redis.from_url(
                url, socket_timeout=timeout, socket_connect_timeout=timeout
            )
            self._pid, self._url = os.getpid(), url
        return self._client

    def _failed(self, exc: Exception) -> None:
        self._down_until = time.monotonic() + REDIS_RETRY_AFTER
        log.warning("streamcap: Redis failed (%s); the caps hold per process for now", exc)

    def admit(
        self, stream_id: str, keys: list[tuple[str, int]], now: float, max_age: float
    ) -> list[str]:
        import redis

        client = self._redis()
        if client is None:
            return []
        self._ensure_releaser()
        try:
            pipe = client.pipeline(transaction=True)
            for key, cap in keys:
                pipe.zremrangebyscore(key, "-inf", now - max_age)
                pipe.zadd(key, {stream_id: now})
                pipe.zrange(key, 0, -(cap + 1))  # the oldest past the cap
                pipe.zremrangebyrank(key, 0, -(cap + 1))
                pipe.expire(key, int(max_age) + 1)
            results = pipe.execute()
        except redis.RedisError as exc:
            self._failed(exc)
            return []
        gone = []
        for i in range(len(keys)):
            gone.extend(m.decode() if isinstance(m, bytes) else m for m in results[5 * i + 2])
        if gone and len(keys) > 1:
            try:  # closed: counted nowhere any more (the others' members expire anyway)
                pipe = client.pipeline(transaction=False)
                for key, _cap in keys:
                    pipe.zrem(key, *gone)
                pipe.execute()
            except redis.RedisError as exc:
                self._failed(exc)
        return gone

    def release(self, ticket: Ticket) -> None:
        """From the stream's end, often on an event loop or in the garbage collector: only
        queued (SimpleQueue.put is safe there), for the thread `admit` started."""
        if self._releaser_pid == os.getpid():  # else nothing of this process is in Redis
            self._releases.put(ticket)

    def _ensure_releaser(self) -> None:
        # Started from admit (a view's thread), never from release: starting a thread inside
        # the garbage collector, where a stream body may end, is not safe.
        with self._lock:
            thread = self._releaser
            if thread is None or not thread.is_alive() or self._releaser_pid != os.getpid():
                self._releaser_pid = os.getpid()
                self._releaser = threading.Thread(
                    target=self._release_loop, name="kavet-streamcap-release", daemon=True
                )
                self._releaser.start()

    def _release_loop(self) -> None:
        import redis

        while True:
            batch = [self._releases.get()]
            while len(batch) < 100:
                try:
                    batch.append(self._releases.get_nowait())
                except queue.Empty:
                    break
            client = self._redis()
            if client is None:
                continue  # Redis down: the members age out with the streams' lifetime
            try:
                pipe = client.pipeline(transaction=False)
                for ticket in batch:
                    for key in ticket.keys:
                        pipe.zrem(key, ticket.stream_id)
                pipe.execute()
            except redis.RedisError as exc:
                self._failed(exc)

    def count(self, key: str) -> int | None:
        client = self._redis()
        return None if client is None else int(client.zcard(key))


_local = _Local()
_shared = _Shared()
_release_lock = threading.RLock()


def admit(stream_id: str, *, session_key: str, address: str, max_age: float) -> Ticket:
    """Count a new stream of this session and address; close the oldest past either cap.

    `max_age`: the longest a stream lives, after which a member left by a dead process no
    longer counts."""
    keys = _keys(session_key, address)
    now = time.time()
    gone = set(_local.admit(stream_id, keys, now))
    gone.update(_shared.admit(stream_id, keys, now, max_age))
    gone.discard(stream_id)  # a cap of at least 1: the newest always stays
    if gone:
        push.streams_replaced(sorted(gone))
    return Ticket(stream_id=stream_id, keys=tuple(key for key, _cap in keys))


def release(ticket: Ticket) -> None:
    """The stream has ended: it counts no more (at once here, soon in Redis). Idempotent: the
    stream's own end and the garbage collector of a body never started may both call it."""
    with _release_lock:
        if ticket.released:
            return
        ticket.released = True
    _local.release(ticket)
    _shared.release(ticket)
