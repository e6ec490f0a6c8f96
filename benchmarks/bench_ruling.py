"""Time from a tap to the ruling panel on the tapping tablet and on the other tablets of the
table (p50, p95), beside a bare round trip in the same run.

A class game table with three student seats is made through games.services (no challenge
window, no time limits, no X or event cards: every "Say it!" / "Nothing to do" is ruled at
once, R4.6, R5.6). Three Playwright pages in Debian's Chromium (headless, never a downloaded
browser) are signed in as the three seats (the session of a real login, as tests/e2e do). Each
tap: on the active player's page the cards and signs of an operation the solver finds are
tapped, then "Say it!" (or "Nothing to do" when there is none). In every page an init script
stamps the tap (a capture listener on the button) and, with a MutationObserver, the moment
#board first shows a `.ruling[data-ruling-key]` at a newer version (templates/games/board/ruling.jinja,
static/js/table.js swapping #board). Clocks: performance.timeOrigin + performance.now(), one
browser on one machine. Yardstick: `fetch('/healthz')` (database, cache and broker checks) and
`fetch('/bench/bare')` (a bare Django view) from the same pages, interleaved with the taps.

Servers: `gunicorn -c gunicorn.conf.py kavet_site.asgi` (uvicorn workers) on PostgreSQL
(kavet_bench_ruling) + Redis (db 15), push over server-sent events; and the embedded default
`manage.py runserver` (SQLite in /tmp, in-process cache, push hub and tasks).

    .venv/bin/python benchmarks/bench_ruling.py                 # 40 taps per server
    .venv/bin/python benchmarks/bench_ruling.py --quick         # 6 taps
    .venv/bin/python benchmarks/bench_ruling.py --server asgi   # or runserver

Without Chromium the script says so and exits 0; the ASGI run is skipped without PostgreSQL or
Redis (the runserver run needs neither).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.local import answers, ensure_database, with_path  # noqa: E402
from benchmarks.quick import parse_args  # noqa: E402
from benchmarks.serve import gunicorn_cmd  # noqa: E402
from benchmarks.stats import pct  # noqa: E402

CHROMIUM = os.environ.get("KAVET_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    # Three tablets side by side: none of them is a throttled background page.
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
]
SQLITE = "/tmp/kavet_bench_ruling.sqlite3"
GAME_SETTINGS = {"challenge_window": 0, "turn_time": 0, "x_cards": 0, "events": False, "copies": 2}
RESULT = "RESULT "  # the child's one machine-readable line

# In every page: stamp the tap on "Say it!" / "Nothing to do", and each new (version, ruling)
# that #board shows.
PROBE = """
(() => {
  const now = () => performance.timeOrigin + performance.now();
  window.__kv = {records: [], tapAt: null};
  let last = null;
  const look = () => {
    const b = document.getElementById("board");
    if (!b) return;
    const r = b.querySelector(".ruling[data-ruling-key]");
    const sig = b.dataset.version + "/" + (r ? r.dataset.rulingKey : "");
    if (sig === last) return;
    last = sig;
    window.__kv.records.push({v: Number(b.dataset.version), key: r ? r.dataset.rulingKey : null,
                              t: now()});
  };
  document.addEventListener("click", (ev) => {
    const el = ev.target.closest && ev.target.closest(".act-announce, .act-nothing");
    if (el) window.__kv.tapAt = now();
  }, true);
  new MutationObserver(look).observe(document, {childList: true, subtree: true, attributes: true,
                                                attributeFilter: ["data-version", "data-ruling-key"]});
  document.addEventListener("DOMContentLoaded", look);
})();
"""
ROUND_TRIP = """async (url) => {
  const t = performance.now();
  const r = await fetch(url, {cache: "no-store"});
  await r.text();
  return [performance.now() - t, r.status];
}"""


def server_env(kind: str, args) -> dict[str, str] | str:
    """The environment of the server and of the script's own Django for `kind`; or why not."""
    env = dict(
        os.environ,
        KAVET_URLCONF="benchmarks.urls",
        DEBUG="false",
        LOG_LEVEL="ERROR",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_SETTINGS_MODULE="kavet_site.settings",
        DJANGO_ALLOW_ASYNC_UNSAFE="true",
    )  # Playwright's sync API runs a loop here
    if kind == "asgi":
        database = os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/postgres"
        redis = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
        if not database.startswith("postgres") or not answers(database, 5432):
            return f"no PostgreSQL (DATABASE_URL={database})"
        if not answers(redis, 6379):
            return f"no Redis at {urlparse(redis).netloc} (set REDIS_URL)"
        env.update(
            DATABASE_URL=with_path(database, "/" + args.database),
            REDIS_URL=with_path(redis, f"/{args.redis_db}"),
            CELERY_QUEUE="bench-ruling",
            WEB_CONCURRENCY=str(args.web_workers),
        )
        env.pop("SQLITE_PATH", None)
    else:
        for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"):
            env.pop(name, None)
        env["SQLITE_PATH"] = SQLITE
    return env


