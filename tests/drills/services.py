"""Processes a fault drill starts for itself and always stops: a Redis server, a Celery worker.

Never the machine's own PostgreSQL or Redis: each drill runs its own redis-server on a spare
port (data in a temporary directory, append-only file so a restart keeps the broker's
messages, like a production broker should) and its own worker, killed in teardown.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from benchmarks.serve import free_port
from tests import workers

REDIS_SERVER = "/usr/bin/redis-server"
ROOT = Path(__file__).resolve().parents[2]


def wait_port(port: int, *, up: bool, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                if up:
                    return
        except OSError:
            if not up:
                return
        time.sleep(0.05)
    raise TimeoutError(f"port {port} did not go {'up' if up else 'down'} in {timeout} s")


class RedisServer:
    """A redis-server of the drill's own; kill() and start() again on the same port and data."""

    def __init__(self, directory: Path, port: int | None = None) -> None:
        self.directory = directory
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                REDIS_SERVER,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--dir",
                str(self.directory),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_port(self.port, up=True)

    def kill(self) -> None:
        """SIGKILL: the connections drop at once, as when the host or the container dies."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)
        wait_port(self.port, up=False)

    def stop(self) -> None:
        self.kill()


class Worker:
    """A real `celery worker` process on the drill's Redis and the test database."""

    def __init__(
        self,
        env: dict[str, str],
        queue: str,
        log: Path,
        *,
        beat: bool = False,
        pool: str = "prefork",
    ) -> None:
        self.env, self.queue, self.log, self.beat, self.pool = env, queue, log, beat, pool
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        cmd = workers.worker_command(
            self.queue,
            name=f"drill-{self.queue}-{id(self)}@%h",
            pool=self.pool,
            loglevel="info",
            heartbeat=True,
            extra=["-I", "tests.drills.probe"],
        )
        if self.beat:
            cmd += ["-B", "--schedule", str(self.log.with_suffix(".beat"))]
        self.logfile = open(self.log, "ab")  # noqa: SIM115 - closed in stop()
        # Its own process group: a SIGKILL reaches the pool's children too.
        self.proc = subprocess.Popen(
            cmd,
            env=self.env,
            cwd=str(ROOT),
            stdout=self.logfile,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def sigkill(self) -> None:
        if self.alive():
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.alive():
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        if getattr(self, "logfile", None):
            self.logfile.close()

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""
