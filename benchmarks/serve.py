"""Start gunicorn (the production configuration) on loopback for a benchmark, and stop it after."""

from __future__ import annotations

import contextlib
import os
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/kavet_bench"


def bench_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("DATABASE_URL", DEFAULT_DB)
    env.setdefault("REDIS_URL", "redis://127.0.0.1:6379/3")
    env.update(
        KAVET_URLCONF="benchmarks.urls",
        DEBUG="false",
        LOG_LEVEL="ERROR",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        **extra,
    )
    return env


def use_bench_env(default_database: str) -> dict[str, str]:
    """bench_env() for the servers a benchmark starts, the same settings in its own process
    (which seeds and reads the same database through Django), and the database migrated."""
    os.environ.setdefault("DATABASE_URL", default_database)
    env = bench_env()
    own = ("KAVET_URLCONF", "DEBUG", "LOG_LEVEL", "ALLOWED_HOSTS")
    os.environ.update({k: v for k, v in env.items() if k not in os.environ or k in own})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kavet_site.settings")
    ensure_database(env)
    return env


def ensure_database(env: dict[str, str]) -> None:
    """Create the benchmark database if needed and migrate it."""
    name = env["DATABASE_URL"].rsplit("/", 1)[-1]
    exists = subprocess.run(
        [
            "psql",
            "-h",
            "127.0.0.1",
            "-U",
            "postgres",
            "-tAc",
            f"SELECT 1 FROM pg_database WHERE datname='{name}'",
        ],
        capture_output=True,
        text=True,
    ).stdout.strip()
    if exists != "1":
        subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", name], check=True)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        env=env,
        cwd=ROOT,
        check=True,
    )


def gunicorn_cmd(app: str, port: int, *options: str) -> list[str]:
    """The production command (gunicorn.conf.py) for `app` (kavet_site.wsgi / .asgi) on a
    loopback port, with extra command-line options (--workers N, ...)."""
    gunicorn_bin = str(Path(sys.executable).with_name("gunicorn"))
    return [gunicorn_bin, "-c", "gunicorn.conf.py", "--bind", f"127.0.0.1:{port}", *options, app]


@contextlib.contextmanager
def gunicorn(
    port: int, *, workers: int = 4, threads: int = 4, env: dict[str, str] | None = None
) -> Iterator[subprocess.Popen]:
    env = env or bench_env()
    cmd = gunicorn_cmd(
        "kavet_site.wsgi", port, "--workers", str(workers), "--threads", str(threads)
    )
    with serving(
        cmd, env=env, port=port, start_timeout=30, stop_timeout=15, what="gunicorn"
    ) as proc:
        yield proc


def free_port() -> int:
    """A TCP port nothing listens on now, for a server of a benchmark or a drill."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(
    cmd: list[str],
    *,
    env: dict[str, str],
    port: int,
    start_timeout: float,
    stop_timeout: float,
    what: str,
    poll: float = 0.2,
    cwd: Path = ROOT,
    ready: str = "/bench/bare",
) -> Iterator[subprocess.Popen]:
    """Start a server process (in `cwd`), wait until `ready` answers on `port`, stop it
    afterwards. Its output is dropped, or appended to the file BENCH_SERVER_LOG names (a 500's
    traceback, a worker's restart)."""
    log_path = os.environ.get("BENCH_SERVER_LOG", "")
    out = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115 - closed below
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=out)
    try:
        deadline = time.monotonic() + start_timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"{what} ended as it started (exit {proc.returncode})")
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}{ready}", timeout=1).read()
                break
            except OSError:
                time.sleep(poll)
        else:
            raise RuntimeError(f"{what} did not start")
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=stop_timeout)
        if log_path:
            out.close()


def worker_pids(master: subprocess.Popen) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(master.pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def raise_fd_limit(want: int) -> int:
    """This process's open-files limit raised towards `want` (never past the hard limit): a
    benchmark holding thousands of streams needs a file per connection. The limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = min(max(soft, want), hard)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]
