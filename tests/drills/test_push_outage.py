"""Drill: the push channel's subscriber when Redis dies and comes back (its own redis-server).

While Redis is down a process's streams would hear only that process's moves, so their tablets
would see the other processes' moves at the 10 s safety poll. The open streams end at once and
new ones are refused without waiting (games.stream answers 204): the tablets poll every 2 s until
Redis is back, when the subscriber listens again by itself.
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
