"""The Redis cache shares one connection pool per process (kavet_site.cache).

Django keeps a cache object per thread; under ASGI each request runs in a new thread, so a
pool per cache object meant a new Redis connection per request."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from kavet_site.cache import ResilientRedisCache
from tests.conftest import need_service
from tests.drills.services import REDIS_SERVER, RedisServer


@pytest.fixture
def own_redis(tmp_path):
    need_service(
        Path(REDIS_SERVER).exists() or bool(shutil.which("redis-server")),
        f"{REDIS_SERVER} to run a Redis of the test's own",
    )
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


def _clients(url: str) -> int:
    import redis

    probe = redis.Redis.from_url(url)
    try:
        return len(probe.client_list()) - 1  # not the probe itself
    finally:
        probe.close()


def test_caches_of_many_threads_share_one_connection(own_redis):
    def request(i: int) -> None:  # what each ASGI request's thread does with its own cache object
        cache = ResilientRedisCache(own_redis.url, {"OPTIONS": {"socket_timeout": 1}})
        cache.set(f"k{i}", i)
        assert cache.get(f"k{i}") == i

    for i in range(20):
        thread = threading.Thread(target=request, args=(i,))
        thread.start()
        thread.join()
    assert _clients(own_redis.url) == 1


def test_the_shared_pool_reconnects_after_redis_restarts(own_redis):
    cache = ResilientRedisCache(own_redis.url, {"OPTIONS": {"socket_timeout": 1}})
    cache.set("before", 1)
    own_redis.kill()
    assert cache.get("before", "missed") == "missed"  # degraded, not an error
    own_redis.start()
    cache._breaker.open_until = 0  # the circuit breaker's pause, skipped
    fresh = ResilientRedisCache(own_redis.url, {"OPTIONS": {"socket_timeout": 1}})
    fresh.set("after", 2)
    assert fresh.get("after") == 2 and cache.get("after") == 2
