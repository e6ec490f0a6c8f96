"""Push: "table N changed, version V" to everyone watching it (tablets and the teacher).

The one function the rest of the code calls is `send_on_commit(Change(...))`: after the change
to a game is committed, it goes out (games.services._changed is its one caller). What the
pages then receive on their streams is listed, typed, in games.push_events. Watchers subscribe
to a channel name (`table_channel`, `group_channel`: the tables watched together, a class
game's, games.signals.table_group) and wait for the next message.

Two fan-outs, the same two calls:

- **In-process** (the embedded default, no Redis): `hub` delivers the change to the watchers of
  this process at once: sync waiters (the stream view under WSGI / runserver) sleep on a
  condition; async watchers (the stream view under ASGI) get it on their own event loop.
- **Redis** (`REDIS_URL` set): the change is PUBLISHed on its table's Redis channel (with its
  board) and on its group's (without), one round trip; each web process that has a stream open
  runs ONE subscriber thread, subscribed to the channels of the tables and groups its open
  streams watch (from the first stream of a channel until its last closes, `RedisBridge`), that
  hands each message to its local `hub`, which fans it out to that process's watchers of that
  channel. A process hears the tables its tablets sit at, not every move of the site. One Redis
  connection per process, never one per tablet. A thread, not a redis.asyncio task: the same
  subscriber then serves WSGI and ASGI alike and does not belong to any one event loop; each
  message costs one `call_soon_threadsafe` per event loop that has a watcher of it.

Nothing about a table is sent but its id and version, and for a move made from a tablet the
table's new board (`Change.board`, games.table_cache.push_board): the stream view checks who may
watch what, and a seat's stream sends only its own seat's board (games.stream).

A move's push waits for its board: the view holds the pushes of its request (`held`), renders
the mover's answer and every other seat's parts of the new board, attaches them (`attach_board`)
and sends the push at the end of the block, so no tablet has to fetch the board it is told of.
Anything that does not attach a board (a computer player, a time limit, a pause) is pushed as
before, and the tablets fetch.

The site's own channel (channel_name) carries "these streams are replaced"
(`streams_replaced`): a tablet session or an address that opens more streams than its cap
(games.streamcap) has its oldest ones closed, wherever they are open; each process closes those
it holds.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
import uuid
import weakref
from collections import defaultdict, deque
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace

log = logging.getLogger(__name__)


def table_channel(game_id: int) -> str:
    return f"kavet:table:{game_id}"


def group_channel(group: int) -> str:
    return f"kavet:group:{group}"


@dataclass(frozen=True)
class Change:
    game_id: int
    version: int
    group: int | None = None  # the game's group (games.signals.table_group), opaque here
    # The table's board at this version, for its seats' streams (games.table_cache.push_board);
    # None: the tablets fetch it. Not part of what the change is.
    board: dict | None = field(default=None, compare=False, repr=False)

    def channels(self) -> list[str]:
        names = [table_channel(self.game_id)]
        if self.group is not None:
            names.append(group_channel(self.group))
        return names


class Watcher:
    """One open stream (ASGI): the changes of its channel not yet sent, woken on its own loop.

    Created in the (sync) view before the database is read, so that nothing committed between
    that read and the stream's first wait is lost; the loop is attached when the stream starts.
    """

    MAX_PENDING = 256

    def __init__(self, channel: str, stream_id: str = "") -> None:
        self.channel = channel
        self.stream_id = stream_id
        self.loop: asyncio.AbstractEventLoop | None = None
        self.pending: list[Change] = []
        self.closed = False  # the fan-out lost messages (Redis reconnect): the client must resync
        self.replaced = False  # a newer stream of the same tablet (or address) took its place
        # While get() waits: the future its changes (or its timeout) complete. A bare future and
        # a timer on the loop, not asyncio.wait_for over an Event, which made a task per wait
        # (10,000 streams each wait once per heartbeat and once per change: wait_for was 4 % of
        # the web workers' CPU at 30 moves/s, issue 38).
        self._waiter: asyncio.Future | None = None

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _offer(self, change: Change) -> None:
        """On the watcher's loop (or before it has one, under the hub's lock)."""
        if len(self.pending) >= self.MAX_PENDING:
            self.closed = True
        else:
            self.pending.append(change)
        self._wake()

    def _close(self) -> None:
        self.closed = True
        self._wake()

    def _replace(self) -> None:
        self.replaced = True
        self._close()

    async def get(self, timeout: float) -> list[Change]:
        """The changes since the last call, waiting up to `timeout` seconds for one."""
        loop = self.loop
        assert loop is not None, "attach the watcher first"
        if not self.pending and not self.closed:
            waiter = self._waiter = loop.create_future()
            timer = loop.call_later(timeout, _time_up, waiter)
            try:
                await waiter
            finally:
                timer.cancel()
                self._waiter = None
        changes, self.pending = self.pending, []
        return changes


def _time_up(waiter: asyncio.Future) -> None:
    if not waiter.done():
        waiter.set_result(None)


def _deliver(watchers: list[Watcher], change: Change) -> None:
    for watcher in watchers:
        watcher._offer(change)


def _close_all(watchers: list[Watcher]) -> None:
    for watcher in watchers:
        watcher._close()


def _replace_all(watchers: list[Watcher]) -> None:
    for watcher in watchers:
        watcher._replace()


class _LocalHub:
    """This process's watchers: sync waiters on a condition, async watchers on their loops."""

    RECENT = 8  # changes of a channel kept for its sync streams

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._counter: dict[str, int] = defaultdict(int)
        # The last changes of each channel a sync stream (WSGI) waits on, by their count: a
        # move's change (with its board) and a pause right after it both reach such a stream.
        # Kept only while a sync stream of the channel is open (none under ASGI).
        self._recent: dict[str, deque[tuple[int, Change]]] = {}
        self._sync_channels: dict[str, int] = {}
        self._sync_of: dict[str, str] = {}
        self._watchers: dict[str, weakref.WeakSet[Watcher]] = defaultdict(weakref.WeakSet)
        self.epoch = 0  # bumped when messages may have been lost: sync streams end and resync
        # Open streams by id, for streams_replaced: async ones by their watcher, sync ones
        # (WSGI) by a flag their wait checks (True once replaced).
        self._by_id: weakref.WeakValueDictionary[str, Watcher] = weakref.WeakValueDictionary()
        self._sync_ids: dict[str, bool] = {}
        # The Redis subscriber of this process once it listens (RedisBridge.ensure_listening):
        # asked to subscribe to a channel when this hub's first stream of it opens.
        self.subscriber: RedisBridge | None = None

    # --- publishing ---------------------------------------------------------------------------

    def deliver(self, change: Change, channels: list[str] | None = None) -> None:
        """Hand a change to every watcher of its table and of its group in this process (or of
        `channels` only: a message heard on one channel of Redis is that channel's)."""
        by_loop: dict[asyncio.AbstractEventLoop, list[Watcher]] = defaultdict(list)
        with self._cond:
            for channel in change.channels() if channels is None else channels:
                self._counter[channel] += 1
                if channel in self._sync_channels:
                    recent = self._recent.setdefault(channel, deque(maxlen=self.RECENT))
                    recent.append((self._counter[channel], change))
                for watcher in list(self._watchers.get(channel, ())):
                    if watcher.loop is None:
                        watcher._offer(change)  # not started yet: kept for its first wait
                    else:
                        by_loop[watcher.loop].append(watcher)
            self._cond.notify_all()
        for loop, watchers in by_loop.items():
            try:
                loop.call_soon_threadsafe(_deliver, watchers, change)
            except RuntimeError:  # that loop is closed; its watchers are gone with it
                pass

    def publish(self, channel: str, change: Change) -> None:
        """Kept for callers of the first version: delivers `change` (to all its channels)."""
        self.deliver(change)

    def lost_messages(self) -> None:
        """Messages may have been missed: every open stream ends, and its client resyncs."""
        by_loop: dict[asyncio.AbstractEventLoop, list[Watcher]] = defaultdict(list)
        with self._cond:
            self.epoch += 1
            for watchers in self._watchers.values():
                for watcher in list(watchers):
                    if watcher.loop is None:
                        watcher._close()
                    else:
                        by_loop[watcher.loop].append(watcher)
            self._cond.notify_all()
        for loop, watchers in by_loop.items():
            try:
                loop.call_soon_threadsafe(_close_all, watchers)
            except RuntimeError:
                pass

    def replace_streams(self, stream_ids: list[str]) -> None:
        """Close these open streams of this process (ids of other processes are ignored): each
        says `bye` to its client, which then polls instead of reconnecting."""
        by_loop: dict[asyncio.AbstractEventLoop, list[Watcher]] = defaultdict(list)
        with self._cond:
            for stream_id in stream_ids:
                if stream_id in self._sync_ids:
                    self._sync_ids[stream_id] = True
                watcher = self._by_id.get(stream_id)
                if watcher is None:
                    continue
                if watcher.loop is None:
                    watcher._replace()  # not started yet: it ends at its first wait
                else:
                    by_loop[watcher.loop].append(watcher)
            self._cond.notify_all()
        for loop, watchers in by_loop.items():
            try:
                loop.call_soon_threadsafe(_replace_all, watchers)
            except RuntimeError:
                pass

    # --- sync waiters (WSGI) ------------------------------------------------------------------

    def cursor(self, channel: str) -> int:
        with self._cond:
            return self._counter[channel]

    def track_sync(self, stream_id: str, channel: str = "") -> bool:
        """A sync stream opens (on `channel`: its changes are kept for its waits from now on).
        False when this process's Redis subscriber could not subscribe to the channel (the
        stream would not hear the other processes: the caller refuses it)."""
        with self._cond:
            self._sync_ids[stream_id] = False
            if channel and stream_id not in self._sync_of:
                self._sync_of[stream_id] = channel
                self._sync_channels[channel] = self._sync_channels.get(channel, 0) + 1
        return self._subscribed(channel) if channel else True

    def untrack_sync(self, stream_id: str) -> None:
        with self._cond:
            self._sync_ids.pop(stream_id, None)
            channel = self._sync_of.pop(stream_id, None)
            if channel is not None:
                left = self._sync_channels.pop(channel) - 1
                if left:
                    self._sync_channels[channel] = left
                else:
                    self._recent.pop(channel, None)
                    self._left(channel)

    def sync_replaced(self, stream_id: str) -> bool:
        with self._cond:
            return self._sync_ids.get(stream_id, False)

    def wait(
        self, channel: str, after: int, timeout: float, stream_id: str = ""
    ) -> tuple[int, list[Change]]:
        """Block until the channel has a message past `after`, the stream `stream_id` is
        replaced, or the timeout: the channel's count now and its changes past `after` (the
        last RECENT of them, for a stream tracked on the channel, see track_sync)."""
        with self._cond:
            epoch = self.epoch
            self._cond.wait_for(
                lambda: (
                    self._counter[channel] > after
                    or self.epoch != epoch
                    or self._sync_ids.get(stream_id, False)
                ),
                timeout=timeout,
            )
            count = self._counter[channel]
            if count > after:
                return count, [c for n, c in self._recent.get(channel, ()) if n > after]
            return count, []

    # --- async watchers (ASGI) ----------------------------------------------------------------

    def watch(self, channel: str, stream_id: str = "") -> Watcher:
        """A watcher of `channel`, registered before it returns. Where Redis carries the
        changes, this process is subscribed to the channel by then (the first watcher of a
        channel waits for the subscription: a round trip to Redis); a watcher that could not
        be subscribed is returned closed (its stream ends, and the client resyncs)."""
        watcher = Watcher(channel, stream_id)
        with self._cond:
            self._watchers[channel].add(watcher)
            if stream_id:
                self._by_id[stream_id] = watcher
        if not self._subscribed(channel):
            with self._cond:
                watcher._close()
        return watcher

    def _subscribed(self, channel: str) -> bool:
        """Whether this process hears `channel` from the other processes (always without a
        Redis subscriber: there is only this process)."""
        subscriber = self.subscriber
        return subscriber is None or subscriber.subscribe(channel)

    def _left(self, channel: str) -> None:
        """The last stream of `channel` closed (under the lock): its subscription may go."""
        subscriber = self.subscriber
        if subscriber is not None:
            subscriber.changed(channel)

    def watched(self, channels) -> set[str]:
        """Those of `channels` this process still has a stream of."""
        with self._cond:
            return {
                c for c in channels if self._watchers.get(c) or self._sync_channels.get(c, 0) > 0
            }

    def channels(self) -> set[str]:
        """The channels this process has a stream of (what its Redis subscriber listens to)."""
        with self._cond:
            for channel in [c for c, w in self._watchers.items() if not w]:
                del self._watchers[channel]  # its watchers were collected without unwatch
            return set(self._watchers) | set(self._sync_channels)

    def attach(self, watcher: Watcher, loop: asyncio.AbstractEventLoop) -> None:
        """From the watcher's loop, when its stream starts: later changes come through the loop."""
        with self._cond:
            watcher.loop = loop  # (what came before is in watcher.pending: get() sees it)

    def unwatch(self, watcher: Watcher) -> None:
        with self._cond:
            watchers = self._watchers.get(watcher.channel)
            if watchers is not None:
                watchers.discard(watcher)
                if not watchers:
                    del self._watchers[watcher.channel]
                    if watcher.channel not in self._sync_channels:
                        self._left(watcher.channel)
            if watcher.stream_id and self._by_id.get(watcher.stream_id) is watcher:
                del self._by_id[watcher.stream_id]

    def watcher_count(self) -> int:
        with self._cond:
            return sum(len(w) for w in self._watchers.values())


