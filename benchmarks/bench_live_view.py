"""The teacher's live class view: render time and query count for 2, 4 and 8 tables, few/many moves.

Builds its own throw-away database (test_<name>; PostgreSQL when DATABASE_URL is set, which is
what the target is about) with a class of 30 students, starts class games through the real
services, lets time run so that moves are played (time limits and computer players), then
renders the live view with Django's test client, as a browser's poll would.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/kavet \
        .venv/bin/python benchmarks/bench_live_view.py [--runs 40] [--moves 60]

Target (issue 4): the view for 30 students at 8 tables renders in < 100 ms, and its number of
queries does not grow with the number of tables or moves.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kavet_site.settings")

import django  # noqa: E402

from benchmarks.quick import parse_args  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import (  # noqa: E402
    CaptureQueriesContext,
    setup_databases,
    setup_test_environment,
    teardown_databases,
)

STUDENTS = 30
SETTINGS = {"challenge_window": 5, "challenge_time": 30, "turn_time": 60}


def build_class():
    from classrooms.models import School, User
    from classrooms.services import classroom_create, students_bulk_add

    school = School.objects.create(name="Bench school", slug="bench-live")
    teacher = User.objects.create(username="bench-teacher", role=User.Role.TEACHER, school=school)
    classroom = classroom_create(school=school, name="CM1", school_year="2026-2027", by=teacher)
    students_bulk_add(
        classroom=classroom, by=teacher, text="\n".join(f"Kid {i:02d}" for i in range(STUDENTS))
    )
    return teacher, classroom


def start(classroom, teacher, n_tables: int):
    """A class game of n tables; 8 tables seat the whole class (4 or 3 a table, 2 computers)."""
    from classgames.services import class_session_start
    from classrooms.grouping import PlannedTable

    kids = list(classroom.students.order_by("name"))
    per_table = 4
    tables = []
    for number in range(n_tables):
        group = kids[number * per_table : (number + 1) * per_table]
        tables.append(
            PlannedTable(
                number=number + 1,
                students=group,
                bots=max(0, 3 - len(group)) if group else 0,
                bot_strength="medium",
            )
        )
    return class_session_start(
        classroom=classroom, tables=[t for t in tables if t.students], settings=SETTINGS, by=teacher
    )


def play(session, moves_per_table: int) -> int:
    """Let time run: each tick applies a due time limit or a computer player's move."""
    from django.utils import timezone

    from games.models import Game, Move
    from games.services import game_tick

    for game in session.games:
        now = timezone.now()
        for _ in range(moves_per_table * 2):
            if Move.objects.filter(game=game).count() >= moves_per_table:
                break
            now += timedelta(minutes=5)
            if not game_tick(game_id=game.pk, now=now):
                game.refresh_from_db()
                if game.status != Game.Status.RUNNING:
                    break
    return Move.objects.filter(game__class_table__session=session).count()


def measure(client, url: str, runs: int, **headers) -> tuple[float, float, int, int]:
    client.get(url, **headers)  # warm-up: templates compiled, session loaded
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        response = client.get(url, **headers)
        times.append((time.perf_counter() - began) * 1000)
    with CaptureQueriesContext(connection) as queries:
        client.get(url, **headers)
    times.sort()
    return (
        statistics.median(times),
        times[int(len(times) * 0.95) - 1],
        len(queries),
        response.status_code,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40, help="renders per line")
    parser.add_argument("--moves", type=int, default=60, help="moves per table for 'many'")
    args = parse_args(parser, quick={"runs": 5, "moves": 10})

    from django.conf import settings
    from django.test import Client
    from django.urls import reverse

    from classgames.services import class_session_end

    settings.ALLOWED_HOSTS = ["*"]
    # A database of its own, so that it never collides with a test run on the same server.
    connection.settings_dict.setdefault("TEST", {})["NAME"] = (
        f"test_{connection.settings_dict['NAME']}_benchlive"
    )
    setup_test_environment()
    old = setup_databases(verbosity=0, interactive=False)
    try:
        teacher, classroom = build_class()
        client = Client()
        client.force_login(teacher)
        vendor = connection.vendor
        print(f"database: {vendor}; class of {STUDENTS} students; {args.runs} renders a line")
        print(
            f"{'tables':>6} {'moves':>6} {'median ms':>10} {'p95 ms':>8} {'queries':>8}   "
            f"{'204 poll ms':>11} {'queries':>8}"
        )
        for n_tables in (2, 4, 8):
            session = start(classroom, teacher, n_tables)
            url = reverse("classrooms:session_live", args=[session.pk])
            for label, moves in (("few", 0), ("many", args.moves)):
                total = play(session, moves) if moves else 0
                median, p95, queries, status = measure(client, url, args.runs)
                assert status == 200, status
                # The poll that finds nothing changed: the answer most polls get.
                fingerprint = client.get(url).context["fingerprint"]
                poll_median, _p95, poll_queries, poll_status = measure(
                    client, f"{url}?v={fingerprint}", args.runs, HTTP_HX_REQUEST="true"
                )
                assert poll_status in (200, 204), poll_status
                print(
                    f"{n_tables:>6} {total:>6} {median:>10.1f} {p95:>8.1f} {queries:>8}   "
                    f"{poll_median:>11.1f} {poll_queries:>8}   ({label} moves)"
                )
            # The class's children sit at one class game at a time: end it before the next.
            class_session_end(session=session, by=teacher)
    finally:
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
