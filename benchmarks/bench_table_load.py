"""600 tablets polling their game tables every 2 s (300 req/s) against gunicorn and PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/kavet_bench_table \
    REDIS_URL=redis://127.0.0.1:6379/3 .venv/bin/python benchmarks/bench_table_load.py

In one run: simulated tablets (benchmarks/tablets.py, asyncio, one keep-alive connection each)
drive the polls (one session cookie per tablet, `?v=` the version it saw, so an unchanged table
answers 204), a second set drives the bare Django view of benchmarks/urls.py at the same pace (the
yardstick), and Python threads submit moves to other tables and time them.
Targets (issue 5): polls p95 < 100 ms with no errors; moves p95 < 150 ms.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.quick import parse_args  # noqa: E402
from benchmarks.serve import gunicorn, use_bench_env  # noqa: E402
from benchmarks.stats import pct  # noqa: E402

CSRF = "benchcsrftokenbenchcsrftoken0123"  # a fixed CSRF secret, sent as cookie and header


def seed(n_tablets: int, n_move_tables: int) -> tuple[list[tuple[str, str]], list[dict]]:
    """Tables of six students for the polls; tables of two for the moves. Session per tablet."""
    import django

    django.setup()
    from django.conf import settings
    from django.utils.module_loading import import_string

    from classrooms.models import Classroom, School, Student, User
    from classrooms.services import class_code_new
    from games import services
    from games.models import Game
    from games.polling import poll_token

    store = import_string(settings.SESSION_ENGINE + ".SessionStore")
    Game.objects.all().delete()
    Student.objects.all().delete()
    User.objects.filter(role="student").delete()
    Classroom.objects.all().delete()
    school, _ = School.objects.get_or_create(slug="bench", defaults={"name": "Bench school"})
    classroom = Classroom.objects.create(
        school=school, name="Bench", school_year="2026-2027", code=class_code_new()
    )

    def kid(i: int) -> Student:
        user = User.objects.create(username=f"bench-kid-{i}", role="student", school=school)
        return Student.objects.create(
            user=user,
            classroom=classroom,
            name=f"Kid {i}",
            picture_code=f"{i % 16}-{(i // 16) % 16}-{i}",
        )

    def session_for(student: Student, game: Game, position: int) -> str:
        s = store()
        s["_auth_user_id"] = str(student.user.pk)
        s["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
        s["_auth_user_hash"] = student.user.get_session_auth_hash()
        s["kv_student"] = {"idle": 10, "classroom": classroom.pk}
        s["kv_seen"] = time.time() + 3600  # never idle during the run
        s["kv_seats"] = {str(game.pk): position}
        s.save()
        return f"sessionid={s.session_key}; csrftoken={CSRF}"

    settings_ = {"turn_time": 0, "challenge_window": 600}  # no clocks: moves come from the movers

    def game_started(kids: list[Student]) -> Game:
        game = services.game_create(
            school=school,
            classroom=classroom,
            settings=settings_,
            players=[{"student": s} for s in kids],
        )
        services.game_start(game=game)
        return game

    tablets: list[tuple[str, str]] = []
    k = 0
    for _ in range(n_tablets // 6):
        kids = [kid(k + j) for j in range(6)]
        k += 6
        game = game_started(kids)
        for position, student in enumerate(kids):
            token = quote(poll_token(game, position, student.user.pk))
            tablets.append(
                (
                    f"/play/{game.pk}/?v={game.version}&s=running&t={token}",
                    session_for(student, game, position),
                )
            )
    movers: list[dict] = []
    for _ in range(n_move_tables):
        kids = [kid(k), kid(k + 1)]
        k += 2
        game = game_started(kids)
        movers.append(
            {"game": game.pk, "cookies": [session_for(s, game, p) for p, s in enumerate(kids)]}
        )
    return tablets, movers


def run_tablets(
    port: int,
    targets: list[tuple[str, str]],
    *,
    seconds: float,
    interval: float,
    poll_headers: bool = True,
) -> subprocess.Popen:
    """Start the simulated tablets in a process of their own (they must not share our GIL)."""
    listing = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump(targets, listing)
    listing.close()
    cmd = [
        sys.executable,
        str(ROOT / "benchmarks" / "tablets.py"),
        listing.name,
        "--port",
        str(port),
        "--seconds",
        str(seconds),
        "--interval",
        str(interval),
    ]
    if poll_headers:
        cmd += ["--header", "HX-Request: true", "--header", "X-Kavet-Poll: 1"]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def tablets_result(proc: subprocess.Popen) -> dict:
    out, _ = proc.communicate(timeout=600)
    for line in out.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"the tablets gave no result:\n{out}")


def mover(
    port: int, table: dict, until: float, pace: float, latencies: list, failures: list
) -> None:
    """Plays one two-player table: "nothing to do", then the other presses OK; and again."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    version, active = 0, 0
    while time.monotonic() < until:
        kind, seat = ("nothing", active) if version % 2 == 0 else ("ok", 1 - active)
        body = f"seen_version={version}&type={kind}"
        headers = {
            "Cookie": table["cookies"][seat],
            "X-CSRFToken": CSRF,
            "HX-Request": "true",
            "Content-Type": "application/x-www-form-urlencoded",
        }
        started = time.perf_counter()
        try:
            conn.request("POST", f"/play/{table['game']}/move/", body, headers)
            response = conn.getresponse()
            html = response.read().decode()
        except (OSError, http.client.HTTPException) as exc:
            failures.append(repr(exc))
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            continue
        latencies.append((time.perf_counter() - started) * 1000)
        if response.status != 200 or 'data-applied="1"' not in html:
            failures.append(f"{response.status} move {kind} v{version} not applied")
            return
        if 'class="board phase-over' in html or "is-over" in html:
            return
        version += 1
        if kind == "ok":
            active = 1 - active
        time.sleep(pace)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tablets", type=int, default=600)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument(
        "--interval", type=float, default=2.0, help="seconds between a tablet's polls"
    )
    parser.add_argument("--move-tables", type=int, default=8)
    parser.add_argument(
        "--move-pace", type=float, default=0.5, help="seconds between a table's moves"
    )
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--port", type=int, default=8179)
    args = parse_args(
        parser, quick={"tablets": 60, "seconds": 8, "move_tables": 2, "workers": 2, "threads": 2}
    )

    env = use_bench_env("postgres://postgres@127.0.0.1:5432/kavet_bench_table")
    t0 = time.monotonic()
    tablets, movers = seed(args.tablets, args.move_tables)
    print(
        f"seeded {len(tablets)} tablets at {len(tablets) // 6} tables, {len(movers)} move tables "
        f"in {time.monotonic() - t0:.1f} s"
    )

    with gunicorn(args.port, workers=args.workers, threads=args.threads, env=env):
        # Warm every worker (imports, connections) before measuring.
        tablets_result(run_tablets(args.port, tablets[:50], seconds=3, interval=0.05))
        polls = run_tablets(args.port, tablets, seconds=args.seconds, interval=args.interval)
        bare_targets = [("/bench/bare", cookie) for _, cookie in tablets[:20]]
        bare = run_tablets(
            args.port,
            bare_targets,
            seconds=args.seconds,
            interval=args.interval,
            poll_headers=False,
        )
        time.sleep(2.0)  # let the poll load settle before the moves start
        latencies: list[float] = []
        failures: list[str] = []
        until = time.monotonic() + args.seconds - 4
        workers = [
            threading.Thread(
                target=mover, args=(args.port, t, until, args.move_pace, latencies, failures)
            )
            for t in movers
        ]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        p, b = tablets_result(polls), tablets_result(bare)

    rate = p["requests"] / p["seconds"]
    print(
        f"\ngunicorn {args.workers} workers x {args.threads} threads, PostgreSQL, "
        f"sessions {os.environ.get('REDIS_URL') and 'cached_db on Redis' or 'db'}; {os.cpu_count()} cores"
    )
    print(
        f"{'measure':<34}{'requests':>9}{'rate/s':>8}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}{'errors':>8}"
    )
    print(
        f"{'polls (' + str(args.tablets) + ' tablets / ' + str(args.interval) + ' s)':<34}{p['requests']:>9}"
        f"{rate:>8.0f}{p['p50']:>9.1f}{p['p95']:>9.1f}{p['p99']:>9.1f}{p['max']:>9.1f}{p['errors']:>8}"
    )
    print(
        f"{'bare Django view (same run)':<34}{b['requests']:>9}{b['requests'] / b['seconds']:>8.0f}"
        f"{b['p50']:>9.1f}{b['p95']:>9.1f}{b['p99']:>9.1f}{b['max']:>9.1f}{b['errors']:>8}"
    )
    print(
        f"{'moves (under the poll load)':<34}{len(latencies):>9}{len(latencies) / args.seconds:>8.1f}"
        f"{pct(latencies, 50):>9.1f}{pct(latencies, 95):>9.1f}{pct(latencies, 99):>9.1f}"
        f"{max(latencies, default=float('nan')):>9.1f}{len(failures):>8}"
    )
    print(f"\npoll answers by status: {p['statuses']}; errors: {p['error_kinds'] or 'none'}")
    print(f"ratio poll/bare: p50 {p['p50'] / b['p50']:.2f}, p95 {p['p95'] / b['p95']:.2f}")
    unexpected = sum(n for code, n in p["statuses"].items() if code not in ("204", 204))
    ok_polls = p["p95"] < 100 and p["errors"] == 0 and unexpected == 0
    ok_moves = pct(latencies, 95) < 150 and not failures
    print(
        f"targets: polls p95 < 100 ms, no errors: {'met' if ok_polls else 'NOT met'}; "
        f"moves p95 < 150 ms: {'met' if ok_moves else 'NOT met'}"
    )
    if failures:
        print("move failures:", failures[:5])


if __name__ == "__main__":
    main()
