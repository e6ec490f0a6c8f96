"""Sessions in the database behind the cache, that keep working when the cache does not.

Django's cached_db store reads the cache first and falls back to the database, but a failing
`cache.set` after a database read, `in cache` in exists() and `cache.delete` in delete() still
raise. Here every cache call is allowed to fail: the database is the truth, the cache only a
copy, so sign-in, every signed-in page and sign-out keep working with Redis down. (With
kavet_site.cache.ResilientRedisCache the cache already degrades; this store does not rely on it.)
"""

from __future__ import annotations

import logging

from django.contrib.sessions.backends.cached_db import SessionStore as CachedDBStore

log = logging.getLogger("kavet_site.sessions")


class SessionStore(CachedDBStore):
    def _cache_call(self, name: str, *args, default=None):
        try:
            return getattr(self._cache, name)(*args)
        except Exception as exc:  # noqa: BLE001 - any cache failure: the database answers
            log.warning(
                "session cache %s failed (%s); using the database", name, type(exc).__name__
            )
            return default

    def load(self):
        data = self._cache_call("get", self.cache_key)
        if data is not None:
            return data
        s = self._get_session_from_db()
        if not s:
            return {}
        data = self.decode(s.session_data)
        self._cache_call("set", self.cache_key, data, self.get_expiry_age(expiry=s.expire_date))
        return data

    def exists(self, session_key):
        if session_key and self._cache_call(
            "has_key", self.cache_key_prefix + session_key, default=False
        ):
            return True
        return super(CachedDBStore, self).exists(session_key)

    def save(self, must_create=False):
        super(CachedDBStore, self).save(must_create)
        self._cache_call("set", self.cache_key, self._session, self.get_expiry_age())

    def delete(self, session_key=None):
        super(CachedDBStore, self).delete(session_key)
        if session_key is None:
            if self.session_key is None:
                return
            session_key = self.session_key
        self._cache_call("delete", self.cache_key_prefix + session_key)
