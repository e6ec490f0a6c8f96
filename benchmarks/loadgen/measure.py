"""What a window cost, read before and after it: CPU seconds per process group from
/proc/<pid>/stat (web: the gunicorn master and its workers; PostgreSQL: the backends connected to
the benchmark's database; Redis: redis-server; worker: the Celery worker; generator: this
process), PostgreSQL's work (pg_stat_statements' calls when the server preloads it, else
pg_stat_database's transactions and rows), and Redis's bytes and commands (INFO stats)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / TICK


def tree(pid: int) -> list[int]:
    out = [pid]
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    for c in children.split():
        out += tree(int(c))
    return out


class Meter:
    def __init__(self, *, database_url: str, redis_url: str, web: int, worker: int | None) -> None:
        import psycopg
        import redis

        self.pg = psycopg.connect(
            database_url.replace("postgres://", "postgresql://"), autocommit=True
        )
        self.redis = redis.Redis.from_url(redis_url)
        self.web, self.worker = web, worker
        self.redis_pid = int(self.redis.info("server")["process_id"])
        self.statements = self._statements()

    def _statements(self) -> bool:
        try:
            with self.pg.cursor() as c:
                c.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
                c.execute("SELECT sum(calls) FROM pg_stat_statements")
            return True
        except Exception:  # not preloaded (shared_preload_libraries): the database's counters
            return False

    def _backends(self) -> list[int]:
        with self.pg.cursor() as c:
            c.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid()"
            )
            return [r[0] for r in c.fetchall()]

    def snapshot(self) -> dict:
        groups = {
            "web": tree(self.web),
            "postgresql": self._backends(),
            "redis": [self.redis_pid],
            "worker": tree(self.worker) if self.worker else [],
            "generator": [os.getpid()],
        }
        cpu = {g: {p: cpu_of(p) for p in pids} for g, pids in groups.items()}
        with self.pg.cursor() as c:
            c.execute(
                "SELECT xact_commit + xact_rollback, tup_returned, tup_fetched, "
                "tup_inserted + tup_updated + tup_deleted FROM pg_stat_database "
                "WHERE datname = current_database()"
            )
            xacts, returned, fetched, written = c.fetchone()
            calls = None
            if self.statements:
                c.execute(
                    "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s JOIN pg_database d "
                    "ON d.oid = s.dbid WHERE d.datname = current_database()"
                )
                calls = int(c.fetchone()[0])
        stats = self.redis.info("stats")
        return {
            "cpu": cpu,
            "pg": {
                "xacts": xacts,
                "returned": returned,
                "fetched": fetched,
                "written": written,
                "calls": calls,
            },
            "redis": {
                "in": stats["total_net_input_bytes"],
                "out": stats["total_net_output_bytes"],
                "commands": stats["total_commands_processed"],
            },
        }

    @staticmethod
    def spent(before: dict, after: dict) -> dict:
        """CPU seconds per group between two snapshots (a process born in between counts from
        zero; one gone in between is lost), and the counters' differences."""
        cpu = {}
        for group, pids in after["cpu"].items():
            total = 0.0
            for pid, now in pids.items():
                if now is None:
                    continue
                was = before["cpu"].get(group, {}).get(pid)
                total += now - (was or 0.0)
            cpu[group] = total
        pg = {
            k: (after["pg"][k] - before["pg"][k]) if after["pg"][k] is not None else None
            for k in after["pg"]
        }
        rd = {k: after["redis"][k] - before["redis"][k] for k in after["redis"]}
        return {"cpu": cpu, "pg": pg, "redis": rd}

    def close(self) -> None:
        self.pg.close()
        self.redis.close()
