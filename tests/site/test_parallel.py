"""The suite on several processes (tests/parallel.py): each worker's Redis, and the groups."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests import parallel


def test_each_worker_takes_the_next_redis_database():
    assert parallel.redis_url_of_worker("redis://127.0.0.1:6379/0", 0) == "redis://127.0.0.1:6379/0"
    assert parallel.redis_url_of_worker("redis://127.0.0.1:6379/0", 1) == "redis://127.0.0.1:6379/1"
    assert parallel.redis_url_of_worker("redis://127.0.0.1:6550/5", 2) == "redis://127.0.0.1:6550/7"
    assert parallel.redis_url_of_worker("redis://:pw@redis:6379", 1) == "redis://:pw@redis:6379/1"


def test_a_worker_past_redis_databases_is_told_to_run_fewer():
    with pytest.raises(pytest.UsageError, match="run fewer workers"):
        parallel.redis_url_of_worker("redis://127.0.0.1:6379/10", 6)


def test_drills_and_the_real_worker_each_run_on_one_worker_in_turn():
    root = Path(__file__).resolve().parents[1]
    drill = SimpleNamespace(path=root / "drills" / "test_redis_outage.py", fixturenames=["db"])
    on_worker = SimpleNamespace(
        path=root / "games" / "test_tasks.py", fixturenames=["celery_worker"]
    )
    plain = SimpleNamespace(path=root / "games" / "test_tasks.py", fixturenames=["db"])
    assert parallel.group_of(drill) == "drills"
    assert parallel.group_of(on_worker) == "celery_worker"
    assert parallel.group_of(plain) is None
    walk = SimpleNamespace(path=root / "site" / "test_url_roles.py", fixturenames=["world"])
    assert parallel.group_of(walk) == "url_roles"


def test_on_sqlite_the_backup_and_upgrade_drills_take_one_worker(monkeypatch):
    """They replace the SQLite file of their worker: one group there; on PostgreSQL none."""
    root = Path(__file__).resolve().parents[1]
    backup = SimpleNamespace(path=root / "site" / "test_backup.py", fixturenames=["db"])
    upgrade = SimpleNamespace(path=root / "site" / "test_upgrade.py", fixturenames=["db"])
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert parallel.group_of(backup) == parallel.group_of(upgrade) == "sqlite_file"
    monkeypatch.setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/kavet")
    assert parallel.group_of(backup) is None and parallel.group_of(upgrade) is None


def test_this_process_uses_the_redis_database_of_its_worker():
    """Under xdist, REDIS_URL was moved to this worker's database before Django read it; in one
    process it is the one given."""
    import os

    from django.conf import settings

    given, index = parallel.GIVEN["REDIS_URL"], parallel.worker_index()
    expected = parallel.redis_url_of_worker(given, index) if given and index is not None else given
    assert os.environ.get("REDIS_URL", "") == expected
    assert settings.REDIS_URL == expected
