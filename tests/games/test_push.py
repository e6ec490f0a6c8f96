"""The push hub: a change reaches every watcher of its table and of its session, and no other;
across processes through Redis (one subscriber per process)."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
import uuid

import pytest

from games import push
from games.push import Change, RedisBridge, _LocalHub, group_channel, table_channel
from tests.conftest import need_service
from tests.loops import run


async def collect(watchers: dict[str, push.Watcher], wait: float) -> dict[str, list[Change]]:
    got = {}
    for name, watcher in watchers.items():
        got[name] = await watcher.get(wait)
    return got


def test_a_change_reaches_its_table_and_its_session_and_nothing_else():
    hub = _LocalHub()

    async def scenario():
        loop = asyncio.get_running_loop()
        watchers = {
            "seat 1 of table 7": hub.watch(table_channel(7)),
            "seat 2 of table 7": hub.watch(table_channel(7)),
            "teacher of session 3": hub.watch(group_channel(3)),
            "table 8 (same session)": hub.watch(table_channel(8)),
            "teacher of session 4": hub.watch(group_channel(4)),
            "table 70": hub.watch(table_channel(70)),
        }
        for watcher in watchers.values():
            hub.attach(watcher, loop)
        # From another thread, as a move committed in a sync view would.
        thread = threading.Thread(target=hub.deliver, args=(Change(7, 12, 3),))
        thread.start()
        thread.join()
        return await collect(watchers, 0.5)

    got = run(scenario())
    assert got["seat 1 of table 7"] == [Change(7, 12, 3)]
    assert got["seat 2 of table 7"] == [Change(7, 12, 3)]
    assert got["teacher of session 3"] == [Change(7, 12, 3)]
    assert got["table 8 (same session)"] == []
    assert got["teacher of session 4"] == []
    assert got["table 70"] == []


def test_a_change_before_the_stream_starts_is_kept_for_it():
    """Subscribed before the database is read: a commit in between is not lost."""
    hub = _LocalHub()
    watcher = hub.watch(table_channel(5))
    hub.deliver(Change(5, 2))

    async def scenario():
        hub.attach(watcher, asyncio.get_running_loop())
        return await watcher.get(0.5)

    assert run(scenario()) == [Change(5, 2)]


def test_several_changes_all_reach_a_session_watcher():
    hub = _LocalHub()

    async def scenario():
        watcher = hub.watch(group_channel(1))
        hub.attach(watcher, asyncio.get_running_loop())
        for game, version in [(10, 1), (11, 1), (10, 2)]:
            hub.deliver(Change(game, version, 1))
        await asyncio.sleep(0)
        return await watcher.get(0.5)

    assert run(scenario()) == [Change(10, 1, 1), Change(11, 1, 1), Change(10, 2, 1)]


def test_a_closed_stream_is_forgotten():
    hub = _LocalHub()
    watcher = hub.watch(table_channel(9))
    assert hub.watcher_count() == 1
    hub.unwatch(watcher)
    assert hub.watcher_count() == 0
    hub.deliver(Change(9, 1))  # nobody to tell: no error
    assert watcher.pending == []


def test_sync_waiters_wake_for_their_table_only():
    hub = _LocalHub()
    mine, other = table_channel(1), table_channel(2)
    hub.track_sync("mine", mine)
    hub.track_sync("other", other)
    cursor_mine, cursor_other = hub.cursor(mine), hub.cursor(other)
    results = {}

    def waiter(name, channel, cursor, timeout):
        results[name] = hub.wait(channel, cursor, timeout)

    threads = [
        threading.Thread(target=waiter, args=("mine", mine, cursor_mine, 5)),
        threading.Thread(target=waiter, args=("other", other, cursor_other, 0.3)),
    ]
    for t in threads:
        t.start()
    hub.deliver(Change(1, 4))
    for t in threads:
        t.join()
    assert results["mine"] == (cursor_mine + 1, [Change(1, 4)])
    assert results["other"] == (cursor_other, [])


def test_a_sync_stream_gets_every_change_since_its_cursor_not_only_the_last():
    # A move (its change carries the board) and a pause at the same version right after it,
    # both delivered before the stream's thread wakes: both reach it, in order (R4.9).
    hub = _LocalHub()
    channel = table_channel(1)
    hub.track_sync("s", channel)
    cursor = hub.cursor(channel)
    hub.deliver(Change(1, 4, board={"seats": {}}))
    hub.deliver(Change(1, 4))
    count, changes = hub.wait(channel, cursor, 1, "s")
    assert count == cursor + 2 and [c.board is not None for c in changes] == [True, False]
    # Kept while a sync stream is open on the channel only, and at most RECENT of them.
    for version in range(5, 5 + 2 * hub.RECENT):
        hub.deliver(Change(1, version))
    assert len(hub.wait(channel, cursor, 1, "s")[1]) == hub.RECENT
    hub.untrack_sync("s")
    hub.deliver(Change(1, 99, board={"seats": {}}))
    assert hub._recent == {}  # no sync stream: nothing kept (all of them under ASGI)


def test_lost_messages_end_every_stream_so_clients_resync():
    hub = _LocalHub()

    async def scenario():
        watcher = hub.watch(table_channel(3))
        hub.attach(watcher, asyncio.get_running_loop())
        threading.Thread(target=hub.lost_messages).start()
        await watcher.get(2)
        return watcher.closed

    assert run(scenario()) is True
    epoch = hub.epoch
    hub.lost_messages()
    assert hub.epoch == epoch + 1


def test_malformed_messages_are_ignored():
    assert push._decode(b"not json") is None
    assert push._decode(b'["x", 1, null]') is None
    assert push._decode(push._encode(Change(3, 4, 5))) == Change(3, 4, 5)
    assert push._decode(push._encode(Change(3, 4))) == Change(3, 4, None)


def test_without_redis_table_changed_delivers_in_process(settings):
    settings.REDIS_URL = ""
    watcher = push.hub.watch(table_channel(987654))
    try:
        push.table_changed(game_id=987654, version=3, group=None)
        assert watcher.pending == [Change(987654, 3)]
    finally:
        push.hub.unwatch(watcher)


def test_the_redis_channel_names_the_database(settings):
    settings.KAVET_PUSH_CHANNEL = ""
    assert push.channel_name().startswith("kavet:push:")
    assert push.channel_name().endswith(
        str(settings.DATABASES["default"]["NAME"]).rsplit("/", 1)[-1]
    )
    settings.KAVET_PUSH_CHANNEL = "kavet:push:elsewhere"
    assert push.channel_name() == "kavet:push:elsewhere"


@pytest.fixture
def redis_url():
    url = os.environ.get("REDIS_URL", "")
    need_service(bool(url), "Redis (REDIS_URL) for the push fan-out across processes")
    return url


def test_redis_carries_a_change_from_another_process_to_this_ones_watchers(redis_url):
    channel = f"kavet:push:test-{uuid.uuid4().hex[:8]}"
    local = _LocalHub()
    bridge = RedisBridge(redis_url, channel, local)
    try:
        assert bridge.ensure_listening(5), "the subscriber did not start"

        async def scenario():
            mine = local.watch(table_channel(41))
            teacher = local.watch(group_channel(6))
            other = local.watch(table_channel(42))
            for w in (mine, teacher, other):
                local.attach(w, asyncio.get_running_loop())
            code = (
                "import sys; from games.push import RedisBridge, Change, _LocalHub;"
                "ok = RedisBridge(sys.argv[1], sys.argv[2], _LocalHub()).publish(Change(41, 9, 6));"
                "sys.exit(0 if ok else 1)"
            )
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-c", code, redis_url, channel, cwd=os.getcwd()
            )
            assert await proc.wait() == 0
            return await mine.get(5), await teacher.get(5), await other.get(0.3)

        mine, teacher, other = run(scenario())
        assert mine == [Change(41, 9, 6)]
        assert teacher == [Change(41, 9, 6)]
        assert other == []
    finally:
        bridge.stop()


def test_redis_wakes_sync_waiters_of_another_bridge(redis_url):
    """Two bridges on one channel stand for two web processes."""
    channel = f"kavet:push:test-{uuid.uuid4().hex[:8]}"
    receiving, sending = _LocalHub(), _LocalHub()
    receiver = RedisBridge(redis_url, channel, receiving)
    sender = RedisBridge(redis_url, channel, sending)
    try:
        assert receiver.ensure_listening(5)
        receiving.track_sync("a sync stream", table_channel(5))
        cursor = receiving.cursor(table_channel(5))
        result = {}
        waiter = threading.Thread(
            target=lambda: result.update(got=receiving.wait(table_channel(5), cursor, 5))
        )
        waiter.start()
        assert sender.publish(Change(5, 17))
        waiter.join()
        assert result["got"] == (cursor + 1, [Change(5, 17)])
        assert sending.cursor(table_channel(5)) == 0  # the sender's own hub only hears via Redis
    finally:
        receiver.stop()


def test_redis_down_still_delivers_in_this_process(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    settings.REDIS_SOCKET_TIMEOUT = 0.2
    watcher = push.hub.watch(table_channel(987655))
    try:
        push.table_changed(game_id=987655, version=1)
        assert watcher.pending == [Change(987655, 1)]
    finally:
        push.hub.unwatch(watcher)
        push._bridge = None


# --- streams replaced (games.streamcap closes the oldest stream past a cap) -----------------


def test_replaced_streams_end_here_and_others_are_ignored():
    hub = _LocalHub()

    async def scenario():
        loop = asyncio.get_running_loop()
        old = hub.watch(table_channel(7), "old-stream")
        new = hub.watch(table_channel(7), "new-stream")
        for w in (old, new):
            hub.attach(w, loop)
        hub.replace_streams(["old-stream", "of-another-process"])
        return await old.get(1), old, await new.get(0.2), new

    got_old, old, got_new, new = run(scenario())
    assert old.replaced and old.closed and got_old == []
    assert not new.replaced and not new.closed and got_new == []


def test_a_stream_replaced_before_it_starts_ends_at_once():
    hub = _LocalHub()
    watcher = hub.watch(table_channel(7), "early")
    hub.replace_streams(["early"])

    async def scenario():
        hub.attach(watcher, asyncio.get_running_loop())
        return await watcher.get(5)

    assert run(scenario()) == [] and watcher.replaced


def test_a_replaced_sync_stream_wakes_from_its_wait():
    hub = _LocalHub()
    hub.track_sync("sync-stream")
    cursor = hub.cursor(table_channel(9))
    threading.Timer(0.1, hub.replace_streams, args=[["sync-stream"]]).start()
    started = time.monotonic()
    assert hub.wait(table_channel(9), cursor, 5, "sync-stream") == (cursor, [])
    assert time.monotonic() - started < 3
    assert hub.sync_replaced("sync-stream")
    hub.untrack_sync("sync-stream")
    assert not hub.sync_replaced("sync-stream")


def test_replaced_messages_are_read_back_and_malformed_ones_ignored():
    assert push._decode(push._encode_replaced(["a", "b"])) == ["a", "b"]
    assert push._decode(b'{"replaced": [1, 2]}') is None
    assert push._decode(b'{"other": []}') is None


def test_redis_replaces_a_stream_held_by_another_process(redis_url):
    """The process that counted a stream past its cap is rarely the one that holds it."""
    channel = f"kavet:push:test-{uuid.uuid4().hex[:8]}"
    holding, counting = _LocalHub(), _LocalHub()
    holder = RedisBridge(redis_url, channel, holding)
    counter = RedisBridge(redis_url, channel, counting)
    try:
        assert holder.ensure_listening(5)

        async def scenario():
            watcher = holding.watch(table_channel(3), "held-elsewhere")
            keep = holding.watch(table_channel(3), "kept")
            for w in (watcher, keep):
                holding.attach(w, asyncio.get_running_loop())
            assert counter.publish(["held-elsewhere"])
            await watcher.get(5)
            return watcher, keep

        watcher, keep = run(scenario())
        assert watcher.replaced and not keep.replaced
    finally:
        holder.stop()
