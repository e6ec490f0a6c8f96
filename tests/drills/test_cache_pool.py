"""The Redis cache shares one connection pool per process (kavet_site.cache).

Django keeps a cache object per thread; under ASGI each request runs in a new thread, so a
pool per cache object meant a new Redis connection per request. On a Redis of the drill's own
(redis_server, tests/drills/conftest.py), killed and started again."""

from __future__ import annotations

import threading

from kavet_site.cache import ResilientRedisCache


def _clients(url: str) -> int:
    import redis

    probe = redis.Redis.from_url(url)
    try:
        return len(probe.client_list()) - 1  # not the probe itself
    finally:
        probe.close()


def test_caches_of_many_threads_share_one_connection(redis_server):
    def request(i: int) -> None:  # what each ASGI request's thread does with its own cache object
        cache = ResilientRedisCache(redis_server.url, {"OPTIONS": {"socket_timeout": 1}})
        cache.set(f"k{i}", i)
        assert cache.get(f"k{i}") == i

    for i in range(20):
        thread = threading.Thread(target=request, args=(i,))
        thread.start()
        thread.join()
    assert _clients(redis_server.url) == 1


def test_the_shared_pool_reconnects_after_redis_restarts(redis_server):
    cache = ResilientRedisCache(redis_server.url, {"OPTIONS": {"socket_timeout": 1}})
    cache.set("before", 1)
    redis_server.kill()
    assert cache.get("before", "missed") == "missed"  # degraded, not an error
    redis_server.start()
    cache._breaker.open_until = 0  # the circuit breaker's pause, skipped
    fresh = ResilientRedisCache(redis_server.url, {"OPTIONS": {"socket_timeout": 1}})
    fresh.set("after", 2)
    assert fresh.get("after") == 2 and cache.get("after") == 2
