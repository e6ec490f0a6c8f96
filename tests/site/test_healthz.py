"""/healthz: {"ok": ...} with 200/503 for anyone; the state of the database, the cache and the
broker in detail only for staff users and for a caller holding KAVET_HEALTHZ_TOKEN."""

from __future__ import annotations

import pytest

from tests import factories

TOKEN = "s3cret-healthz-token"


@pytest.fixture
def with_token(settings):
    settings.KAVET_HEALTHZ_TOKEN = TOKEN
    return TOKEN


def _detailed(client):
    return client.get("/healthz", HTTP_X_HEALTHZ_TOKEN=TOKEN)


@pytest.mark.django_db
def test_public_answer_is_only_ok_true(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"ok": True}


@pytest.mark.django_db
def test_token_caller_gets_every_check(client, with_token):
    response = _detailed(client)
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is True and body["status"] == "ok"
    assert set(body["checks"]) == {"database", "cache", "broker"}
    assert all(check["ok"] for check in body["checks"].values())
    assert all("ms" in check for check in body["checks"].values())


@pytest.mark.django_db
@pytest.mark.parametrize("header", ["", "wrong", TOKEN + "x", TOKEN[:-1], "é" * 3])
def test_wrong_or_missing_token_gets_the_public_answer(client, with_token, header):
    response = client.get("/healthz", HTTP_X_HEALTHZ_TOKEN=header)
    assert response.status_code == 200
    assert response.json() == {"ok": True}


@pytest.mark.django_db
def test_empty_setting_disables_the_token(client, settings):
    settings.KAVET_HEALTHZ_TOKEN = ""
    assert client.get("/healthz", HTTP_X_HEALTHZ_TOKEN="").json() == {"ok": True}


@pytest.mark.django_db
def test_staff_user_sees_the_details_and_a_teacher_does_not(client, settings):
    settings.KAVET_HEALTHZ_TOKEN = ""
    school = factories.school()
    client.force_login(factories.teacher(school=school))
    assert client.get("/healthz").json() == {"ok": True}
    client.force_login(factories.school_admin(school=school))
    body = client.get("/healthz").json()
    assert body["ok"] is True and set(body["checks"]) == {"database", "cache", "broker"}


def _break_the_cache(settings):
    from django.core.cache import caches

    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        }
    }
    caches._settings = None  # forget the cached configuration
    try:
        del caches["default"]
    except (AttributeError, KeyError):
        pass


@pytest.mark.django_db
def test_healthz_is_503_when_the_cache_is_down_and_tells_no_host_in_public(
    client, settings, with_token
):
    _break_the_cache(settings)
    public = client.get("/healthz")
    assert public.status_code == 503
    assert public.json() == {"ok": False}
    assert b"127.0.0.1" not in public.content and b"6379" not in public.content
    response = _detailed(client)
    assert response.status_code == 503
    body = response.json()
    assert body["ok"] is False and body["status"] == "fail"
    assert body["checks"]["cache"]["ok"] is False and body["checks"]["cache"]["error"]
    assert body["checks"]["database"]["ok"] is True


@pytest.mark.django_db
def test_healthz_is_503_when_the_broker_is_unreachable(client, settings, with_token):
    from kavet_site.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = False
    before = app.conf.broker_url
    app.conf.broker_url = "redis://127.0.0.1:1/0"
    app._pool = None  # the connection pool is made from the broker URL on first use
    try:
        public = client.get("/healthz")
        response = _detailed(client)
    finally:
        app.conf.broker_url = before
        app._pool = None
    assert public.status_code == 503 and public.json() == {"ok": False}
    assert response.status_code == 503
    assert response.json()["checks"]["broker"]["ok"] is False