hub = _LocalHub()


# --- Redis ----------------------------------------------------------------------------------


def _encode(change: Change) -> str:
    if change.board is not None:
        return json.dumps([change.game_id, change.version, change.group, change.board])
    return json.dumps([change.game_id, change.version, change.group])


def _encode_replaced(stream_ids: list[str]) -> str:
    return json.dumps({"replaced": stream_ids})


def _decode(data: bytes | str) -> Change | list[str] | None:
    """A change, or the ids of streams to close (a list of strings), or None."""
    try:
        message = json.loads(data)
        if isinstance(message, dict):
            ids = message["replaced"]
            if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                raise ValueError("replaced: not a list of ids")
            return ids
        game_id, version, group, *rest = message
        board = rest[0] if rest else None
        if len(rest) > 1 or not (board is None or isinstance(board, dict)):
            raise ValueError("board: not an object")
        return Change(
            game_id=int(game_id),
            version=int(version),
            group=None if group is None else int(group),
            board=board,
        )
    except (ValueError, TypeError, KeyError):
        log.warning("push: ignored a malformed message %r", data[:100])
        return None


class RedisBridge:
    """Publishes each change on its table's channel (and its group's) in Redis; one subscriber
    thread per process, subscribed to the channels of the streams open in this process, feeds
    `hub`.

    `channel` names the site (channel_name): it is the prefix of every Redis channel of the
    site, and itself the channel of what every process hears (streams_replaced). A table's
    change goes out on `<channel>|kavet:table:<id>` with its board and, for a table of a group,
    on `<channel>|kavet:group:<id>` without it (the teacher's stream reads only the version),
    both in one round trip. A process subscribes to a table's channel when its first stream of
    that table opens (`subscribe`, which waits for Redis to confirm it, so that nothing
    committed after the stream's read is missed) and unsubscribes once the last one has closed
    (`changed`; at the subscriber's next turn, within a second): it hears the tables its
    streams watch, not the whole site. The pub/sub connection is the subscriber thread's alone
    (redis-py's PubSub is not thread-safe): another thread asks it for a channel by PUBLISHing
    on this process's own wake channel, which it listens to.
    """

    RECONCILE = 1.0  # seconds between the subscriber's looks at the streams opened and closed
    # Seconds between its checks of every channel against every stream (streams collected
    # without closing; a safety net): between them it looks only at the channels asked for
    # and left since (a whole check read the ~2,000 channels of a process's 2,500 streams,
    # and ran at every stream opened or closed and every second: 4 % of the web workers' CPU
    # at 30 moves/s with 10,000 tablets, issue 38).
    FULL_RECONCILE = 30.0

    def __init__(
        self, url: str, channel: str, local: _LocalHub, *, socket_timeout: float = 0.5
    ) -> None:
        self.url = url
        self.channel = channel
        self.local = local
        self.socket_timeout = socket_timeout
        self._lock = threading.Lock()
        self._client = None
        self._thread: threading.Thread | None = None
        self._pid = 0
        self._ready = threading.Event()
        self._stop = threading.Event()
        # Whether this subscriber has tried Redis once: after that, "not ready" means Redis is
        # down (the subscriber is retrying), and a stream asks no more waiting of it.
        self._tried = False
        # The subscriptions, the subscriber thread's: asked for (SUBSCRIBE sent, no UNSUBSCRIBE
        # since) and confirmed by Redis; `_dirty`: a stream opened or closed since its last look.
        self._subs = threading.Condition()
        self._requested: set[str] = set()
        self._confirmed: set[str] = set()
        self._dirty = False
        # Since its last look: the Redis channels asked for (subscribe), under _subs; the hub
        # channels whose last stream closed (changed), appended without a lock (the hub calls
        # it under its own, which _reconcile takes inside _subs).
        self._joining: set[str] = set()
        self._leaving: deque[str] = deque()
        self._wake_channel = f"{channel}|wake|{uuid.uuid4().hex}"
        # What this process heard from Redis (messages, bytes): the benchmarks read it.
        self.heard = [0, 0]

    def redis_channel(self, channel: str) -> str:
        """The Redis channel of a hub channel (table_channel, group_channel) of this site."""
        return f"{self.channel}|{channel}"

    def _publisher(self):
        import redis

        if self._client is None or self._pid_client != os.getpid():
            self._client = redis.Redis.from_url(
                self.url,
                socket_timeout=self.socket_timeout,
                socket_connect_timeout=self.socket_timeout,
            )
            self._pid_client = os.getpid()
        return self._client

    _pid_client = 0

    def publish(self, change: Change | list[str]) -> bool:
        """A change (on its table's channel, and its group's), or a list of stream ids to close
        (streams_replaced, on the site's channel)."""
        import redis

        try:
            if isinstance(change, list):
                self._publisher().publish(self.channel, _encode_replaced(change))
                return True
            pipe = self._publisher().pipeline(transaction=False)
            pipe.publish(self.redis_channel(table_channel(change.game_id)), _encode(change))
            if change.group is not None:
                # The teacher's stream reads the version only: no board on the group's channel.
                plain = change if change.board is None else replace(change, board=None)
                pipe.publish(self.redis_channel(group_channel(change.group)), _encode(plain))
            pipe.execute()
            return True
        except redis.RedisError as exc:
            log.warning("push: Redis publish failed (%s); only this process's streams hear it", exc)
            return False

    def ensure_listening(self, timeout: float = 3.0) -> bool:
        """Start this process's subscriber (once; again after a fork) and wait until subscribed.

        Once it has listened, a subscriber that is not ready is retrying a lost Redis: the
        answer is then at once, so no stream waits on an outage.
        """
        with self._lock:
            if self._thread is None or self._pid != os.getpid() or not self._thread.is_alive():
                self._pid = os.getpid()
                self._ready = threading.Event()
                self._stop = threading.Event()
                self._tried = False
                self._client = None
                with self._subs:  # after a fork: the parent's subscriptions are not this one's
                    self._requested.clear()
                    self._confirmed.clear()
                self.local.subscriber = self
                self._thread = threading.Thread(
                    target=self._listen, name="kavet-push-subscriber", daemon=True
                )
                self._thread.start()
            ready = self._ready
            wait = 0.0 if self._tried else timeout
        return ready.wait(wait)

    def subscribe(self, channel: str, timeout: float = 3.0) -> bool:
        """Whether this process hears `channel` (a hub channel) from Redis: at once when it is
        subscribed already; else the subscriber is woken to subscribe to it, and this waits for
        Redis's confirmation. False while Redis is down (the stream is refused, as before)."""
        name = self.redis_channel(channel)
        with self._subs:
            if name in self._confirmed:
                return True
            if not self._ready.is_set():
                return False
            self._joining.add(name)
            self._dirty = True
        self._wake()
        with self._subs:
            self._subs.wait_for(
                lambda: name in self._confirmed or not self._ready.is_set(), timeout=timeout
            )
            return name in self._confirmed

    def changed(self, channel: str) -> None:
        """The last stream of `channel` closed: the subscriber checks at its next turn whether
        it still needs that channel."""
        self._leaving.append(channel)
        self._dirty = True

    def channels(self) -> set[str]:
        """The Redis channels this process is subscribed to, confirmed (tests, benchmarks)."""
        with self._subs:
            return set(self._confirmed)

    def _wake(self) -> None:
        import redis

        try:
            self._publisher().publish(self._wake_channel, b"")
        except redis.RedisError:
            pass  # the subscriber is retrying: the wait ends when it is back or gives up

    def stop(self) -> None:
        self._stop.set()
        thread = self._thread
        if thread is not None:
            thread.join(timeout=5)
        if self.local.subscriber is self:
            self.local.subscriber = None

    def _lost(self, ready: threading.Event) -> None:
        """Redis is gone: this process's streams would hear only this process, and their
        tablets would see the other processes' moves at the safety poll (about a minute). They
        end now; a tablet's next stream is refused while Redis is down (games.stream), so it polls every
        2 s until the stream works again."""
        self._tried = True
        with self._subs:
            self._requested.clear()
            self._confirmed.clear()
        if ready.is_set():
            ready.clear()
            self.local.lost_messages()
        with self._subs:
            self._subs.notify_all()  # a stream waiting for a subscription: refused now

    def _wanted(self) -> set[str]:
        base = {self.channel, self._wake_channel}
        return base | {self.redis_channel(c) for c in self.local.channels()}

    def _reconcile(self, pubsub, *, full: bool = True) -> None:
        """Subscribe to the channels of the streams opened since, unsubscribe from those whose
        last stream closed: of every stream (`full`), or of those asked for and left since."""
        with self._subs:
            self._dirty = False
            leaving = set()
            while self._leaving:
                leaving.add(self._leaving.popleft())
            if full:
                wanted = self._wanted()
                add = wanted - self._requested
                drop = self._requested - wanted
            else:
                add = self._joining - self._requested
                left = {self.redis_channel(c) for c in leaving - self.local.watched(leaving)}
                drop = (left & self._requested) - add
            self._joining.clear()
            self._requested |= add
            self._requested -= drop
            self._confirmed -= drop
        if add:
            pubsub.subscribe(*add)
        if drop:
            pubsub.unsubscribe(*drop)

    def _hand_on(self, message: dict | None) -> None:
        """A message heard on a channel, to this process's streams of that channel."""
        if message is None:
            return
        kind = message.get("type")
        name = message.get("channel")
        if isinstance(name, bytes):
            name = name.decode()
        if kind == "subscribe":
            with self._subs:
                if name in self._requested:
                    self._confirmed.add(name)
                    self._subs.notify_all()
            return
        if kind != "message" or name == self._wake_channel:
            return
        data = message["data"]
        self.heard[0] += 1
        self.heard[1] += len(data)
        change = _decode(data)
        if isinstance(change, list):
            self.local.replace_streams(change)
        elif change is not None:
            prefix = self.channel + "|"
            if name == self.channel:  # a publisher of before the channels per table
                self.local.deliver(change)
            elif name.startswith(prefix):
                self.local.deliver(change, [name[len(prefix) :]])

    def _listen(self) -> None:
        import redis

        failures = 0
        ready, stop = self._ready, self._stop
        while not stop.is_set():
            client = pubsub = None
            try:
                client = redis.Redis.from_url(
                    self.url, socket_connect_timeout=2, health_check_interval=30
                )
                pubsub = client.pubsub()
                with self._subs:
                    self._requested.clear()
                    self._confirmed.clear()
                self._reconcile(pubsub)  # the site's channel, the wake channel, the streams'
                # Wait for the subscriptions to be confirmed before saying we are listening.
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline:
                    with self._subs:
                        if self._requested <= self._confirmed:
                            break
                    self._hand_on(pubsub.get_message(timeout=0.1))
                else:
                    raise redis.ConnectionError("no subscription confirmation")
                if failures:
                    self.local.lost_messages()  # what was published while we were away
                    log.warning("push: Redis subscriber back after %d failures", failures)
                failures = 0
                self._tried = True
                ready.set()
                checked = time.monotonic()
                while not stop.is_set():
                    if time.monotonic() - checked >= self.FULL_RECONCILE:
                        self._reconcile(pubsub)
                        checked = time.monotonic()
                    elif self._dirty:
                        self._reconcile(pubsub, full=False)
                    self._hand_on(pubsub.get_message(timeout=self.RECONCILE))
            except redis.RedisError as exc:
                failures += 1
                self._lost(ready)
                log.warning("push: Redis subscriber lost (%s); retrying", exc)
                stop.wait(min(5.0, 0.2 * 2 ** min(failures, 5)))
            finally:
                for closable in (pubsub, client):
                    try:
                        if closable is not None:
                            closable.close()
                    except Exception:  # noqa: BLE001 - closing a broken connection
                        pass


