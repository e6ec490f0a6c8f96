"""Backup and restore of a school of 300 children with a year of play (issue 39), on PostgreSQL
and on the embedded SQLite, beside a yardstick measured in the same run: a plain copy of a file
as big as the database (the least any backup of it must do).

The school: 10 classes x 30 children, 36 school weeks, one game a week per table of 3 (3,600
games), each a copy of one of a few games really played through games.services by the engine's
computer players (tests/reports/plays.py), with its seats, moves and plays given to the table's
children and dated in its week; a weekly report per child and week (10,800). Copying keeps the
rows real (every move and play one the engine made) and the build to seconds.

Per engine (a process each, as Django is configured once): the data set is built, then
`backup_write` and `backup_restore` (into the database emptied: PostgreSQL's schema dropped in
the bench's own database `kavet_bench_backup`, SQLite's file deleted) run --rounds times, each
beside the yardstick's copy; the medians and their ratios are printed.

    .venv/bin/python benchmarks/bench_backup.py            # both engines (PostgreSQL if it answers)
    .venv/bin/python benchmarks/bench_backup.py --quick    # 30 children, 4 weeks: checks it works
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.local import answers, ensure_database, with_path  # noqa: E402
from benchmarks.quick import parse_args  # noqa: E402

FIRST_MONDAY = date(2025, 9, 1)
TEMPLATES = 4  # games really played, copied to every table and week
DATABASE = "kavet_bench_backup"


def build(students: int, weeks: int, classes: int) -> dict:
    """The school and its year of play; counts of what it holds."""
    from django.db import transaction

    from classrooms.models import Classroom, School, Student
    from classrooms.services import student_create
    from games.models import Game, Move, Play, Seat
    from kavet_site.celery import app
    from reports.models import WeeklyReport
    from reports.tasks import build_class_reports
    from tests.reports.plays import played_game

    app.conf.task_always_eager = True
    zone = ZoneInfo("Europe/Paris")
    per_class = students // classes
    with transaction.atomic():
        school = School.objects.create(
            slug="bench-backup", name="Bench backup", time_zone="Europe/Paris"
        )
        classrooms = [
            Classroom.objects.create(
                school=school, name=f"Class {c + 1}", school_year="2025-2026", code=f"BK{c:04d}"
            )
            for c in range(classes)
        ]
        for c, classroom in enumerate(classrooms):
            for i in range(per_class):
                student_create(
                    classroom=classroom,
                    name=f"Kid {c + 1}.{i + 1:02d}",
                    number_range=20,
                    tier=1 + i % 3,
                )
    kids = {c.pk: list(Student.objects.filter(classroom=c).order_by("pk")) for c in classrooms}
    first = classrooms[0]
    at = datetime(FIRST_MONDAY.year, FIRST_MONDAY.month, FIRST_MONDAY.day, 10, tzinfo=zone)
    templates = [
        played_game(classroom=first, students=kids[first.pk][:3], at=at, seed=seed, moves=30)
        for seed in range(TEMPLATES)
    ]
    build_class_reports(first.pk, FIRST_MONDAY.isoformat())
    report_data = WeeklyReport.objects.filter(student__classroom=first).first().data
    WeeklyReport.objects.all().delete()  # every week's reports are copies of this one's figures
    parts = {
        t.pk: (
            list(Seat.objects.filter(game=t).order_by("position")),
            list(Move.objects.filter(game=t).order_by("number")),
            list(Play.objects.filter(game=t).order_by("pk")),
        )
        for t in templates
    }
    Game.objects.filter(pk__in=[t.pk for t in templates]).delete()
    n = 0
    for week in range(weeks):
        shift = timedelta(weeks=week)
        with transaction.atomic():
            for classroom in classrooms:
                children = kids[classroom.pk]
                for start in range(0, len(children) - 2, 3):
                    table = children[start : start + 3]
                    template = templates[n % len(templates)]
                    n += 1
                    seats, moves, plays = parts[template.pk]
                    game = _copy(template, classroom=classroom, shift=shift)
                    who = {s.student_id: table[s.position] for s in seats if s.student_id}
                    Seat.objects.bulk_create(
                        [
                            _clone(
                                s,
                                game=game,
                                student=who.get(s.student_id),
                                last_seen_at=_later(s.last_seen_at, shift),
                            )
                            for s in seats
                        ]
                    )
                    new_moves = Move.objects.bulk_create(
                        [_clone(m, game=game, created_at=m.created_at + shift) for m in moves]
                    )
                    by_old = {old.pk: new for old, new in zip(moves, new_moves, strict=True)}
                    Play.objects.bulk_create(
                        [
                            _clone(
                                p,
                                game=game,
                                student=who.get(p.student_id),
                                move=by_old.get(p.move_id),
                                at=p.at + shift,
                            )
                            for p in plays
                        ]
                    )
            WeeklyReport.objects.bulk_create(
                [
                    WeeklyReport(
                        student=kid,
                        week_start=FIRST_MONDAY + shift,
                        data=report_data,
                        built_at=at + shift + timedelta(days=7),
                    )
                    for children in kids.values()
                    for kid in children
                ]
            )
    return {
        "children": sum(len(v) for v in kids.values()),
        "games": Game.objects.count(),
        "moves": Move.objects.count(),
        "plays": Play.objects.count(),
        "reports": WeeklyReport.objects.count(),
    }


def _later(moment, shift):
    return moment + shift if moment is not None else None


def _clone(row, **changes):
    row = type(row).objects.model(
        **{f.attname: getattr(row, f.attname) for f in row._meta.concrete_fields}
    )
    row.pk = None
    for name, value in changes.items():
        setattr(row, name, value)
    return row


def _copy(template, *, classroom, shift):
    from games.services.timers import GAME_CLOCKS

    game = _clone(template, classroom=classroom, school_id=classroom.school_id)
    for name in GAME_CLOCKS:
        setattr(game, name, _later(getattr(template, name), shift))
    game.save(force_insert=True)
    return game


def database_bytes() -> int:
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_database_size(current_database())")
            return int(cursor.fetchone()[0])
    name = connection.settings_dict["NAME"]
    return sum(os.path.getsize(p) for p in (name, f"{name}-wal") if os.path.exists(p))


def empty_the_database() -> None:
    from django.db import connection, connections

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("DROP SCHEMA public CASCADE")
            cursor.execute("CREATE SCHEMA public")
        connections.close_all()
        return
    name = connection.settings_dict["NAME"]
    connections.close_all()
    for path in (name, f"{name}-wal", f"{name}-shm"):
        if os.path.exists(path):
            os.remove(path)


def copy_seconds(size: int, work: Path) -> float:
    """The yardstick: copy a file of `size` bytes (random, so no file system shortcut)."""
    source, target = work / "yardstick.bin", work / "yardstick.copy"
    if not source.exists() or source.stat().st_size != size:
        with open(source, "wb") as out:
            left = size
            while left > 0:
                chunk = min(left, 1 << 20)
                out.write(os.urandom(chunk))
                left -= chunk
    started = time.perf_counter()
    shutil.copyfile(source, target)
    with open(target, "rb+") as f:
        os.fsync(f.fileno())
    took = time.perf_counter() - started
    target.unlink()
    return took


def child(args) -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from kavet_site.backups.archive import backup_restore, backup_write

    call_command("migrate", verbosity=0, interactive=False)
    started = time.perf_counter()
    counts = build(args.students, args.weeks, args.classes)
    built = time.perf_counter() - started
    size = database_bytes()
    rows = []
    with tempfile.TemporaryDirectory(prefix="kavet-bench-backup-") as work:
        work_dir = Path(work)
        for _round in range(args.rounds):
            yard = copy_seconds(size, work_dir)
            t0 = time.perf_counter()
            archive = backup_write(directory=work_dir / "archives")
            backup = time.perf_counter() - t0
            empty_the_database()
            t0 = time.perf_counter()
            backup_restore(archive=archive)
            restore = time.perf_counter() - t0
            rows.append((yard, backup, restore, archive.stat().st_size))
            archive.unlink()
    yard, backup, restore = (statistics.median(r[i] for r in rows) for i in range(3))
    print(
        json.dumps(
            {
                "engine": connection.vendor,
                **counts,
                "built_s": round(built, 1),
                "database_mb": round(size / 1e6, 1),
                "archive_mb": round(rows[-1][3] / 1e6, 1),
                "yardstick_copy_s": round(yard, 3),
                "backup_s": round(backup, 2),
                "restore_s": round(restore, 2),
                "backup_ratio": round(backup / yard, 1),
                "restore_ratio": round(restore / yard, 1),
                "rounds": args.rounds,
            }
        ),
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--weeks", type=int, default=36)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--engine", choices=["both", "postgresql", "sqlite"], default="both")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parse_args(parser, quick={"students": 30, "classes": 2, "weeks": 4, "rounds": 1})
    if args.child:
        child(args)
        return
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL",)}
    env.update(
        DJANGO_SETTINGS_MODULE="kavet_site.settings", LOG_LEVEL="ERROR", PYTHONPATH=str(ROOT)
    )
    passed = [a for a in sys.argv[1:] if a != "--engine"]
    runs = []
    if args.engine in ("both", "postgresql"):
        url = os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/postgres"
        if url.startswith("postgres") and answers(url, 5432):
            url = with_path(url, "/" + DATABASE)
            ensure_database(url)
            _reset_postgres(url)
            runs.append(("postgresql", dict(env, DATABASE_URL=url)))
        else:
            print("postgresql: not run, PostgreSQL does not answer (DATABASE_URL)")
    if args.engine in ("both", "sqlite"):
        sqlite = Path(tempfile.mkdtemp(prefix="kavet-bench-backup-")) / "db.sqlite3"
        runs.append(
            (
                "sqlite",
                {
                    **{k: v for k, v in env.items() if k != "DATABASE_URL"},
                    "SQLITE_PATH": str(sqlite),
                },
            )
        )
    print(f"load before: {os.getloadavg()[0]:.2f} (1 min, {os.cpu_count()} cores)", flush=True)
    for engine, run_env in runs:
        done = subprocess.run(
            [sys.executable, __file__, "--child", *_without_engine(passed)],
            env=run_env,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            print(f"{engine}: failed\n{done.stderr[-3000:]}")
            sys.exit(1)
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        print(
            f"{figures['engine']:>10}: {figures['children']} children, {figures['games']} games, "
            f"{figures['moves']} moves, {figures['plays']} plays, {figures['reports']} reports; "
            f"database {figures['database_mb']} MB, archive {figures['archive_mb']} MB\n"
            f"{'':>12}backup {figures['backup_s']} s ({figures['backup_ratio']}x the copy), "
            f"restore {figures['restore_s']} s ({figures['restore_ratio']}x), "
            f"yardstick copy {figures['yardstick_copy_s']} s; medians of {figures['rounds']}",
            flush=True,
        )


def _without_engine(argv: list[str]) -> list[str]:
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a == "--engine":
            skip = True
            continue
        if a.startswith("--engine="):
            continue
        out.append(a)
    return out


def _reset_postgres(url: str) -> None:
    """The bench's own database, emptied: a run starts from nothing (never another database)."""
    import psycopg

    assert url.rsplit("/", 1)[-1] == DATABASE
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")


if __name__ == "__main__":
    main()
