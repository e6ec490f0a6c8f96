"""Weekly reports of a class of 30 over two school years; a school of 300 (10 classes) with one
and with two workers.

1. A class of 30 with 72 weeks of play: the report build of week 2, 18, 36 and 72, first build
   (no week tallies stored: every earlier week counted from its plays and stored) and rebuild
   (tallies stored), per student: time and queries, beside a yardstick measured just before each
   row in the same run (one primary-key lookup, the median of a fixed loop) and the week-2 build.
2. A school of 300 (10 classes x 30) with one week of play: the weekly report job
   (reports.tasks.schedule_weekly_reports, as the beat runs it on Monday morning)
   queues one class job per class to Redis; real Celery worker processes started here (1, then
   2) build them. Wall time to the last report, reports/s, and the ratio 2 workers / 1.

The play is real: games played through games.services by the engine's computer players at each
student's seat (tests/reports/plays.py `played_game`, a clock stand-in dating the moves), short
games (30 moves) at tables of 3, one game per table per week. The history is generated once and
kept in the database `kavet_bench_reports` between runs (one school per data set, resumed week
by week when a run was interrupted); `--fresh` drops it and plays it again.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/kavet REDIS_URL=redis://127.0.0.1:6379/0 \
        .venv/bin/python benchmarks/bench_reports.py            # first run ~6 min of play
    .venv/bin/python benchmarks/bench_reports.py --quick        # 8 students, 6 weeks, 2 classes

Only the server of DATABASE_URL / REDIS_URL is used: the database is always --database
(kavet_bench_reports), Redis always db --redis-db (14). Without PostgreSQL the script says so and
exits 0; without Redis part 2 is skipped with the reason.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
import uuid
from datetime import date, datetime, timedelta
from pathlib import Path
from urllib.parse import urlparse
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.local import answers, ensure_database, with_path  # noqa: E402
from benchmarks.quick import parse_args  # noqa: E402

# Fixed dates (the past), so a cached history means the same on every run.
CLASS_FIRST_MONDAY = date(2025, 1, 6)
SCHOOL_WEEK = date(2026, 11, 23)
# Each data set in its own time zone, so that the Monday-morning job of the school of 300
# (Paris) finds no other bench school in its morning (Tokyo, New York).
CLASS_TZ, SCHOOL_TZ, QUICK_SCHOOL_TZ = "Asia/Tokyo", "Europe/Paris", "America/New_York"
DATASET_VERSION = 1  # bump when the generated play changes
STRENGTHS = ("easy", "easy", "medium", "hard")


def configure(args) -> tuple[bool, str]:
    """Point Django at our own database and Redis db before django.setup(); (redis ok, why not)."""
    database = os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/postgres"
    if not database.startswith("postgres") or not answers(database, 5432):
        print(f"bench_reports: not run, it needs PostgreSQL (DATABASE_URL={database or 'unset'})")
        sys.exit(0)
    os.environ["DATABASE_URL"] = with_path(database, "/" + args.database)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kavet_site.settings")
    os.environ["LOG_LEVEL"] = "ERROR"
    redis = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    if answers(redis, 6379):
        os.environ["REDIS_URL"] = with_path(redis, f"/{args.redis_db}")
        os.environ["CELERY_QUEUE"] = f"bench-reports-{uuid.uuid4().hex[:8]}"
        return True, ""
    os.environ.pop("REDIS_URL", None)
    return False, f"no Redis at {urlparse(redis).netloc} (set REDIS_URL)"


# --- the history, played through the services ------------------------------------------------


def dataset(
    slug: str,
    name: str,
    tz: str,
    classes: int,
    students: int,
    weeks: int,
    first_monday: date,
    *,
    table_size: int,
    moves: int,
    fresh: bool,
):
    """A school of `classes` x `students` with `weeks` weeks of play; kept between runs and
    resumed where an interrupted run stopped (the school's name counts the weeks played)."""
    from django.db import connection, transaction

    from classrooms.models import Classroom, School, Student
    from classrooms.services import student_create
    from kavet_site.celery import app
    from tests.reports.plays import played_game

    school = School.objects.filter(slug=slug).first()
    if school is not None and fresh:
        school.delete()
        school = None
    if school is None:
        with transaction.atomic():
            school = School.objects.create(slug=slug, name=f"{name} | weeks 0", time_zone=tz)
            for c in range(classes):
                classroom = Classroom.objects.create(
                    school=school,
                    name=f"{name} {c + 1}",
                    school_year="2025-2026",
                    code=f"B{uuid.uuid4().hex[:7].upper()}",
                )
                for i in range(students):
                    student_create(
                        classroom=classroom,
                        name=f"Kid {c + 1}.{i + 1:02d}",
                        number_range=20,
                        tier=1 + i % 3,
                    )
    done = int(school.name.rsplit(" ", 1)[-1])
    classrooms = list(school.classrooms.order_by("pk"))
    kids = {c.pk: list(Student.objects.filter(classroom=c).order_by("pk")) for c in classrooms}
    zone = ZoneInfo(tz)
    if done < weeks:
        started = time.perf_counter()
        eager = app.conf.task_always_eager
        app.conf.task_always_eager = True  # nothing queued while the past is played
        try:
            for week in range(done, weeks):
                tuesday = first_monday + timedelta(weeks=week, days=1)
                with transaction.atomic():
                    for classroom in classrooms:
                        seats = (
                            kids[classroom.pk][week % students :]
                            + kids[classroom.pk][: week % students]
                        )
                        for t in range(0, len(seats), table_size):
                            table = seats[t : t + table_size]
                            seed = (week * 1000 + classroom.pk * 10 + t) % 1_000_003
                            played_game(
                                classroom=classroom,
                                students=table,
                                seed=seed,
                                moves=moves,
                                strengths=[
                                    STRENGTHS[(seed + j) % len(STRENGTHS)]
                                    for j in range(len(table))
                                ],
                                at=datetime(
                                    tuesday.year,
                                    tuesday.month,
                                    tuesday.day,
                                    10,
                                    t // table_size,
                                    tzinfo=zone,
                                ),
                            )
                    school.name = f"{name} | weeks {week + 1}"
                    school.save(update_fields=["name"])
                if week % 12 == 11 or week + 1 == weeks:
                    print(
                        f"  {slug}: {week + 1}/{weeks} weeks played "
                        f"({time.perf_counter() - started:.0f} s)",
                        flush=True,
                    )
        finally:
            app.conf.task_always_eager = eager
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return school, classrooms, kids


# --- part 1: one class over two school years ---------------------------------------------------


def yardstick_ms(student, n: int = 9) -> float:
    """A primary-key lookup on the same connection: the median of n, in ms."""
    from classrooms.models import Student

    times = []
    for _ in range(n):
        t = time.perf_counter()
        Student.objects.filter(pk=student.pk).values_list("pk", flat=True).first()
        times.append(time.perf_counter() - t)
    return 1000 * statistics.median(times)


def build_all(kids, week_start: date) -> list[tuple[float, int, float, float, str]]:
    """Each student's build: (ms, queries, yardstick ms measured just before it, ms in SQL,
    the slowest statement)."""
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    from reports import services

    rows = []
    for kid in kids:
        yard = yardstick_ms(kid)
        reset_queries()  # the query log keeps 9,000 entries: start each count empty
        with CaptureQueriesContext(connection) as ctx:
            t = time.perf_counter()
            services.report_build(student=kid, week_start=week_start)
            ms = 1000 * (time.perf_counter() - t)
        timed = [(float(q["time"]), q["sql"]) for q in ctx.captured_queries]
        work = [q for q in timed if not re.match(r"(COMMIT|BEGIN|SAVEPOINT|RELEASE)", q[1])]
        slowest = max(work)[1] if work else ""
        rows.append((ms, len(timed), yard, 1000 * sum(t for t, _sql in timed), slowest))
    return rows


def class_over_years(kids, weeks: int, rounds: int) -> None:
    from games.models import Play
    from reports.models import WeeklyReport, WeekTally

    points = sorted({w for w in (2, weeks // 4, weeks // 2, weeks) if w >= 2})
    plays = Play.objects.filter(student__in=kids).count()
    print(
        f"\n1. class of {len(kids)} over {weeks} weeks: {plays:,} plays "
        f"({plays / len(kids) / weeks:.1f} per student and week); {rounds} round(s) of "
        f"{len(kids)} builds per row"
    )
    build_all(kids[:3], CLASS_FIRST_MONDAY + timedelta(weeks=1))  # warm-up: not counted
    samples: dict[tuple[int, str], list[tuple]] = {}
    stored: dict[int, int] = {}
    for _round in range(rounds):  # rounds interleave the weeks, so load drift hits them all
        for week in points:
            monday = CLASS_FIRST_MONDAY + timedelta(weeks=week - 1)
            WeekTally.objects.filter(student__in=kids).delete()
            WeeklyReport.objects.filter(student__in=kids, week_start=monday).delete()
            for mode in ("first", "rebuild"):
                samples.setdefault((week, mode), []).extend(build_all(kids, monday))
            stored[week] = WeekTally.objects.filter(student=kids[0]).count()
    print("   first = no week tallies stored; rebuild = tallies of the earlier weeks stored.")
    print("   yard = one pk lookup (median of 9) just before each build; x yard = median of the")
    print("   per-build ratios; x week 2 = median ms / week 2's median ms of the same mode")
    print("   sql ms = time inside the statements (median)")
    print(
        f"   {'week':>4} {'mode':<8} {'median ms':>9} {'p90 ms':>7} {'sql ms':>6} {'queries':>7} "
        f"{'yard ms':>7} {'x yard':>7} {'x week 2':>8} {'tallies':>7}"
    )
    base: dict[str, float] = {}
    for week in points:
        for mode in ("first", "rebuild"):
            rows = samples[(week, mode)]
            times = sorted(r[0] for r in rows)
            queries = [r[1] for r in rows]
            median = statistics.median(times)
            base.setdefault(mode, median)
            q = (
                f"{min(queries)}"
                if min(queries) == max(queries)
                else f"{min(queries)}-{max(queries)}"
            )
            ratio = statistics.median(r[0] / r[2] for r in rows)
            yard = statistics.median(r[2] for r in rows)
            sql = statistics.median(r[3] for r in rows)
            print(
                f"   {week:>4} {mode:<8} {median:>9.1f} {times[int(0.9 * (len(times) - 1))]:>7.1f} "
                f"{sql:>6.1f} {q:>7} {yard:>7.2f} {ratio:>7.0f} {median / base[mode]:>8.2f} "
                f"{stored[week]:>7}"
            )
    last = samples[(points[-1], "rebuild")]
    slow = statistics.mode(re.sub(r"\d+", "N", r[4])[:110] for r in last)
    print(f"   slowest statement of a week-{points[-1]} rebuild, most often: {slow}...")


# --- part 2: a school of 300, the weekly job, 1 and 2 worker processes ---------------------


def start_workers(n: int, queue: str, tag: str) -> tuple[list[subprocess.Popen], list[str], Path]:
    procs, names = [], []
    log = Path(f"/tmp/bench_reports-{tag}.log")
    with log.open("wb") as out:
        for i in range(n):
            name = f"{tag}-w{i + 1}@bench"
            names.append(name)
            procs.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "celery",
                        "-A",
                        "kavet_site",
                        "worker",
                        "--pool=solo",
                        "-Q",
                        queue,
                        "-n",
                        name,
                        "--without-gossip",
                        "--without-mingle",
                        "-l",
                        "warning",
                    ],
                    env=dict(os.environ),
                    cwd=str(ROOT),
                    stdout=subprocess.DEVNULL,
                    stderr=out,
                )
            )
    return procs, names, log


def cpu_seconds(procs: list[subprocess.Popen]) -> float:
    """User + system CPU time the worker processes have used so far."""
    total = 0
    for proc in procs:
        fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
    return total / os.sysconf("SC_CLK_TCK")


def stop_workers(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def school_run(school, classrooms, kids, workers: int, timeout: float) -> tuple[float, int]:
    """One Monday morning: the weekly job queues every class; wall time until all jobs are done."""
    import redis
    from django.core.cache import cache
    from django.db.models import Max, Min

    from kavet_site.celery import app
    from reports import tasks
    from reports.models import WeeklyReport, WeekTally

    students = [k for c in classrooms for k in kids[c.pk]]
    WeeklyReport.objects.filter(student__in=students).delete()
    WeekTally.objects.filter(student__in=students).delete()
    for c in classrooms:
        cache.delete(f"reports:weekly:{c.pk}:{SCHOOL_WEEK}")
    queue = os.environ["CELERY_QUEUE"]
    results = redis.Redis.from_url(os.environ["REDIS_URL"])
    for stale in results.scan_iter("celery-task-meta-*", count=500):
        results.delete(stale)  # our own db: the results of earlier runs' class jobs
    procs, names, log = start_workers(workers, queue, f"r{uuid.uuid4().hex[:6]}")
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            answered = app.control.ping(destination=names, timeout=1.0)
            if len(answered) == len(names):
                break
            if any(p.poll() is not None for p in procs):
                raise RuntimeError(f"a worker exited: {log.read_text()[-500:]}")
        else:
            raise RuntimeError(f"the {workers} worker(s) did not answer within 90 s")
        cpu_before = cpu_seconds(procs)
        tz = ZoneInfo(school.time_zone)
        monday = SCHOOL_WEEK + timedelta(days=7)
        moment = datetime(monday.year, monday.month, monday.day, 7, 0, tzinfo=tz)
        started = time.perf_counter()
        queued = tasks.schedule_weekly_reports.run(now=moment.isoformat())
        if queued != len(classrooms):
            raise RuntimeError(
                f"the weekly job queued {queued} classes, expected {len(classrooms)}"
            )
        # Done: every class job's result stored by its worker (SUCCESS), all the reports there.
        end = started + timeout
        done = 0
        while time.perf_counter() < end:
            metas = [results.get(k) for k in results.scan_iter("celery-task-meta-*", count=500)]
            done = sum(b'"SUCCESS"' in (m or b"") for m in metas)
            if done >= queued:
                break
            time.sleep(0.05)
        else:
            raise RuntimeError(f"only {done}/{queued} class jobs done after {timeout:.0f} s")
        seconds = time.perf_counter() - started
        cpu = cpu_seconds(procs) - cpu_before
        rows = WeeklyReport.objects.filter(student__in=students, week_start=SCHOOL_WEEK)
        built = rows.count()
        if built != len(students):
            raise RuntimeError(f"{built} reports built for {len(students)} students")
        # Time spent inside class jobs: each class's first to last report (built_at).
        spans = rows.values("student__classroom").annotate(a=Min("built_at"), b=Max("built_at"))
        busy = sum((r["b"] - r["a"]).total_seconds() for r in spans)
        return seconds, built, busy, cpu
    finally:
        stop_workers(procs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30, help="per class")
    parser.add_argument("--weeks", type=int, default=72)
    parser.add_argument("--classes", type=int, default=10, help="classes in the school")
    parser.add_argument("--table-size", type=int, default=3)
    parser.add_argument("--moves", type=int, default=30, help="moves per game")
    parser.add_argument("--database", default="kavet_bench_reports")
    parser.add_argument("--redis-db", type=int, default=14)
    parser.add_argument("--fresh", action="store_true", help="play the cached history again")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per worker run")
    parser.add_argument("--repeat", type=int, default=2, help="rounds of 1 then 2 workers")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the class builds")
    args = parse_args(
        parser,
        quick={"students": 8, "weeks": 6, "classes": 2, "timeout": 180, "repeat": 1, "rounds": 1},
    )
    redis_ok, why = configure(args)
    ensure_database(os.environ["DATABASE_URL"])

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    print(f"load before: {os.getloadavg()[0]:.2f} (1 min, {os.cpu_count()} cores)", flush=True)
    t0 = time.perf_counter()
    key = f"s{args.students}-w{args.weeks}-t{args.table_size}-m{args.moves}-v{DATASET_VERSION}"
    _school, _classes, class_kids = dataset(
        f"bench-class-{key}",
        "Class",
        CLASS_TZ,
        1,
        args.students,
        args.weeks,
        CLASS_FIRST_MONDAY,
        table_size=args.table_size,
        moves=args.moves,
        fresh=args.fresh,
    )
    print(
        f"history: class of {args.students} x {args.weeks} weeks ready "
        f"({time.perf_counter() - t0:.0f} s, cached in {args.database})",
        flush=True,
    )
    class_over_years(next(iter(class_kids.values())), args.weeks, args.rounds)

    if not redis_ok:
        print(f"\n2. school: not run, it needs Redis and real workers: {why}")
        return
    t0 = time.perf_counter()
    school_key = (
        f"c{args.classes}-s{args.students}-t{args.table_size}-m{args.moves}-v{DATASET_VERSION}"
    )
    school, classrooms, kids = dataset(
        f"bench-school-{school_key}",
        "School",
        QUICK_SCHOOL_TZ if args.quick else SCHOOL_TZ,
        args.classes,
        args.students,
        1,
        SCHOOL_WEEK,
        table_size=args.table_size,
        moves=args.moves,
        fresh=args.fresh,
    )
    total = sum(len(v) for v in kids.values())
    print(
        f"\n2. school of {total} ({args.classes} classes x {args.students}), one week of play "
        f"(ready in {time.perf_counter() - t0:.0f} s): the weekly job, real Celery workers "
        f"(--pool=solo each) on Redis db {args.redis_db}"
    )
    # A first run (not counted) warms PostgreSQL's buffers and the workers' imports; then
    # rounds of 1 and 2 workers alternate, so that a change in the machine's load hits both.
    school_run(school, classrooms, kids, 1, args.timeout)
    print(
        f"   {'round':>5} {'workers':>7} {'wall s':>7} {'reports/s':>9} {'in jobs s':>9} {'worker CPU s':>12} {'load':>5}"
    )
    runs: dict[int, list[float]] = {1: [], 2: []}
    for round_ in range(1, args.repeat + 1):
        for workers in (1, 2):
            seconds, built, busy, cpu = school_run(school, classrooms, kids, workers, args.timeout)
            runs[workers].append(seconds)
            print(
                f"   {round_:>5} {workers:>7} {seconds:>7.2f} {built / seconds:>9.1f} {busy:>9.2f} {cpu:>12.2f} "
                f"{os.getloadavg()[0]:>5.2f}",
                flush=True,
            )
    one, two = statistics.median(runs[1]), statistics.median(runs[2])
    print(
        f"   median: 1 worker {one:.2f} s ({total / one:.1f} reports/s), 2 workers {two:.2f} s "
        f"({total / two:.1f} reports/s): 2 workers / 1 = {one / two:.2f}x"
    )
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
