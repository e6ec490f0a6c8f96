"""/healthz answers JSON with the state of the database, the cache and the broker."""
from __future__ import annotations

import pytest


@pytest.mark.django_db
def test_healthz_is_200_when_everything_configured_works(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "cache", "broker"}
    assert all(check["ok"] for check in body["checks"].values())


@pytest.mark.django_db
def test_healthz_is_503_when_the_cache_is_down(client, settings):
    from django.core.cache import caches

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": "redis://127.0.0.1:1/0"}}
    caches._settings = None  # forget the cached configuration
    try:
        del caches["default"]
    except (AttributeError, KeyError):
        pass
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "fail"
    assert body["checks"]["cache"]["ok"] is False
    assert body["checks"]["database"]["ok"] is True


@pytest.mark.django_db
def test_healthz_is_503_when_the_broker_is_unreachable(client, settings):
    from kavet_site.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = False
    before = app.conf.broker_url
    app.conf.broker_url = "redis://127.0.0.1:1/0"
    app._pool = None  # the connection pool is made from the broker URL on first use
    try:
        response = client.get("/healthz")
    finally:
        app.conf.broker_url = before
        app._pool = None
    assert response.status_code == 503
    assert response.json()["checks"]["broker"]["ok"] is False