_bridge: RedisBridge | None = None
_bridge_lock = threading.Lock()


def channel_name() -> str:
    """The site's Redis channel, and the prefix of its tables' and groups' channels. Redis
    pub/sub ignores the db number, so it names the database too: two sites (or test runs) on
    one Redis never hear each other."""
    from django.conf import settings

    explicit = getattr(settings, "KAVET_PUSH_CHANNEL", "") or os.environ.get(
        "KAVET_PUSH_CHANNEL", ""
    )
    if explicit:
        return explicit
    name = str(settings.DATABASES["default"].get("NAME", "")).rsplit("/", 1)[-1]
    return f"kavet:push:{name}"


def bridge() -> RedisBridge | None:
    """The Redis fan-out when REDIS_URL is set, else None (in-process only)."""
    global _bridge
    from django.conf import settings

    url = getattr(settings, "REDIS_URL", "")
    if not url:
        return None
    with _bridge_lock:
        if _bridge is None or _bridge.url != url:
            _bridge = RedisBridge(
                url,
                channel_name(),
                hub,
                socket_timeout=getattr(settings, "REDIS_SOCKET_TIMEOUT", 0.5),
            )
        return _bridge


def ensure_listening() -> bool:
    """Called by a stream before it reads the database: whether this process hears every change
    (always, without Redis: there is only this process; with Redis, while it is subscribed)."""
    b = bridge()
    if b is not None and not b.ensure_listening():
        log.warning("push: the Redis subscriber is not ready; streams hear only this process")
        return False
    return True


