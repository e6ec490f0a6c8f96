"""The suite on several processes (pytest-xdist, `make test`): each worker on services of its own.

Loaded first (`-p tests.parallel` in pyproject.toml's addopts), before pytest-django reads the
settings, so what it sets is what Django, the Celery app and every process a test starts
(a Celery worker, a second web process) see:

- the database: pytest-django gives each worker its own test database already (PostgreSQL
  `test_kavet_gw0`, `test_kavet_gw1`...; SQLite: a file per process, kavet_site/settings.py);
- Redis: each worker takes a Redis database of its own (REDIS_URL's /0 for gw0, /1 for gw1...;
  from /5: /5, /6...), so that one worker's `cache.clear()` (a FLUSHDB), its throttle counters, its
  board cache and its Celery queues never touch another's. Pub/sub ignores the database
  number; the push channel is named after the test database (games.push.channel_name), which
  is the worker's own;
- Hypothesis: the profile named by HYPOTHESIS_PROFILE (tests/conftest.py registers them).

Tests that cannot share the machine with the other workers (the fault drills, which kill and
restart their own Redis and PostgreSQL proxy and time a visibility timeout; the tests on the
real Celery worker) are grouped (`xdist_group`, run with `--dist loadgroup`): one worker takes
a whole group, one test after another.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

import pytest

REDIS_DATABASES = 16  # redis-server's default `databases`


def worker_index() -> int | None:
    """0 for xdist's gw0, 1 for gw1...; None outside xdist (one process)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else None


def redis_url_of_worker(url: str, index: int) -> str:
    """The same Redis, the URL's database + index: `redis://h:6379/0` -> `redis://h:6379/1` for
    gw1; `.../5` -> `.../5` for gw0, `.../6` for gw1 (two runs side by side each give their own)."""
    parts = urlsplit(url)
    base = parts.path.strip("/")
    number = (int(base) if base.isdigit() else 0) + index
    if number >= REDIS_DATABASES:
        raise pytest.UsageError(
            f"xdist worker gw{index} needs Redis database {number}, past the {REDIS_DATABASES} "
            "redis-server has: run fewer workers (-n) or start from a lower database"
        )
    return urlunsplit(parts._replace(path=f"/{number}"))


# The Redis URLs as the run was given them (before this worker took its own).
GIVEN = {
    name: os.environ.get(name, "")
    for name in ("REDIS_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND")
}


def _own_services() -> None:
    index = worker_index()
    if index is None:
        return
    for name, url in GIVEN.items():
        if url.startswith(("redis://", "rediss://")):
            os.environ[name] = redis_url_of_worker(url, index)


_own_services()


# Markers of tests that must not run beside each other: every test in a group goes to one
# worker (`--dist loadgroup`), in turn. Applied by fixture or folder, so a new drill or a new
# test on the real worker is grouped without anyone remembering to.
GROUP_BY_FIXTURE = {"celery_worker": "celery_worker"}
GROUP_BY_FOLDER = {
    "tests/drills/": "drills",
    # One walk over every URL and role, in a module-scoped world whose last test counts the
    # cells the others walked: split over workers, it would count only a part.
    "tests/site/test_url_roles.py": "url_roles",
}


# On SQLite (no DATABASE_URL: .ci/run's embedded pass), the backup and upgrade drills replace the
# worker's database file under the run: one worker takes both in turn. xdist hands out the
# largest scopes first, and in that pass this is the only group: it runs first on its worker,
# before any browser test's live server there holds the file they replace.
GROUP_ON_SQLITE = {
    "tests/site/test_backup.py": "sqlite_file",
    "tests/site/test_upgrade.py": "sqlite_file",
}


def on_sqlite() -> bool:
    return not os.environ.get("DATABASE_URL", "").strip()


def group_of(item) -> str | None:
    path = str(item.path).replace(os.sep, "/")
    for folder, group in GROUP_BY_FOLDER.items():
        if folder in path:
            return group
    if on_sqlite():
        for module, group in GROUP_ON_SQLITE.items():
            if path.endswith(module):
                return group
    for fixture, group in GROUP_BY_FIXTURE.items():
        if fixture in getattr(item, "fixturenames", ()):
            return group
    return None


def add_groups(items) -> None:
    """Mark each test of a group with its xdist_group (called by tests/conftest.py's hook)."""
    for item in items:
        if item.get_closest_marker("xdist_group"):
            continue
        group = group_of(item)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
