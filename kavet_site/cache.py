"""A Redis cache that degrades instead of failing: with Redis down, reads miss and writes are dropped.

Every user of the cache here can live without it (sessions are read from the database, the
solver recomputes; rate limits count in the database, kavet_site/throttles), so a dead Redis
must not turn pages into 500s.

- Connection and timeout errors are caught: reads return their default, writes do nothing,
  `add` says "added" (nothing else holds the key), `incr` raises ValueError like a missing key.
- A circuit breaker: after a failure every call returns at once for CIRCUIT_SECONDS, so a
  request does not wait on a dead Redis once per cache call; then one call tries again.
- The outage is logged once (WARNING) and the recovery once (INFO).
- Keys written or deleted while Redis was down are deleted when it answers again (best effort,
  per process): a value Redis still holds from before the outage — a session that was signed
  out meanwhile, say — is not served stale afterwards.

Short socket timeouts come from OPTIONS (see settings): a Redis that hangs rather than refuses
costs at most that long, once per circuit period.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger("kavet_site.cache")

FAILURES = (RedisConnectionError, RedisTimeoutError, ConnectionError, TimeoutError, OSError)
CIRCUIT_SECONDS = 5.0
MAX_DIRTY_KEYS = 10_000

_MISSING = object()


class _Breaker:
    """The state of one Redis location in this process (shared by the threads)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.open_until = 0.0
        self.down_since: float | None = None
        self.dirty: set[str] = set()

    def is_open(self) -> bool:
        return time.monotonic() < self.open_until


_BREAKERS: dict[str, _Breaker] = {}
_BREAKERS_LOCK = threading.Lock()


def _breaker_for(location: str) -> _Breaker:
    with _BREAKERS_LOCK:
        return _BREAKERS.setdefault(location, _Breaker())


def _guarded(default: Any = None, *, writes: bool = False, on_failure=None):
    """Run the RedisCache method, or answer `default` when Redis is unreachable."""

    def decorate(method):
        @functools.wraps(method)
        def wrapper(self, *args, **kwargs):
            breaker = self._breaker
            if breaker.is_open():
                return self._degraded(method.__name__, args, kwargs, writes, default, on_failure)
            try:
                if breaker.down_since is not None:
                    self._recover()
                return method(self, *args, **kwargs)
            except FAILURES as exc:
                self._trip(exc)
                return self._degraded(method.__name__, args, kwargs, writes, default, on_failure)

        return wrapper

    return decorate


def _keys_of(name: str, args: tuple, kwargs: dict) -> list[str]:
    if name in ("set_many",):
        data = args[0] if args else kwargs.get("data", {})
        return list(data)
    if name in ("delete_many",):
        return list(args[0] if args else kwargs.get("keys", []))
    key = args[0] if args else kwargs.get("key")
    return [key] if key is not None else []


def _incr_missing(*_args, **_kwargs):
    raise ValueError("the cache is unavailable")


_POOLS: dict[tuple[str, str], Any] = {}
_POOLS_LOCK = threading.Lock()


class SharedPoolRedisCacheClient(RedisCacheClient):
    """Django's Redis client with one connection pool per server for the whole process.

    Django keeps a cache object per thread, and each makes its own pool. Under ASGI every
    request runs its sync code in a new thread, so each request opened a new connection to
    Redis (and left it to the garbage collector): a visible share of a web worker's time under
    load (benchmarks/README.md). redis-py's pools are thread-safe and reset themselves in a forked child."""

    def _get_connection_pool(self, write):
        index = self._get_connection_pool_index(write)
        key = (self._servers[index], repr(sorted(self._pool_options.items())))
        pool = _POOLS.get(key)
        if pool is None:
            with _POOLS_LOCK:
                pool = _POOLS.get(key)
                if pool is None:
                    pool = _POOLS[key] = self._pool_class.from_url(
                        self._servers[index], **self._pool_options
                    )
        return pool

    def get_client(self, key=None, *, write=False):
        # Django builds a redis.Redis per cache call (its response callbacks, a dict of some
        # 200 entries, each time; profiled: benchmarks/README.md). A client is thread-safe
        # (it borrows a connection from the pool per command): one per pool for the process.
        pool = self._get_connection_pool(write)
        client = _CLIENTS.get(id(pool))
        if client is None or client.connection_pool is not pool:
            client = _CLIENTS[id(pool)] = self._client(connection_pool=pool)
        return client


_CLIENTS: dict[int, Any] = {}


class ResilientRedisCache(RedisCache):
    """django.core.cache.backends.redis.RedisCache that answers defaults while Redis is down."""

    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = SharedPoolRedisCacheClient
        self._breaker = _breaker_for(str(server))

    # --- breaker ----------------------------------------------------------------------------
    def _trip(self, exc: BaseException) -> None:
        breaker = self._breaker
        with breaker.lock:
            breaker.open_until = time.monotonic() + CIRCUIT_SECONDS
            first = breaker.down_since is None
            if first:
                breaker.down_since = time.monotonic()
        if first:
            log.warning(
                "cache: Redis is unreachable (%s: %s); serving without the cache",
                type(exc).__name__,
                exc,
            )

    def _degraded(self, name, args, kwargs, writes, default, on_failure):
        if writes:
            breaker = self._breaker
            with breaker.lock:
                for key in _keys_of(name, args, kwargs):
                    if len(breaker.dirty) < MAX_DIRTY_KEYS:
                        breaker.dirty.add(
                            self.make_and_validate_key(key, version=kwargs.get("version"))
                        )
        if on_failure is not None:
            return on_failure(*args, **kwargs)
        if name == "get" and len(args) > 1:
            return args[1]  # get(key, default)
        if name == "get" and "default" in kwargs:
            return kwargs["default"]
        return default

    def _recover(self) -> None:
        """First call after an outage: drop what changed meanwhile, then carry on."""
        breaker = self._breaker
        with breaker.lock:
            dirty, breaker.dirty = breaker.dirty, set()
            since, breaker.down_since = breaker.down_since, None
        if dirty:
            try:
                self._cache.get_client(write=True).delete(*dirty)
            except FAILURES:
                with breaker.lock:
                    breaker.dirty |= dirty
                    breaker.down_since = since
                raise
        log.info(
            "cache: Redis answers again after %.1f s; %d keys invalidated",
            time.monotonic() - (since or time.monotonic()),
            len(dirty),
        )

    # --- the cache API ----------------------------------------------------------------------
    @_guarded(True, writes=True)
    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return super().add(key, value, timeout, version)

    @_guarded(None)
    def get(self, key, default=None, version=None):
        return super().get(key, default, version)

    @_guarded(None, writes=True)
    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return super().set(key, value, timeout, version)

    @_guarded(False, writes=True)
    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return super().touch(key, timeout, version)

    @_guarded(False, writes=True)
    def delete(self, key, version=None):
        return super().delete(key, version)

    @_guarded({})
    def get_many(self, keys, version=None):
        return super().get_many(keys, version)

    @_guarded(False)
    def has_key(self, key, version=None):
        return super().has_key(key, version)

    @_guarded(writes=True, on_failure=_incr_missing)
    def incr(self, key, delta=1, version=None):
        return super().incr(key, delta, version)

    @_guarded([], writes=True)
    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        super().set_many(data, timeout, version)
        return []

    @_guarded(None, writes=True)
    def delete_many(self, keys, version=None):
        return super().delete_many(keys, version)

    @_guarded(False)
    def clear(self):
        return super().clear()

    def available(self) -> bool:
        """False while the breaker is open (for callers that want to skip work needing Redis)."""
        return not self._breaker.is_open()
