"""Fault drills: the site's own Redis, worker and database connection broken and mended on purpose.

Every drill starts what it breaks (a redis-server on a spare port, a TCP proxy in front of
PostgreSQL, celery workers) and stops it in teardown; the machine's PostgreSQL and Redis are
never touched. They need PostgreSQL (DATABASE_URL): the workers share the test database.
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import need_service
from tests.drills.services import REDIS_SERVER, RedisServer, Worker
from tests.workers import database_url

# The drills' visibility timeout: short, so a lost message comes back within a drill.
DRILL_VISIBILITY = 8


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/drills/" in str(item.path):
            item.add_marker(pytest.mark.drill)


@pytest.fixture
def postgres(transactional_db):
    from django.db import connection

    need_service(
        connection.vendor == "postgresql",
        "PostgreSQL (DATABASE_URL) shared between the drill and its workers",
    )
    return connection


@pytest.fixture
def redis_server(tmp_path):
    need_service(
        Path(REDIS_SERVER).exists() or bool(shutil.which("redis-server")),
        f"{REDIS_SERVER} to run a drill's own Redis",
    )
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def drill_visibility() -> int:
    """The visibility timeout of the drill's broker and workers; a drill that must hold with
    production's (CELERY_VISIBILITY_TIMEOUT, 300 s) parametrizes this fixture."""
    return DRILL_VISIBILITY


@pytest.fixture
def district(postgres, redis_server, settings, tmp_path, drill_visibility):
    """This process as a web process on the drill's Redis: cache, sessions, broker, real queue."""
    from django.core.cache import caches

    from kavet_site.celery import app

    queue = f"drill-{uuid.uuid4().hex[:8]}"
    settings.CACHES = {
        "default": {
            "BACKEND": "kavet_site.cache.ResilientRedisCache",
            "LOCATION": redis_server.url,
            "KEY_PREFIX": "kavet",
            "OPTIONS": dict(
                settings.CACHES.get("default", {}).get("OPTIONS")
                or {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}
            ),
        }
    }
    settings.SESSION_ENGINE = "kavet_site.sessions"
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    saved = {
        k: app.conf[k]
        for k in (
            "broker_url",
            "result_backend",
            "task_always_eager",
            "task_default_queue",
            "broker_transport_options",
        )
    }
    app.conf.update(
        broker_url=redis_server.url,
        result_backend=redis_server.url,
        task_always_eager=False,
        task_default_queue=queue,
        broker_transport_options={
            "visibility_timeout": drill_visibility,
            "unacked_restore_throttle": 1,
            "socket_connect_timeout": 1,
            "socket_timeout": 2,
        },
    )
    _reset_celery_pools(app)
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url(postgres.settings_dict),
        REDIS_URL=redis_server.url,
        CELERY_QUEUE=queue,
        CONN_MAX_AGE="0",
        CELERY_VISIBILITY_TIMEOUT=str(drill_visibility),
        LOG_LEVEL="INFO",
    )
    workers: list[Worker] = []

    def worker(*, beat: bool = False, **extra_env) -> Worker:
        w = Worker(dict(env, **extra_env), queue, tmp_path / f"worker{len(workers)}.log", beat=beat)
        workers.append(w)
        w.start()
        wait_for_worker(app, w)
        return w

    try:
        yield type(
            "District",
            (),
            {
                "redis": redis_server,
                "queue": queue,
                "worker": staticmethod(worker),
                "app": app,
                "tmp": tmp_path,
            },
        )
    finally:
        for w in workers:
            w.stop()
        app.conf.update(saved)
        _reset_celery_pools(app)
        caches["default"].close()


def _reset_celery_pools(app) -> None:
    app._pool = None
    if "amqp" in app.__dict__:
        app.amqp._producer_pool = None
    app.__dict__.pop("backend", None)
    app._local.__dict__.pop("backend", None) if hasattr(app, "_local") else None


def wait_for_worker(app, w: Worker, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not w.alive():
            pytest.fail(f"the drill worker exited with {w.proc.returncode}:\n{w.output()[-3000:]}")
        if app.control.ping(destination=None, timeout=0.5):
            return
    pytest.fail(f"the drill worker did not come up within {timeout} s:\n{w.output()[-3000:]}")


def wait_until(predicate, timeout: float, step: float = 0.1):
    """Poll until predicate() is truthy; its value, or None at the deadline."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return None
