"""A channel per table in Redis: a web process hears the tables its streams watch, not the site.

Each change goes out on its table's channel (with the board) and its group's (without); a
process subscribes to a channel when its first stream of it opens, before the stream reads
the database, and unsubscribes once its last stream of it has closed (games.push.RedisBridge).
Two bridges on one Redis stand for two web processes.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid

import pytest

from games.push import Change, RedisBridge, _decode, _LocalHub, group_channel, table_channel
from tests.conftest import need_service
from tests.loops import run


@pytest.fixture
def redis_url():
    url = os.environ.get("REDIS_URL", "")
    need_service(bool(url), "Redis (REDIS_URL) for the push fan-out across processes")
    return url


@pytest.fixture
def site():
    return f"kavet:push:test-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def bridges(redis_url, site):
    """Two web processes on one Redis: (the listening one's hub, its bridge, the sender's
    bridge), the listening one subscribed; stopped after the test."""
    hub, other = _LocalHub(), _LocalHub()
    listening = RedisBridge(redis_url, site, hub)
    sender = RedisBridge(redis_url, site, other)
    try:
        assert listening.ensure_listening(5)
        yield hub, listening, sender
    finally:
        listening.stop()


def _until(condition, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not within the test's time"
        time.sleep(0.02)


def test_a_process_with_streams_on_table_a_does_not_receive_table_bs_messages(bridges, site):
    hub, listening, sender = bridges

    async def scenario():
        a = hub.watch(table_channel(1), "seat of table A")
        hub.attach(a, asyncio.get_running_loop())
        # Subscribed when watch() returned: the change right after it is heard.
        assert sender.publish(Change(2, 5, board={"html": "B" * 4000}))
        assert sender.publish(Change(1, 7, board={"html": "A"}))
        return await a.get(5)

    assert run(scenario()) == [Change(1, 7)]
    time.sleep(0.2)  # table B's message, had it come, was published first
    messages, size = listening.heard
    assert messages == 1 and size < 1000, "only table A's message reached this process"
    assert listening.channels() == {
        site,
        listening._wake_channel,
        listening.redis_channel(table_channel(1)),
    }


def test_the_group_hears_the_version_without_the_board(bridges):
    hub, listening, sender = bridges

    async def scenario():
        teacher = hub.watch(group_channel(6))
        hub.attach(teacher, asyncio.get_running_loop())
        assert sender.publish(Change(3, 9, 6, board={"html": "x" * 5000}))
        return await teacher.get(5)

    (got,) = run(scenario())
    assert got == Change(3, 9, 6) and got.board is None
    assert listening.heard[0] == 1 and listening.heard[1] < 100


def test_a_table_and_its_group_in_one_process_each_hear_it_once(bridges):
    hub, listening, sender = bridges

    async def scenario():
        seat = hub.watch(table_channel(3))
        teacher = hub.watch(group_channel(6))
        for w in (seat, teacher):
            hub.attach(w, asyncio.get_running_loop())
        assert sender.publish(Change(3, 9, 6, board={"html": "x"}))
        got = await seat.get(5), await teacher.get(5)
        await asyncio.sleep(0.2)
        return got + (await seat.get(0), await teacher.get(0))

    seat, teacher, seat_more, teacher_more = run(scenario())
    assert seat == [Change(3, 9, 6)] and seat[0].board == {"html": "x"}
    assert teacher == [Change(3, 9, 6)]
    assert seat_more == [] and teacher_more == []


def test_the_last_stream_of_a_table_closing_unsubscribes_this_process(bridges):
    hub, listening, sender = bridges
    table = listening.redis_channel(table_channel(4))
    first, second = hub.watch(table_channel(4)), hub.watch(table_channel(4))
    assert table in listening.channels()
    hub.unwatch(first)
    time.sleep(RedisBridge.RECONCILE + 0.3)
    assert table in listening.channels(), "one stream of the table is still open"
    hub.unwatch(second)
    _until(lambda: table not in listening.channels(), RedisBridge.RECONCILE * 3)
    heard = list(listening.heard)
    assert sender.publish(Change(4, 2))
    time.sleep(0.3)
    assert listening.heard == heard, "no stream of table 4 here: its message not received"


def test_sync_streams_subscribe_too(bridges):
    hub, listening, sender = bridges
    assert hub.track_sync("sync stream", table_channel(8))
    assert listening.redis_channel(table_channel(8)) in listening.channels()
    cursor = hub.cursor(table_channel(8))
    assert sender.publish(Change(8, 3))
    assert hub.wait(table_channel(8), cursor, 5) == (cursor + 1, [Change(8, 3)])
    hub.untrack_sync("sync stream")
    _until(
        lambda: listening.redis_channel(table_channel(8)) not in listening.channels(),
        RedisBridge.RECONCILE * 3,
    )


def test_without_a_listening_subscriber_nothing_waits():
    hub = _LocalHub()
    watcher = hub.watch(table_channel(1))
    assert not watcher.closed and hub.track_sync("s", table_channel(1))
    assert hub.channels() == {table_channel(1)}


def test_an_older_publishers_message_on_the_site_channel_is_delivered(redis_url, site):
    """During a rolling deploy a process of the code before publishes on the site's channel."""
    import redis

    from games.push import _encode

    hub = _LocalHub()
    listening = RedisBridge(redis_url, site, hub)
    try:
        assert listening.ensure_listening(5)

        async def scenario():
            w = hub.watch(table_channel(5))
            hub.attach(w, asyncio.get_running_loop())
            redis.Redis.from_url(redis_url).publish(site, _encode(Change(5, 6)))
            return await w.get(5)

        assert run(scenario()) == [Change(5, 6)]
        assert _decode(_encode(Change(5, 6))) == Change(5, 6)
    finally:
        listening.stop()


def test_between_whole_checks_the_subscriber_drops_exactly_the_channels_left(bridges, monkeypatch):
    """The subscriber looks at the channels asked for and left since its last look, and checks
    every channel against every stream only now and then (RedisBridge.FULL_RECONCILE): a
    table whose last stream closed is dropped, one with a stream left or opened again is
    kept, whatever the order of the closing and the opening."""
    hub, listening, sender = bridges
    monkeypatch.setattr(listening, "FULL_RECONCILE", 3600.0)  # no whole check in this test
    watchers = {n: hub.watch(table_channel(n)) for n in range(10, 20)}
    second = hub.watch(table_channel(15))  # table 15 has two streams
    names = {n: listening.redis_channel(table_channel(n)) for n in range(10, 20)}
    assert set(names.values()) <= listening.channels()
    for n in range(10, 16):
        hub.unwatch(watchers[n])
    again = hub.watch(table_channel(12))  # closed and opened again at once: still heard
    _until(lambda: not ({names[n] for n in (10, 11, 13, 14)} & listening.channels()))
    time.sleep(RedisBridge.RECONCILE + 0.3)
    kept = {names[n] for n in (12, 15, 16, 17, 18, 19)}
    assert kept <= listening.channels()
    heard = list(listening.heard)
    assert sender.publish(Change(12, 1)) and sender.publish(Change(10, 1))
    _until(lambda: listening.heard[0] == heard[0] + 1)  # table 12's message, not table 10's
    time.sleep(0.3)
    assert listening.heard[0] == heard[0] + 1
    for w in (again, second, *(watchers[n] for n in range(16, 20))):
        hub.unwatch(w)
    _until(lambda: not (set(names.values()) & listening.channels()))
