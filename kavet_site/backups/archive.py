"""Backups of everything a school would lose, and their restore (manage.py backup / restore).

One archive (a gzipped tar, mode 0600: it holds children's names and password hashes) with:

- ``manifest.json``: the format, when it was made, the database engine, the schema (the
  latest migration applied per app) and what else it holds;
- the database, consistent at one moment: PostgreSQL through ``pg_dump --format=custom`` (one
  snapshot; the site keeps running), the embedded SQLite through its online backup API
  (``sqlite3.Connection.backup``: pages copied under a read transaction, writers go on);
- uploaded files under ``MEDIA_ROOT``, if the site has any (today it has none: pictures are
  codes in the database).

A restore goes into an *empty* database only (a new ``createdb``, or no SQLite file yet) and
refuses anything else with a message saying why, before changing anything: a real product
never overwrites a live school with last night's copy by mistake (Zulip's restore also wants a
fresh install). It refuses an archive of another engine, and one made by a newer version of
the code (a migration this code does not know); an archive of an older version is restored
and then needs ``manage.py migrate``, like any upgrade.

The nightly backup (tasks.py, the beat schedule) keeps the newest KAVET_BACKUP_KEEP archives in
KAVET_BACKUP_DIR.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.db import connection, connections
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder

FORMAT = 1
MANIFEST = "manifest.json"
PG_DUMP = "database.pgdump"
SQLITE_COPY = "database.sqlite3"
MEDIA = "media"
NAME_PREFIX = "kavet-backup-"
NAME_SUFFIX = ".tar.gz"


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says why and what to do."""


@dataclass(frozen=True)
class Manifest:
    created_at: str
    engine: str
    schema: dict[str, str]
    media_files: int
    format: int = FORMAT

    def to_json(self) -> str:
        return json.dumps(self.__dict__, indent=2, sort_keys=True)


def _engine() -> str:
    vendor = connection.vendor
    if vendor not in ("postgresql", "sqlite"):
        raise BackupError(f"Backups know PostgreSQL and SQLite, not {vendor}.")
    return vendor


def schema_applied() -> dict[str, str]:
    """The latest migration applied in the database, per app (its schema version)."""
    latest: dict[str, str] = {}
    for app, name in MigrationRecorder(connection).applied_migrations():
        if name > latest.get(app, ""):
            latest[app] = name
    return dict(sorted(latest.items()))


def _pg_env() -> dict[str, str]:
    db = connection.settings_dict
    env = dict(os.environ)
    for key, value in (
        ("PGHOST", db.get("HOST")),
        ("PGPORT", db.get("PORT")),
        ("PGUSER", db.get("USER")),
        ("PGPASSWORD", db.get("PASSWORD")),
        ("PGDATABASE", db.get("NAME")),
    ):
        if value:
            env[key] = str(value)
    return env


def _run(command: list[str], what: str) -> None:
    if shutil.which(command[0]) is None:
        raise BackupError(f"{command[0]} is not installed: it is needed to {what}.")
    done = subprocess.run(command, env=_pg_env(), capture_output=True, text=True)
    if done.returncode != 0:
        raise BackupError(f"{command[0]} failed to {what}: {done.stderr.strip()[-2000:]}")


def _database_copy(engine: str, into: Path) -> str:
    """A consistent copy of the database in `into`; the member's name."""
    if engine == "postgresql":
        target = into / PG_DUMP
        _run(
            ["pg_dump", "--format=custom", "--no-owner", "--no-privileges", f"--file={target}"],
            "dump the database",
        )
        return PG_DUMP
    target = into / SQLITE_COPY
    source = sqlite3.connect(connection.settings_dict["NAME"])
    copy = sqlite3.connect(target)
    try:
        with copy:
            source.backup(copy)
    finally:
        copy.close()
        source.close()
    return SQLITE_COPY


def _media_root() -> Path | None:
    root = getattr(settings, "MEDIA_ROOT", "")
    return Path(root) if root and Path(root).is_dir() else None