def start_server(kind: str, port: int, env: dict[str, str]) -> subprocess.Popen:
    if kind == "asgi":
        cmd = gunicorn_cmd("kavet_site.asgi", port)
    else:
        cmd = [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"]
    server_log = open(f"/tmp/bench_ruling-{kind}.log", "wb")  # noqa: SIM115 - lives with the server
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=server_log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the {kind} server exited; see /tmp/bench_ruling-{kind}.log")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/bench/bare", timeout=1).read()
            return proc
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise RuntimeError(f"the {kind} server did not answer within 60 s")


def stop_server(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


# --- the table, through the services ---------------------------------------------------------


def seed_table():
    """A school, a class of three and a teacher; returns (classroom, students, teacher)."""
    import uuid

    from classrooms.models import Classroom, School, User
    from classrooms.services import student_create

    tag = uuid.uuid4().hex[:8]
    school = School.objects.create(
        name=f"Ruling bench {tag}", slug=f"ruling-{tag}", time_zone="Europe/Paris"
    )
    classroom = Classroom.objects.create(
        school=school, name="CE2", school_year="2026-2027", code=f"R{tag[:6].upper()}"
    )
    teacher = User.objects.create(username=f"t-{tag}", role=User.Role.TEACHER, school=school)
    classroom.teachers.add(teacher)
    students = [
        student_create(classroom=classroom, name=name, number_range=20, tier=1)
        for name in ("Anna", "Bo", "Chloé")
    ]
    return classroom, students, teacher


def new_game(classroom, students, teacher, seed: int):
    from games import services

    game = services.game_create(
        school=classroom.school,
        classroom=classroom,
        kind="class",
        label="T1",
        created_by=teacher,
        seed=seed,
        players=[{"student": s} for s in students],
        settings=dict(GAME_SETTINGS),
    )
    return services.game_start(game=game, by=teacher)


def session_cookie(student) -> str:
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(student.user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def next_taps(game) -> tuple[int, int, list[str], str]:
    """(version, active seat, the buttons to tap in order, what is said) for the next move."""
    from games import engine
    from games.engine.game import player_operation

    game.refresh_from_db()
    state = engine.GameState.from_dict(game.state)
    seat = state.active
    op = player_operation(state, seat) if state.phase == "turn" else None
    if op is None:
        return game.version, seat, [".act-nothing"], "nothing to do"
    available = state.table + state.held[seat]
    ids = [available[p] for p in op.positions]
    values = {i: state.value_of(i) for i in available}
    taps, used = [], set()
    for token in re.findall(r"\d+|[-+*/^()=]", op.text):
        if token.isdigit():
            ordered = [i for i in ids if i not in used] + [i for i in available if i not in used]
            card = next((i for i in ordered if values[i] == int(token)), None)
            if card is None:
                return game.version, seat, [".act-nothing"], "nothing to do (unmapped)"
            used.add(card)
            taps.append(f'#board .card[data-card="{card}"]')
        else:
            taps.append(f'#board .key[data-op="{token}"]')
    return game.version, seat, [*taps, ".act-announce"], op.text


# --- one server ------------------------------------------------------------------------------


def run_child(kind: str, args) -> None:
    env = server_env(kind, args)
    if isinstance(env, str):
        print(f"{kind}: not run: {env}")
        print(RESULT + json.dumps({"kind": kind, "skipped": env}))
        return
    os.environ.clear()
    os.environ.update(env)
    if kind == "asgi":
        ensure_database(env["DATABASE_URL"])
    import django

    django.setup()
    from django.core.management import call_command
    from playwright.sync_api import sync_playwright

    from games.models import Game

    call_command("migrate", verbosity=0, interactive=False)
    classroom, students, teacher = seed_table()
    cookies = [session_cookie(s) for s in students]
    from django.conf import settings

    server = start_server(kind, args.port, env)
    base = f"http://127.0.0.1:{args.port}"
    tapping, others, healthz, bare, said = [], [], [], [], {"announce": 0, "nothing": 0}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            pages = []
            for cookie in cookies:
                context = browser.new_context(viewport={"width": 1280, "height": 800})
                context.set_default_timeout(15_000)
                context.add_cookies(
                    [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base}]
                )
                context.add_init_script(PROBE)
                pages.append(context.new_page())

            game, games, endings = None, 0, 0
            tap = 0
            deadline = time.monotonic() + args.max_seconds
            while tap < args.taps and time.monotonic() < deadline:
                if game is None or Game.objects.get(pk=game.pk).status != Game.Status.RUNNING:
                    games += 1
                    game = new_game(classroom, students, teacher, seed=1000 + games)
                    for page in pages:
                        page.goto(f"{base}/play/{game.pk}/")
                version, seat, taps, text = next_taps(game)
                # Every tablet shows the table as it is before the tap.
                for page in pages:
                    page.wait_for_function(
                        "v => document.getElementById('board') && "
                        "Number(document.getElementById('board').dataset.version) === v",
                        arg=version,
                    )
                time.sleep(args.pause)
                active = pages[seat]
                for selector in taps:
                    active.click(selector)
                seen, ended = [], False
                for position, page in enumerate(pages):
                    try:
                        page.wait_for_function(
                            "v => window.__kv.records.some(r => r.v > v)", arg=version
                        )
                        if Game.objects.get(pk=game.pk).status != Game.Status.RUNNING:
                            ended = True  # the last move: the result shows, not a ruling panel
                            break
                        page.wait_for_function(
                            "v => window.__kv.records.some(r => r.v > v && r.key)", arg=version
                        )
                    except Exception:
                        board = page.evaluate("document.getElementById('board')?.innerText")
                        raise RuntimeError(
                            f"tap {tap + 1} ({text!r}, seat {seat}): no ruling on "
                            f"tablet {position}; its board: {board!r:.800}"
                        ) from None
                    seen.append(
                        page.evaluate(
                            "v => [window.__kv.tapAt, window.__kv.records.find(r => r.v > v && r.key).t]",
                            version,
                        )
                    )
                if ended:
                    endings += 1
                    continue
                tap_at = seen[seat][0]
                for position, (_tap, shown) in enumerate(seen):
                    (tapping if position == seat else others).append(shown - tap_at)
                said["nothing" if taps == [".act-nothing"] else "announce"] += 1
                # The yardstick, from a tablet of the same run: both kinds, each tap.
                probe = pages[tap % len(pages)]
                for url, into in (("/healthz", healthz), ("/bench/bare", bare)):
                    ms, status = probe.evaluate(ROUND_TRIP, url)
                    if status != 200:
                        raise RuntimeError(f"{url} answered {status}")
                    into.append(ms)
                tap += 1
                if args.verbose:
                    print(
                        f"  tap {tap}: seat {seat} {text!r}: "
                        + ", ".join(f"{s - tap_at:.0f}" for _t, s in seen)
                        + " ms",
                        flush=True,
                    )
            browser.close()
    finally:
        stop_server(server)
    result = {
        "kind": kind,
        "taps": len(tapping),
        "games": games,
        "endings": endings,
        "said": said,
        "tapping": tapping,
        "others": others,
        "healthz": healthz,
        "bare": bare,
    }
    print(RESULT + json.dumps(result), flush=True)


# --- the parent: one child per server, one table ---------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--taps", type=int, default=40)
    parser.add_argument("--server", choices=["asgi", "runserver", "both"], default="both")
    parser.add_argument("--port", type=int, default=8791)
    parser.add_argument("--web-workers", type=int, default=2, help="uvicorn workers (ASGI)")
    parser.add_argument("--pause", type=float, default=0.3, help="seconds between taps")
    parser.add_argument("--max-seconds", type=float, default=600, help="per server")
    parser.add_argument("--database", default="kavet_bench_ruling")
    parser.add_argument("--redis-db", type=int, default=15)
    parser.add_argument("--verbose", action="store_true", help="print every tap")
    parser.add_argument("--child", choices=["asgi", "runserver"], help=argparse.SUPPRESS)
    args = parse_args(parser, quick={"taps": 6})
    if args.child:
        run_child(args.child, args)
        return
    if not (os.path.exists(CHROMIUM)):
        print(f"bench_ruling: not run, it needs Chromium at {CHROMIUM} (apt-get install chromium)")
        return
    print(f"load before: {os.getloadavg()[0]:.2f} (1 min, {os.cpu_count()} cores)", flush=True)
    results = []
    for kind in ["asgi", "runserver"] if args.server == "both" else [args.server]:
        cmd = [
            sys.executable,
            __file__,
            "--child",
            kind,
            "--taps",
            str(args.taps),
            "--port",
            str(args.port),
            "--web-workers",
            str(args.web_workers),
            "--pause",
            str(args.pause),
            "--max-seconds",
            str(args.max_seconds),
            "--database",
            args.database,
            "--redis-db",
            str(args.redis_db),
        ]
        if args.verbose:
            cmd.append("--verbose")
        out = subprocess.run(
            cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True, timeout=args.max_seconds + 180
        )
        for line in out.stdout.splitlines():
            if line.startswith(RESULT):
                results.append(json.loads(line[len(RESULT) :]))
            else:
                print(line)
        if out.returncode:
            sys.exit(f"bench_ruling: the {kind} run failed (exit {out.returncode})")

    print("\ntap -> ruling panel shown (ms; p50 / p95), yardstick: fetch from the same pages")
    print(
        f"  {'server':<10} {'taps':>4} {'tapping':>13} {'other tablets':>15} {'/healthz':>13} "
        f"{'bare view':>13} {'tap/healthz':>11} {'other/healthz':>13}"
    )
    for r in results:
        if r.get("skipped"):
            print(f"  {r['kind']:<10} not run: {r['skipped']}")
            continue
        t50, o50, h50 = pct(r["tapping"], 50), pct(r["others"], 50), pct(r["healthz"], 50)

        def pair(values):
            return f"{pct(values, 50):5.0f} / {pct(values, 95):5.0f}"

        print(
            f"  {r['kind']:<10} {r['taps']:>4} {pair(r['tapping']):>13} {pair(r['others']):>15} "
            f"{pair(r['healthz']):>13} {pair(r['bare']):>13} {t50 / h50:>10.1f}x {o50 / h50:>12.1f}x"
        )
        print(
            f"  {'':<10} ({r['said']['announce']} operations, {r['said']['nothing']} 'nothing to do', "
            f"{r['games']} game(s), {r['endings']} game-ending tap(s) not counted; "
            f"other tablets: {len(r['others'])} arrivals)"
        )
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
