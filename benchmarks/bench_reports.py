"""Weekly reports of a class of 30 with a school year of play (~50,000 plays): time and queries.

Needs PostgreSQL (DATABASE_URL); builds its own throw-away database (test_<name>_benchreports).
With REDIS_URL set, also times a real Celery worker process taking the job from Redis.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/kavet REDIS_URL=redis://127.0.0.1:6379/0 \
        .venv/bin/python benchmarks/bench_reports.py [--students 30] [--weeks 36]
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
import uuid
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kavet_site.settings")

import django  # noqa: E402

from benchmarks.quick import parse_args  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_databases, teardown_databases  # noqa: E402

SEATS = 4
SESSIONS_PER_WEEK = 3
MOVES_PER_GAME = 60
SKILL_MIX = [("addsub_10",), ("addsub_10",), ("addsub_20",), ("addsub_10", "multi_step"),
             ("mult",), ("div",), ("addsub_20", "joker"), ("mult", "multi_step")]


def generate(*, students: int, weeks: int, plays_target: int, rng: random.Random):
    """A class, its students and a school year of games, seats, moves and plays (bulk_create)."""
    from classrooms.models import Classroom, School
    from classrooms.services import student_create
    from games.models import Game, Move, Play, Seat

    school = School.objects.create(name="Bench school", slug="bench", time_zone="Europe/Paris")
    classroom = Classroom.objects.create(school=school, name="CM1", school_year="2026-2027", code="BENCH1")
    kids = [student_create(classroom=classroom, name=f"Kid {i:02d}", number_range=20,
                           tier=1 + i % 3) for i in range(students)]
    tz = ZoneInfo(school.time_zone)
    first_monday = date(2026, 9, 7)
    games_per_session = (students + SEATS - 1) // SEATS
    # Every student sits at one table per session.
    plays_per_seat = max(1, round(plays_target / (weeks * SESSIONS_PER_WEEK * students)))

    game_rows = []
    for week in range(weeks):
        for session in range(SESSIONS_PER_WEEK):
            day = first_monday + timedelta(weeks=week, days=session * 2)
            start = datetime(day.year, day.month, day.day, 10, 0, tzinfo=tz)
            for table in range(games_per_session):
                game_rows.append(Game(school=school, classroom=classroom, status="finished",
                                      seed=rng.randrange(10**9), started_at=start,
                                      finished_at=start + timedelta(minutes=rng.randint(15, 35)),
                                      label=f"T{table}"))
    games = Game.objects.bulk_create(game_rows, batch_size=2000)

    seats, moves, plays = [], [], []
    for index, game in enumerate(games):
        table = index % games_per_session
        players = kids[table * SEATS:(table + 1) * SEATS]
        rng.shuffle(players)
        for position, kid in enumerate(players):
            seats.append(Seat(game=game, position=position, student=kid, name=kid.name,
                              score=rng.randint(3, 25), place=position + 1))
            for k in range(plays_per_seat):
                at = game.started_at + timedelta(seconds=20 * k + position)
                roll = rng.random()
                if roll < 0.8:
                    ok = rng.random() < 0.85
                    skills = rng.choice(SKILL_MIX)
                    operation = {"text": "8 - 5 = 2", "cards": [8, 5, 2], "positions": [0, 1, 2],
                                 "x_values": {}, "value": 2, "operators": ["-"], "steps": [],
                                 "n_operands": 2}
                    plays.append(Play(student=kid, game=game, kind="announce", at=at, ok=ok,
                                      verdict_kind="" if ok else "wrong",
                                      code="" if ok else "wrong_result",
                                      skills=list(skills) if ok else [], operation=operation,
                                      text="8 - 5 = 3" if ok else "8 - 5 = 2",
                                      n_cards=3 if ok else 0, tier=kid.tier, number_range=20,
                                      reaction_ms=rng.randint(2000, 30000)))
                elif roll < 0.92:
                    missed = rng.random() < 0.3
                    plays.append(Play(student=kid, game=game, kind="nothing", at=at, ok=not missed,
                                      missed=missed, missed_operation="4 + 3 = 7" if missed else "",
                                      tier=kid.tier, number_range=20, reaction_ms=rng.randint(2000, 30000)))
                else:
                    plays.append(Play(student=kid, game=game, kind="challenge", at=at,
                                      challenge_outcome=rng.choice(["right", "false"]),
                                      tier=kid.tier, number_range=20))
        for number in range(1, MOVES_PER_GAME + 1):
            events = [{"type": "turned_up", "seat": number % SEATS, "card": number}]
            if number % 5 == 0:
                events.append({"type": "trick_won", "seat": number % SEATS, "cards": [1, 2, 3],
                               "size": 3, "placed": None, "to": None})
            moves.append(Move(game=game, number=number, seat=number % SEATS,
                              payload={"type": "announce"}, events=events))
    Seat.objects.bulk_create(seats, batch_size=5000)
    Move.objects.bulk_create(moves, batch_size=5000)
    Play.objects.bulk_create(plays, batch_size=5000)
    last_week = first_monday + timedelta(weeks=weeks - 1)
    return classroom, kids, last_week, {"games": len(games), "seats": len(seats),
                                        "moves": len(moves), "plays": len(plays)}


def real_worker_run(classroom_id: int, week: date) -> float | None:
    """The same class job through Redis to a real worker process; seconds to the answer."""
    if not os.environ.get("REDIS_URL"):
        return None
    from classrooms.reports import tasks
    from kavet_site.celery import app

    db = connection.settings_dict
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    env = dict(os.environ, CELERY_QUEUE=queue, CONN_MAX_AGE="0",
               DATABASE_URL=f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}")
    app.conf.task_always_eager = False
    app.conf.task_default_queue = queue
    worker = subprocess.Popen([sys.executable, "-m", "celery", "-A", "kavet_site", "worker",
                               "--pool=solo", "-Q", queue, "--without-gossip", "--without-mingle",
                               "--without-heartbeat", "-l", "warning"], env=env, cwd=str(ROOT))
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not app.control.ping(timeout=0.5):
            pass
        start = time.perf_counter()
        tasks.build_class_reports.delay(classroom_id, week.isoformat()).get(timeout=120)
        return time.perf_counter() - start
    finally:
        worker.terminate()
        worker.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--weeks", type=int, default=36)
    parser.add_argument("--plays", type=int, default=50_000)
    args = parse_args(parser, quick={"students": 8, "weeks": 4, "plays": 2_000})
    if connection.vendor != "postgresql":
        sys.exit("bench_reports needs PostgreSQL: set DATABASE_URL")

    connection.settings_dict.setdefault("TEST", {})["NAME"] = f"test_{connection.settings_dict['NAME']}_benchreports"
    old = setup_databases(verbosity=0, interactive=False)
    try:
        from classrooms.reports import services, tasks
        from classrooms.reports.models import WeeklyReport
        from classrooms.reports.selectors import class_report

        t0 = time.perf_counter()
        classroom, kids, week, counts = generate(students=args.students, weeks=args.weeks,
                                                 plays_target=args.plays, rng=random.Random(7))
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        print(f"data: {counts['plays']:,} plays, {counts['games']:,} games, {counts['seats']:,} seats, "
              f"{counts['moves']:,} moves for {len(kids)} students over {args.weeks} weeks "
              f"(generated in {time.perf_counter() - t0:.1f} s)")

        # 1. The class job as one worker runs it (the task's own function, in this process).
        start = time.perf_counter()
        with CaptureQueriesContext(connection) as all_queries:
            built = tasks.build_class_reports.run(classroom.pk, week.isoformat())
        took = time.perf_counter() - start
        print(f"class job (in-process, cold): {built} reports in {took:.2f} s "
              f"({1000 * took / built:.0f} ms per student), {len(all_queries)} queries")

        # 2. Queries per student, counted one by one (the bound the code promises).
        per_student = []
        for kid in kids:
            with CaptureQueriesContext(connection) as queries:
                services.report_build(student=kid, week_start=week)
            per_student.append(len(queries))
        plays_seen = max(r.data["year"]["announcements"] for r in WeeklyReport.objects.filter(week_start=week))
        print(f"queries per student: min {min(per_student)}, max {max(per_student)} "
              f"(independent of the ~{plays_seen:,} operations per student read)")

        start = time.perf_counter()
        tasks.build_class_reports.run(classroom.pk, week.isoformat())
        print(f"class job again (rebuild in place, warm): {time.perf_counter() - start:.2f} s; "
              f"rows for the week: {WeeklyReport.objects.filter(week_start=week).count()}")

        start = time.perf_counter()
        with CaptureQueriesContext(connection) as queries:
            report = class_report(classroom=classroom, week_start=week)
        print(f"class report page data: {1000 * (time.perf_counter() - start):.0f} ms, "
              f"{len(queries)} queries, {len(report['rows'])} rows")

        seconds = real_worker_run(classroom.pk, week)
        if seconds is not None:
            print(f"real Celery worker via Redis: class of {len(kids)} built in {seconds:.2f} s")
        verdict = "PASS" if took < 10 else "FAIL"
        print(f"target: < 10 s for the class -> {verdict}")
    finally:
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
