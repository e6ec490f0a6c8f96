"""Fixtures shared by every test: rows for a school, and the real services the tests need.

Tests that need a service (Redis, a Celery worker, PostgreSQL, Chromium) fail when it is
missing under CI (KAVET_REQUIRE_SERVICES=1 or CI=true); on a developer's laptop without
REDIS_URL they are skipped with the reason shown.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings as hypothesis_settings

REQUIRE_SERVICES = bool(os.environ.get("KAVET_REQUIRE_SERVICES") or os.environ.get("CI"))

# Hypothesis' profiles, chosen by HYPOTHESIS_PROFILE (default "ci"): how many examples every
# property test tries. A test writes no count of its own; one whose every example is costly (a
# whole game played, a request through the database, a brute force) takes a share of the
# profile's with `examples(share)`, so that `dev` stays quick and `thorough` goes deeper.
#   dev       the inner loop (`make test-fast`): a few examples, a first answer in seconds
#   ci        `make test` and CI: Hypothesis' usual 100, derandomized (the same examples every
#             run: a red CI is a real defect, found again by running the same command)
#   thorough  before a release or after a change to the engine: ten times more, random
hypothesis_settings.register_profile("dev", max_examples=20, deadline=None)
hypothesis_settings.register_profile(
    "ci", max_examples=100, deadline=None, derandomize=True, print_blob=True
)
hypothesis_settings.register_profile("thorough", max_examples=1000, deadline=None)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def examples(share: float) -> int:
    """A share of the profile's examples, for a property whose every example is costly."""
    return max(1, round(hypothesis_settings.default.max_examples * share))


def need_service(available: bool, what: str) -> None:
    """Skip locally, fail in CI, when a service a test needs is not there."""
    if available:
        return
    if REQUIRE_SERVICES:
        pytest.fail(f"{what} is required here (CI) but is not available")
    pytest.skip(f"{what} is not configured on this machine")


# What makes a test more than a unit test: a database, a server, a browser, a real worker.
NOT_UNIT_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_setup",
    "live_server",
    "celery_worker",
    "browser",
    "page",
    "new_context",
}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Mark `unit` every test that needs no database, server, browser or service: the set
    `make test-fast` runs (the engine's tests among them); and group the tests that must run on
    one worker in turn (tests/parallel.py)."""
    from tests.parallel import add_groups

    add_groups(items)
    for item in items:
        path = str(item.path).replace(os.sep, "/")
        if "/tests/e2e/" in path or "/tests/drills/" in path:
            continue
        if item.get_closest_marker("django_db") or item.get_closest_marker("postgres"):
            continue
        if NOT_UNIT_FIXTURES & set(getattr(item, "fixturenames", ())):
            continue
        item.add_marker(pytest.mark.unit)


@pytest.fixture
def school(db):
    from tests import factories

    return factories.school()


@pytest.fixture
def other_school(db):
    from tests import factories

    return factories.school(slug="other", name="Other school")


@pytest.fixture
def teacher(school):
    from tests import factories

    return factories.teacher(school=school)


@pytest.fixture
def classroom(school, teacher):
    from tests import factories

    return factories.classroom(school=school, teachers=[teacher])


@pytest.fixture
def students(classroom):
    from tests import factories

    return [
        factories.student(classroom=classroom, name=n, number_range=r, tier=t)
        for n, r, t in [("Anna", 10, 1), ("Brieuc", 20, 2), ("Cécile", 20, 3)]
    ]


# Django's PBKDF2 spends ~0.45 s of CPU on each password it hashes or checks (1,000,000
# iterations, on purpose). No test checks the hasher, and the suite makes thousands of accounts:
# new passwords are hashed with MD5 in tests, and a hash made under the usual hashers (by a
# subprocess, or before this fixture) is still checked. A test may set its own list.
FAST_HASHER = "django.contrib.auth.hashers.MD5PasswordHasher"


@pytest.fixture(autouse=True)
def _fast_password_hashes(request):
    if "tests/engine/" in str(request.node.path):
        yield  # the engine is pure Python: no Django
        return
    settings = request.getfixturevalue("settings")
    settings.PASSWORD_HASHERS = [
        FAST_HASHER,
        *(h for h in settings.PASSWORD_HASHERS if h != FAST_HASHER),
    ]
    yield


@pytest.fixture(autouse=True)
def _celery_mode(request):
    """Tasks run in-process in tests, except where a test asks for the real worker."""
    if "tests/engine/" in str(request.node.path):
        yield  # the engine is pure Python: no Django, no Celery
        return
    settings = request.getfixturevalue("settings")
    from kavet_site.celery import app

    eager = "celery_worker" not in request.fixturenames
    before = app.conf.task_always_eager
    app.conf.task_always_eager = eager
    settings.CELERY_TASK_ALWAYS_EAGER = eager
    yield
    app.conf.task_always_eager = before


@pytest.fixture(scope="session")
def celery_worker(django_db_setup, django_db_blocker):
    """A real Celery worker process on Redis, using the test database, on a queue of its own."""
    import subprocess
    import uuid

    from django.conf import settings as dj_settings
    from django.db import connection

    from kavet_site.celery import app
    from tests import workers

    need_service(bool(os.environ.get("REDIS_URL")), "Redis (REDIS_URL) for a real Celery worker")
    import redis

    try:
        redis.Redis.from_url(os.environ["REDIS_URL"]).ping()
    except redis.RedisError as exc:
        pytest.fail(f"Redis at REDIS_URL does not answer: {exc}")
    if connection.vendor != "postgresql":
        need_service(False, "PostgreSQL (DATABASE_URL) shared between the tests and the worker")

    queue = f"test-{uuid.uuid4().hex[:8]}"
    env = dict(os.environ)
    env.update(
        DATABASE_URL=workers.database_url(connection.settings_dict),
        CELERY_QUEUE=queue,
        CONN_MAX_AGE="0",
    )
    app.conf.task_default_queue = queue
    proc = subprocess.Popen(workers.worker_command(queue), env=env, cwd=str(dj_settings.BASE_DIR))
    try:
        workers.wait_until_up(app, proc)
        yield proc
    finally:
        workers.stop(proc)
        app.conf.task_default_queue = "celery"


@pytest.fixture(autouse=True)
def _english_after_each_test(request):
    """A request in French or German leaves that language active in this thread: reset it."""
    yield
    if "tests/engine/" not in str(request.node.path):
        from django.utils import translation

        translation.activate("en")