def backup_write(*, directory: Path | str, now: datetime | None = None) -> Path:
    """Write a dated archive into `directory`; its path. Written aside, then renamed: an archive
    with its final name is always whole."""
    engine = _engine()
    now = now or datetime.now(UTC)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    final = directory / f"{NAME_PREFIX}{now:%Y%m%dT%H%M%S%fZ}{NAME_SUFFIX}"
    with tempfile.TemporaryDirectory(prefix="kavet-backup-") as work:
        work_dir = Path(work)
        member = _database_copy(engine, work_dir)
        media = _media_root()
        media_files = sorted(p for p in media.rglob("*") if p.is_file()) if media else []
        manifest = Manifest(
            created_at=now.isoformat(),
            engine=engine,
            schema=schema_applied(),
            media_files=len(media_files),
        )
        (work_dir / MANIFEST).write_text(manifest.to_json())
        partial = directory / f".{final.name}.partial"
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with (
            os.fdopen(fd, "wb") as raw,
            tarfile.open(fileobj=raw, mode="w:gz", compresslevel=1) as tar,
        ):
            tar.add(work_dir / MANIFEST, arcname=MANIFEST)
            tar.add(work_dir / member, arcname=member)
            for path in media_files:
                tar.add(path, arcname=f"{MEDIA}/{path.relative_to(media).as_posix()}")
        os.replace(partial, final)
    return final


def backups_prune(*, directory: Path | str, keep: int) -> list[Path]:
    """Delete all but the newest `keep` archives in `directory` (by their dated names)."""
    archives = sorted(Path(directory).glob(f"{NAME_PREFIX}*{NAME_SUFFIX}"))
    old = archives[: max(0, len(archives) - max(1, keep))]
    for path in old:
        path.unlink()
    return old


def manifest_read(archive: Path | str) -> Manifest:
    try:
        with tarfile.open(archive, mode="r:gz") as tar:
            member = tar.extractfile(MANIFEST)
            data = json.loads(member.read()) if member else None
    except (OSError, tarfile.TarError, KeyError, json.JSONDecodeError) as exc:
        raise BackupError(f"{archive} is not a Kavet backup ({exc}).") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BackupError(f"{archive} is not a Kavet backup of format {FORMAT}.")
    return Manifest(**data)


def _tables() -> list[str]:
    with connection.cursor() as cursor:
        return connection.introspection.table_names(cursor)


def _newer_than_code(schema: dict[str, str]) -> list[str]:
    """Migrations in the archive that this code does not have (it was made by a newer one)."""
    known = MigrationLoader(None, ignore_no_migrations=True).disk_migrations
    return sorted(f"{app}.{name}" for app, name in schema.items() if (app, name) not in known)


def restore_check(archive: Path | str) -> Manifest:
    """Everything that would refuse the restore, checked before anything changes."""
    manifest = manifest_read(archive)
    engine = _engine()
    if manifest.engine != engine:
        raise BackupError(
            f"This archive holds a {manifest.engine} database and this site runs on {engine}: "
            f"restore it on a site configured for {manifest.engine}."
        )
    newer = _newer_than_code(manifest.schema)
    if newer:
        raise BackupError(
            "This archive was made by a newer version of Kavet (it has "
            + ", ".join(newer[:5])
            + "): install that version or a later one, then restore."
        )
    tables = _tables()
    if tables:
        name = connection.settings_dict["NAME"]
        raise BackupError(
            f"The database {name} is not empty ({len(tables)} tables): a restore goes into an "
            "empty database only, so that no school's data is overwritten by mistake. "
            "Create an empty one (createdb, or move the SQLite file away) and restore there."
        )
    return manifest


def backup_restore(*, archive: Path | str) -> Manifest:
    """Bring an archive back into the empty database (and its files under MEDIA_ROOT)."""
    manifest = restore_check(archive)
    with tempfile.TemporaryDirectory(prefix="kavet-restore-") as work:
        work_dir = Path(work)
        with tarfile.open(archive, mode="r:gz") as tar:
            tar.extractall(work_dir, filter="data")
        if manifest.engine == "postgresql":
            _run(
                [
                    "pg_restore",
                    "--no-owner",
                    "--no-privileges",
                    "--exit-on-error",
                    "--single-transaction",
                    f"--dbname={connection.settings_dict['NAME']}",
                    str(work_dir / PG_DUMP),
                ],
                "restore the database",
            )
        else:
            _sqlite_restore(work_dir / SQLITE_COPY)
        media = work_dir / MEDIA
        if media.is_dir():
            root = Path(settings.MEDIA_ROOT)
            shutil.copytree(media, root, dirs_exist_ok=True)
    connections.close_all()
    return manifest


def _sqlite_restore(copy: Path) -> None:
    connections.close_all()  # nothing of ours holds the file while it is written
    target = sqlite3.connect(connection.settings_dict["NAME"])
    source = sqlite3.connect(copy)
    try:
        with target:
            source.backup(target)
    finally:
        source.close()
        target.close()


def schema_behind() -> list[str]:
    """Migrations the code has and the restored database has not: `migrate` brings them in."""
    loader = MigrationLoader(connection)
    applied = set(loader.applied_migrations)
    return sorted(
        f"{app}.{name}" for app, name in loader.graph.leaf_nodes() if (app, name) not in applied
    )
