"""/healthz: the state of the database, the cache and the broker, as JSON (200 or 503).

Anyone gets only {"ok": true/false}; the details (each check, its timing, its error) are for
staff users and for a caller sending `X-Healthz-Token` equal to settings.KAVET_HEALTHZ_TOKEN
(an empty setting turns the token off). Hosts, ports and error texts never go out in public.
"""

from __future__ import annotations

import hmac
import time
import uuid

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET


def _timed(check) -> dict:
    started = time.perf_counter()
    try:
        detail = check()
    except Exception as exc:  # noqa: BLE001 - any failure is "down", reported by class name
        return {"ok": False, "error": exc.__class__.__name__, "detail": str(exc)[:200]}
    result = {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 2)}
    if detail:
        result.update(detail)
    return result


def check_database() -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {"vendor": connection.vendor}


def check_cache() -> dict:
    key = f"healthz:{uuid.uuid4().hex}"
    cache.set(key, "1", 5)
    if cache.get(key) != "1":
        raise RuntimeError("cache did not return the value it was given")
    cache.delete(key)
    return {"backend": settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1]}


def check_broker() -> dict:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"mode": "in-process"}
    from celery import current_app as app

    # A pooled connection: a health probe every few seconds must not open a socket each time.
    with app.pool.acquire(block=True, timeout=2) as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
        conn.default_channel.client.ping()
    return {"mode": "broker"}


def may_see_details(request: HttpRequest) -> bool:
    """Staff users, or a caller holding the configured token (compared in constant time)."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated and user.is_staff:
        return True
    expected = getattr(settings, "KAVET_HEALTHZ_TOKEN", "") or ""
    given = request.headers.get("X-Healthz-Token", "")
    if not expected or not given:
        return False
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    checks = {
        "database": _timed(check_database),
        "cache": _timed(check_cache),
        "broker": _timed(check_broker),
    }
    healthy = all(c["ok"] for c in checks.values())
    body: dict = {"ok": healthy}
    if may_see_details(request):
        body.update(status="ok" if healthy else "fail", checks=checks)
    response = JsonResponse(body, status=200 if healthy else 503)
    response["Vary"] = "Cookie, X-Healthz-Token"
    return response
