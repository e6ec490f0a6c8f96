"""The Celery app: configured from Django settings (CELERY_*), tasks autodiscovered per app.

Also two pieces of resilience:

- `enqueue()`: publish a task, and when the broker is unreachable log it and carry on — the
  state that needs the job is in the database and a beat sweep finds it again
  (games.tasks.sweep_due_games, classrooms.reports.tasks.sweep_report_jobs).
- A work-around for celery 5.7.0 + kombu 5.7.0 (see `_patch_kombu_redis_detached_transport`):
  without it a worker holding a delayed (ETA/countdown) or unacknowledged task dies for good
  when Redis drops.
"""

from __future__ import annotations

import logging
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kavet_site.settings")

log = logging.getLogger("kavet_site.celery")

app = Celery("kavet_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _patch_kombu_redis_detached_transport() -> None:
    """Turn kombu's AttributeError on a detached Redis transport into a connection error.

    The cause (celery 5.7.0, kombu 5.7.0): when the broker connection drops,
    `Consumer.on_connection_error_after_connected` first calls `connection.collect()`, which
    detaches the transport (`transport.client = None`), and then `connection.close()`. Closing
    the default channel restores the worker's unacknowledged messages — every task it holds for
    an ETA/countdown, and with acks_late every running one — and `restore_unacked` asks for a
    new Redis client, whose `_connparams` reads `self.connection.client.hostname` on the
    detached transport: AttributeError("'NoneType' object has no attribute 'hostname'"). That
    is not one of the connection errors `ignore_errors` swallows, so it escapes as
    "Unrecoverable error" and the worker exits. With no message held the channel has nothing
    to restore, which is why only workers holding a delayed task died.

    Raising redis' ConnectionError there instead lets `ignore_errors` swallow it, the consumer
    reconnects as it does for any broker loss, and the unacknowledged messages — still in
    Redis' unacked index — are handed out again after the visibility timeout
    (CELERY_VISIBILITY_TIMEOUT) by kombu's restore_visible. Idempotent tasks make that safe.
    """
    try:
        from kombu.transport import redis as kombu_redis
        from redis.exceptions import ConnectionError as RedisConnectionError
    except ImportError:  # no redis transport installed: nothing to patch
        return
    original = kombu_redis.Channel._connparams
    if getattr(original, "_kavet_patched", False):
        return

    def _connparams(self, asynchronous=False):
        transport = self.connection
        if transport is None or getattr(transport, "client", None) is None:
            raise RedisConnectionError("the broker connection is closed (transport detached)")
        return original(self, asynchronous=asynchronous)

    _connparams._kavet_patched = True
    kombu_redis.Channel._connparams = _connparams


_patch_kombu_redis_detached_transport()

# What a failed publish raises: kombu wraps the transport's errors, but keep redis' own too.
try:
    from kombu.exceptions import OperationalError as _KombuOperationalError
    from redis.exceptions import RedisError as _RedisError

    PUBLISH_ERRORS: tuple[type[BaseException], ...] = (
        _KombuOperationalError,
        _RedisError,
        ConnectionError,
        TimeoutError,
        OSError,
    )
except ImportError:  # pragma: no cover
    PUBLISH_ERRORS = (ConnectionError, TimeoutError, OSError)


def enqueue(task, args: tuple = (), kwargs: dict | None = None, **options) -> bool:
    """Publish `task` now; False (logged, never raised) when the broker cannot take it.

    For jobs whose need is recorded in the database, so that a beat sweep picks them up once
    the broker is back: a page must not fail because the queue is down.
    """
    try:
        task.apply_async(args, kwargs or {}, **options)
    except PUBLISH_ERRORS as exc:
        log.warning(
            "could not queue %s%r (%s: %s); the beat sweep will pick it up",
            task.name,
            tuple(args),
            type(exc).__name__,
            exc,
        )
        return False
    return True


@app.task(name="kavet_site.ping")
def ping(value: int = 1) -> dict:
    """A round trip for health checks and tests: proves a worker took the task and answered."""
    import socket

    return {"pong": value, "worker": socket.gethostname()}
