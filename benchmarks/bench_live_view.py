"""The teacher's live class view: render time and query count for 2, 4 and 8 tables, few/many moves.

Builds its own throw-away database (test_<name>; PostgreSQL when DATABASE_URL is set, which is
what the target is about) with a class of 30 students, starts class games through the real
services, lets time run so that moves are played (time limits and computer players), then
renders the live view with Django's test client, as a browser's poll would.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/kavet \
        .venv/bin/python benchmarks/bench_live_view.py [--runs 40] [--moves 60]

Target (issue 4): the view for 30 students at 8 tables renders in < 100 ms, and its number of
queries does not grow with the number of tables or moves.

    .venv/bin/python benchmarks/bench_live_view.py --polls [--runs 200]

The teachers' polls' CPU per request beside a yardstick, and their permission read (issue 38).
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


def cpu_ms(call, runs: int) -> float:
    """Median CPU time (this process, every thread) of one call, in ms, after one warm-up."""
    call()
    times = []
    for _ in range(runs):
        began = time.process_time()
        call()
        times.append((time.process_time() - began) * 1000)
    return statistics.median(times)


def polls(client, teacher, classroom, runs: int) -> None:
    """What the teachers' polls cost in CPU (issue 38), at a class game of 8 tables with moves:
    the permission read, the ORM's query compiled each time against session_get's prepared
    statement, taken in turns; the live view's poll answers (nothing new: 204; one table out
    of date: that section alone, out of band; the whole view, as every poll that found a
    change sent before); the one-table fetch; the class board's poll. Beside them the
    yardstick: the bare view of benchmarks/urls.py (the whole middleware stack, the teacher's
    session and user read, no view's work)."""
    import re

    from classgames.models import ClassSession
    from classgames.permissions import session_get
    from classrooms.permissions import get_manageable_or_404
    from games.services import game_tick

    session = start(classroom, teacher, 8)
    play(session, 20)
    url = f"/teacher/class-games/{session.pk}/"

    def orm():
        return get_manageable_or_404(
            teacher, ClassSession.objects.select_related("classroom"), pk=session.pk
        )

    def prepared():
        return session_get(teacher, session.pk)

    orm_ms, prepared_ms = [], []
    for _ in range(5):  # in turns: the box's noise falls on both
        orm_ms.append(cpu_ms(orm, runs))
        prepared_ms.append(cpu_ms(prepared, runs))
    orm_med, prep_med = statistics.median(orm_ms), statistics.median(prepared_ms)
    print(
        f"permission read: ORM {orm_med:.3f} ms, prepared {prep_med:.3f} ms of CPU "
        f"({orm_med / prep_med:.1f}x)"
    )
    page = client.get(url).content.decode()
    marks = re.findall(r'data-table="(\d+)" data-mark="([^"]*)"', page)
    status = re.search(r'id="live"[^>]*?data-mark="([^"]*)"', page).group(1)
    shown = status + ":" + ".".join(m for _g, m in marks)
    first = int(marks[0][0])
    htmx = {"HTTP_HX_REQUEST": "true"}
    from django.test.utils import override_settings
    from django.urls import clear_url_caches

    with override_settings(ROOT_URLCONF="benchmarks.urls"):  # the site's, and the bare view
        clear_url_caches()
        yard = cpu_ms(lambda: client.get("/bench/bare"), runs)
    clear_url_caches()
    nothing = cpu_ms(lambda: client.get(url, {"v": shown}, **htmx), runs)
    # One table out of date: the page's first mark is not the table's any more.
    from django.utils import timezone

    game_tick(game_id=first, now=timezone.now() + timedelta(hours=3))
    one = client.get(url, {"v": shown}, **htmx)
    assert one.status_code == 200 and one["HX-Reswap"] == "none", one.status_code
    sections = cpu_ms(lambda: client.get(url, {"v": shown}, **htmx), runs)
    whole = cpu_ms(lambda: client.get(url, {"v": "a word from no page"}, **htmx), runs)
    table = cpu_ms(lambda: client.get(f"{url}tables/{first}/", **htmx), runs)
    board = client.get(f"/board/session/{session.pk}/")
    word = re.search(r"\?v=([0-9a-f]+)", board.content.decode()).group(1)
    board_poll = cpu_ms(lambda: client.get(f"/board/session/{session.pk}/?v={word}", **htmx), runs)
    print(f"CPU per request, median of {runs} (the yardstick, the bare view: {yard:.2f} ms):")
    for label, value in (
        ("live view poll, nothing new (204)", nothing),
        ("live view poll, one table out of date: its section", sections),
        ("live view poll, the whole view (8 tables)", whole),
        ("one-table fetch", table),
        ("class board poll, nothing new (204)", board_poll),
    ):
        print(f"  {label:<52} {value:6.2f} ms  {value / yard:5.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40, help="renders per line")
    parser.add_argument("--moves", type=int, default=60, help="moves per table for 'many'")
    parser.add_argument(
        "--polls", action="store_true", help="only the teachers' polls' CPU (issue 38)"
    )
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
        if args.polls:
            print(f"database: {vendor}; a class game of 8 tables, 20 moves each")
            polls(client, teacher, classroom, args.runs)
            return
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
