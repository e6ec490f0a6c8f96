"""Rate-limit counters in the database (kavet_site.throttles): windows, exact counts under
concurrency, and limits that hold while Redis is down."""

from __future__ import annotations

import socket
import threading
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from classrooms import signin_locks
from games import signin
from kavet_site.throttles import counters
from kavet_site.throttles.models import Counter
from kavet_site.throttles.tasks import sweep_counters
from tests import factories
from tests.conftest import need_service


class _Clock:
    def __init__(self, monkeypatch):
        self.now = timezone.now()
        monkeypatch.setattr(counters.timezone, "now", lambda: self.now)

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch):
    return _Clock(monkeypatch)


@pytest.mark.django_db
def test_a_window_starts_at_its_first_count_and_later_counts_do_not_move_it(clock):
    assert [counters.hit("b", 60) for _ in range(3)] == [1, 2, 3]
    clock.advance(59)
    assert counters.hit("b", 60) == 4  # still the first window: it did not move with the counts
    assert counters.count("b") == 4
    clock.advance(2)
    assert counters.count("b") == 0  # over: reads ignore it
    assert counters.hit("b", 60) == 1  # and the next count starts a new window
    assert Counter.objects.filter(bucket="b").count() == 1


@pytest.mark.django_db
def test_counts_live_clear_and_sweep(clock):
    for bucket in ("kv:a:1", "kv:a:2", "kv:b:1"):
        counters.hit(bucket, 60)
    counters.mark("kv:a:3", 10)
    assert counters.counts(["kv:a:1", "kv:zz"]) == {"kv:a:1": 1, "kv:zz": 0}
    assert counters.live("kv:a:") == ["kv:a:1", "kv:a:2", "kv:a:3"]
    clock.advance(30)
    assert counters.live("kv:a:") == ["kv:a:1", "kv:a:2"]  # the mark's 10 s are over
    assert sweep_counters() == 1 and not Counter.objects.filter(bucket="kv:a:3").exists()
    counters.clear("kv:b:1", prefix="kv:a:")
    assert not Counter.objects.exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_forty_tries_at_the_same_instant_each_get_their_own_number():
    need_service(
        connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL) for concurrent upserts"
    )
    barrier = threading.Barrier(40)
    numbers: list[int] = []
    errors: list[Exception] = []

    def try_once() -> None:
        try:
            barrier.wait(timeout=20)
            numbers.append(counters.hit("kv:race", 300))
        except Exception as exc:  # collected, so the test fails with the cause
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=try_once) for _ in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    assert sorted(numbers) == list(range(1, 41))  # none lost, none doubled
    assert counters.count("kv:race") == 40


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: nothing listens there


@pytest.fixture
def redis_down(settings):
    """The site's Redis cache, pointed at a port where no Redis answers."""
    settings.CACHES = {
        "default": {
            "BACKEND": "kavet_site.cache.ResilientRedisCache",
            "LOCATION": f"redis://127.0.0.1:{_dead_port()}/0",
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
        }
    }
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.db"


@pytest.mark.django_db
def test_with_redis_down_wrong_pictures_still_pause_the_sign_in(redis_down, classroom):
    anna = factories.student(classroom=classroom, name="Anna", picture_code="0-1-2")
    tablet = Client()
    assert tablet.post(reverse("games:tablet_signin"), {"code": classroom.code}).status_code == 302
    url = reverse("games:tablet_pictures", args=[anna.pk])

    def tap(*pictures):
        so_far, response = "", None
        for pick in pictures:
            response = tablet.post(url, {"so_far": so_far, "pick": pick}, HTTP_HX_REQUEST="true")
            so_far = f"{so_far}-{pick}" if so_far else str(pick)
        return response

    for _ in range(signin_locks.STUDENT_TRIES - 1):
        assert "Those are not your pictures" in tap(5, 6, 7).content.decode()
    assert "Too many tries" in tap(5, 6, 7).content.decode()  # the last wrong try says so
    locked = tap(0, 1, 2)  # even the right pictures wait now, Redis or not
    assert locked.status_code == 200 and "Too many tries" in locked.content.decode()
    assert signin_locks.signin_locks(anna) == 1
    signin_locks.signin_unlock(anna)  # the teacher's one tap works without Redis too
    signed_in = tap(0, 1, 2)
    assert signed_in.status_code == 204 and signed_in["HX-Redirect"] == reverse(
        "games:student_home"
    )


@pytest.mark.django_db
def test_with_redis_down_wrong_class_codes_are_still_counted(redis_down, classroom):
    tablet = Client()
    for _ in range(signin_locks.TABLET_TRIES):
        tablet.post(reverse("games:tablet_signin"), {"code": "NOPE42"})
    refused = tablet.post(reverse("games:tablet_signin"), {"code": classroom.code})
    assert "Too many tries" in refused.content.decode()
    assert signin.CLASS_COOKIE not in refused.cookies