# The pushes of a request that held them (`held`): the changes in order, and the boards attached.
_held: ContextVar[dict | None] = ContextVar("kavet_push_held", default=None)
# A board bigger than this is not sent in the push (the tablets fetch it): one Redis message to
# every web process, and an event on each of the table's streams.
MAX_BOARD_BYTES = 256 * 1024


@contextmanager
def held() -> Iterator[None]:
    """The pushes of the changes committed in this block are sent at its end (in order, each
    with the board `attach_board` gave it), also when the block raises: a move's view holds its
    push until it has rendered the table's new board, so the push carries it."""
    box: dict = {"changes": [], "boards": {}}
    token = _held.set(box)
    try:
        yield
    finally:
        _held.reset(token)
        for change in box["changes"]:
            board = box["boards"].get((change.game_id, change.version))
            _send(change if board is None else replace(change, board=board))


def holding(game_id: int, version: int) -> bool:
    """Whether the push of this game's change at `version` is held, waiting for its board."""
    box = _held.get()
    return box is not None and any(
        c.game_id == game_id and c.version == version for c in box["changes"]
    )


def attach_board(*, game_id: int, version: int, board: dict) -> None:
    """The table's board at `version`, sent with that change's held push (see `held`)."""
    box = _held.get()
    if box is not None and len(json.dumps(board)) <= MAX_BOARD_BYTES:
        box["boards"][(game_id, version)] = board


