"""Settings come from the environment, with embedded defaults for a one-laptop trial."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import json, django; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({'engine': s.DATABASES['default']['ENGINE'], "
    "'db': s.DATABASES['default'].get('NAME'), 'age': s.DATABASES['default'].get('CONN_MAX_AGE'), "
    "'health': s.DATABASES['default'].get('CONN_HEALTH_CHECKS'), "
    "'prepare': s.DATABASES['default'].get('OPTIONS', {}).get('prepare_threshold', 'unset'), "
    "'cache': s.CACHES['default']['BACKEND'], 'eager': s.CELERY_TASK_ALWAYS_EAGER, "
    "'broker': s.CELERY_BROKER_URL, 'debug': s.DEBUG, 'hosts': s.ALLOWED_HOSTS, "
    "'tz': s.TIME_ZONE, 'secret': s.SECRET_KEY}))"
)


def settings_with(**env: str) -> dict:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "DATABASE_URL",
            "REDIS_URL",
            "DEBUG",
            "ALLOWED_HOSTS",
            "SECRET_KEY",
            "TIME_ZONE",
            "DB_PREPARE",
        }
    }
    clean.update(env, DJANGO_SETTINGS_MODULE="kavet_site.settings")
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=clean,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_embedded_defaults_are_sqlite_locmem_and_eager_tasks():
    s = settings_with()
    assert s["engine"] == "django.db.backends.sqlite3"
    assert s["db"].endswith("db.sqlite3")
    assert s["cache"].endswith("LocMemCache")
    assert s["eager"] is True and s["broker"] == "memory://"
    assert s["debug"] is False


def test_database_url_selects_postgresql_with_persistent_checked_connections():
    s = settings_with(DATABASE_URL="postgres://kavet:pw@db.example:5433/kavet_prod")
    assert s["engine"] == "django.db.backends.postgresql"
    assert s["db"] == "kavet_prod"
    assert s["age"] == 600 and s["health"] is True
    # psycopg may prepare a statement when asked (kavet_site.prepared), never by a count.
    assert s["prepare"] == 2**31


def test_db_prepare_0_leaves_psycopgs_preparing_off_as_django_has_it():
    s = settings_with(DATABASE_URL="postgres://kavet:pw@db.example:5433/kavet", DB_PREPARE="0")
    assert s["prepare"] == "unset"  # Django then passes prepare_threshold=None to psycopg
    assert settings_with()["prepare"] == "unset"  # SQLite: nothing to prepare


def test_redis_url_makes_redis_the_cache_and_the_broker_with_real_workers():
    s = settings_with(REDIS_URL="redis://cache.example:6379/2")
    assert s["cache"].endswith("RedisCache")
    assert s["broker"] == "redis://cache.example:6379/2"
    assert s["eager"] is False


def test_debug_hosts_secret_and_time_zone_come_from_the_environment():
    s = settings_with(
        DEBUG="true",
        ALLOWED_HOSTS="kavet.school.example, other.example",
        SECRET_KEY="x" * 60,
        TIME_ZONE="Europe/Berlin",
    )
    assert s["debug"] is True
    assert s["hosts"] == ["kavet.school.example", "other.example"]
    assert s["secret"] == "x" * 60
    assert s["tz"] == "Europe/Berlin"


def test_check_deploy_is_clean_with_production_settings():
    # (the browser tests' DJANGO_ALLOW_ASYNC_UNSAFE is for the test process, never a deployment)
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    env.update(
        KAVET_PRODUCTION="1",
        SECRET_KEY="k" * 30 + "Q9!z" * 10,
        ALLOWED_HOSTS="kavet.example",
        DJANGO_SETTINGS_MODULE="kavet_site.settings",
    )
    out = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no issues" in out.stdout
