"""A real Celery worker process for a test: its command, its database and its start and stop.

The shared worker (tests/conftest.py), the mail tests' own worker (tests/reports/test_mail.py)
and the fault drills' workers (tests/drills/services.py) start one the same way: `celery -A
kavet_site worker` on a queue of the test's own, without gossip or mingle (no other worker's
chatter slows the start), on the test database.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest


def database_url(settings_dict: dict) -> str:
    """DATABASE_URL of the database Django's test run is using (a child process's setting)."""
    db = settings_dict
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def worker_command(
    queue: str,
    *,
    name: str | None = None,
    pool: str = "solo",
    loglevel: str = "warning",
    heartbeat: bool = False,
    extra: Sequence[str] = (),
) -> list[str]:
    """argv of a worker taking `queue` only, named `name` (so a ping can find it) if given."""
    cmd = [sys.executable, "-m", "celery", "-A", "kavet_site", "worker", f"--pool={pool}"]
    cmd += ["--concurrency=1", "-Q", queue, "--without-gossip", "--without-mingle"]
    if not heartbeat:
        cmd.append("--without-heartbeat")
    cmd += ["-l", loglevel]
    if name:
        cmd += ["-n", name]
    return cmd + list(extra)


def wait_until_up(
    app,
    proc: subprocess.Popen,
    *,
    name: str | None = None,
    timeout: float = 30,
    log: Path | None = None,
) -> None:
    """Fail the test unless the worker answers a ping within `timeout` seconds."""
    destination = [name.replace("%h", os.uname().nodename)] if name else None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        if app.control.ping(destination=destination, timeout=0.5):
            return
    said = f": {log.read_text()[-2000:]}" if log and log.exists() else ""
    if proc.poll() is not None:
        pytest.fail(f"the Celery worker exited with {proc.returncode}{said}")
    pytest.fail(f"the Celery worker did not come up within {timeout:g} s{said}")


def stop(proc: subprocess.Popen, timeout: float = 10) -> None:
    """Stop a process the test started (a worker, a server): asked first, killed if it lingers."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)