def send_on_commit(change: Change) -> None:
    """The one call a service makes to tell the tablets: once its transaction commits, `change`
    goes to every watcher of its table and group (held until its board is attached, when the
    request holds its pushes: `held`). Nothing is sent for a transaction that rolls back."""
    from django.db import transaction

    transaction.on_commit(lambda: send(change))


def table_changed(*, game_id: int, version: int, group: int | None = None) -> None:
    """Tell the game's tablets (and the watchers of its group) that it is at `version` now."""
    send(Change(game_id=game_id, version=version, group=group))


def send(change: Change) -> None:
    """Send `change` now (or hold it for its board, inside `held`); see send_on_commit."""
    box = _held.get()
    if box is not None:
        box["changes"].append(change)
        return
    _send(change)


def _send(change: Change) -> None:
    b = bridge()
    if b is None or not b.publish(change):
        # Without Redis (or with Redis down) the watchers of this process still hear it.
        hub.deliver(change)


def streams_replaced(stream_ids: list[str]) -> None:
    """Close these streams wherever they are open: in this process at once, in the others
    through Redis (a process that does not hold one ignores its id)."""
    if not stream_ids:
        return
    hub.replace_streams(stream_ids)
    b = bridge()
    if b is not None:
        b.publish(list(stream_ids))
