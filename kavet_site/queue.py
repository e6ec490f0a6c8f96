"""Publishing a task without failing the page: what the apps use instead of the Celery app.

The apps declare their tasks with `shared_task` and publish them through `enqueue` (after
commit, `transaction.on_commit`), so nothing below the site root imports the Celery app
(kavet_site.celery), which is configured there and found by `celery.current_app`.
"""

from __future__ import annotations

import logging

log = logging.getLogger("kavet_site.celery")

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
