"""Drill: the push channel's subscriber when Redis dies and comes back (its own redis-server).

While Redis is down a process's streams would hear only that process's moves, so their tablets
would see the other processes' moves at the safety poll (about a minute). The open streams end
at once and new ones are refused without waiting (games.stream answers 204): the tablets poll
every 2 s until Redis is back, when the subscriber listens again by itself.
"""

from __future__ import annotations

import time

from games import push
from tests.drills.services import RedisServer


def _until(condition, timeout: float) -> float:
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < timeout, "not within the drill's time"
        time.sleep(0.05)
    return time.monotonic() - start


def test_redis_dying_ends_the_streams_and_new_ones_do_not_wait(tmp_path):
    redis = RedisServer(tmp_path)
    redis.start()
    hub = push._LocalHub()
    bridge = push.RedisBridge(redis.url, "kavet:push:drill-outage", hub)
    try:
        assert bridge.ensure_listening(timeout=5)
        watcher = hub.watch(push.table_channel(1), "s1")
        redis.kill()
        took = _until(lambda: watcher.closed, timeout=5)
        assert took < 3, f"open streams ended {took:.2f} s after Redis died"
        started = time.monotonic()
        assert not bridge.ensure_listening()  # refused: the stream view answers 204
        assert time.monotonic() - started < 0.2  # without waiting on the outage
        redis.start()  # back on the same port
        back = _until(lambda: bridge.ensure_listening(timeout=0), timeout=8)
        assert back < 5, f"listening again {back:.2f} s after Redis returned"
        fresh = hub.watch(push.table_channel(1), "s2")
        assert bridge.publish(push.Change(game_id=1, version=2))
        _until(lambda: fresh.pending, timeout=3)
        assert fresh.pending[0].version == 2
    finally:
        bridge.stop()
        redis.stop()


def test_back_from_an_outage_the_subscriber_listens_to_the_channels_its_streams_watch(tmp_path):
    """A channel per table: after Redis comes back the subscriber subscribes again to the
    tables (and groups) its streams still watch, and to no table whose streams closed meanwhile."""
    redis = RedisServer(tmp_path)
    redis.start()
    hub = push._LocalHub()
    site = "kavet:push:drill-channels"
    bridge = push.RedisBridge(redis.url, site, hub)
    sender = push.RedisBridge(redis.url, site, push._LocalHub())
    try:
        assert bridge.ensure_listening(timeout=5)
        kept = hub.watch(push.table_channel(1), "kept")
        teacher = hub.watch(push.group_channel(9), "teacher")
        gone = hub.watch(push.table_channel(2), "gone")
        assert {push.table_channel(c) for c in (1, 2)} <= {
            name.rsplit("|", 1)[-1] for name in bridge.channels()
        }
        redis.kill()
        _until(lambda: kept.closed, timeout=5)
        assert bridge.channels() == set()
        hub.unwatch(gone)  # its stream closed during the outage
        redis.start()
        _until(lambda: bridge.ensure_listening(timeout=0), timeout=8)
        assert bridge.channels() == {
            site,
            bridge._wake_channel,
            bridge.redis_channel(push.table_channel(1)),
            bridge.redis_channel(push.group_channel(9)),
        }
        fresh = hub.watch(push.table_channel(1), "fresh")  # subscribed already: no wait
        heard = bridge.heard[0]
        assert sender.publish(push.Change(game_id=2, version=5))
        assert sender.publish(push.Change(game_id=1, version=3, group=9))
        _until(lambda: fresh.pending and teacher.pending, timeout=3)
        assert fresh.pending == [push.Change(1, 3, 9)]
        assert bridge.heard[0] == heard + 2, "table 1's and group 9's message, not table 2's"
    finally:
        bridge.stop()
        redis.stop()
