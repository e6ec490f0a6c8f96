"""Two tablets at one table of the demo, as a new user tries them: how soon the other tablet
shows a move (issue 27: "two tablets in the demo ... the other tablet sees a move at p95 190 ms").

    .venv/bin/python benchmarks/bench_demo_tablets.py [--moves 30] [--rounds 2] [--also 3bd170e]
    .venv/bin/python benchmarks/bench_demo_tablets.py --quick

What `make demo` starts, for each code (this checkout's, and --also's, taken out of git with
`git archive` into a temporary directory and run with this venv): a fresh SQLite database,
`manage.py migrate`, `manage.py demo_school`, `manage.py runserver` (the embedded defaults: no
Redis, tasks in-process, the push streams on runserver's threads) on a spare port. Each round,
two students of the demo's first class get a table of two of their own (games.services: no
turn clock, a 30 s challenge window), each signed in in a Chromium context of its own (a
session as the tablet sign-in leaves it), the table open at 1024×768, its push stream up. Then,
turn by turn, the tablet whose button is up taps it ("nothing to do", or OK in the other's
challenge window), and the pages themselves record (one browser, one clock): the tap, the new
board on the mover's tablet (its move's answer) and on the other tablet (pushed). Beside it,
the yardstick in the same moments: the other tablet's own fetch of a small static file (the
favicon, from the same server), timed in the page. The codes take turns, round by round (the order reversed every other round).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.quick import parse_args  # noqa: E402
from benchmarks.serve import free_port, serving  # noqa: E402

# Run in a code's own directory, with its settings: a table of two for two demo students, and
# their tablets' sessions.
SETUP = r"""
import json, time
import django
django.setup()
from django.test import Client
from classrooms.models import Classroom, Student
from games import services
classroom = Classroom.objects.order_by("pk").first()
kids = list(Student.objects.filter(classroom=classroom).order_by("name")[:2])
game = services.game_create(
    school=classroom.school, classroom=classroom, label="Two tablets",
    players=[{"student": s} for s in kids], settings={"challenge_window": 30, "turn_time": 0},
)
services.game_start(game=game)
cookies = []
for kid in kids:
    client = Client()
    client.force_login(kid.user)
    session = client.session
    session["kv_student"] = {"idle": 10, "classroom": classroom.pk}
    session["kv_seen"] = time.time() + 3600
    session.save()
    cookies.append(session.session_key)
print("SETUP " + json.dumps({"game": game.pk, "cookies": cookies}))
"""

# In each page: when each version's board was swapped in (before htmx's settling, the same for
# an answer, a fetch and a pushed board), and whether the stream is up.
WATCH = """
window.__kvBoards = {};
window.__kvUp = false;
document.addEventListener("kavet:stream-up", function () { window.__kvUp = true; });
document.addEventListener("kavet:stream-down", function () { window.__kvUp = false; });
document.addEventListener("htmx:afterSwap", function () {
  var b = document.getElementById("board");
  if (b && !(b.dataset.version in window.__kvBoards)) window.__kvBoards[b.dataset.version] = Date.now();
});
"""

TAP = """() => {
  var b = document.getElementById("board");
  var button = b && (b.querySelector("button.act-nothing") || b.querySelector("button.act-ok"));
  if (!button || button.disabled) return null;
  var at = Date.now();
  button.click();
  return [Number(b.dataset.version), at];
}"""

YARDSTICK = """async () => {
  var t = performance.now();
  await fetch("/static/img/favicon.svg", { cache: "no-store" });
  return performance.now() - t;
}"""


def code_dir(stack: ExitStack, rev: str | None) -> Path:
    if rev is None:
        return ROOT
    out = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=f"kavet-{rev}-")))
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    return out


def env_for(where: Path, database: Path) -> dict:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "PYTHONPATH")
    }
    env.update(
        SQLITE_PATH=str(database),
        DEBUG="1",
        PYTHONPATH=str(where),
        DJANGO_SETTINGS_MODULE="kavet_site.settings",
    )
    return env


@contextmanager
def demo_server(where: Path, name: str):
    """`make demo`'s server for the code in `where`: (base URL, env)."""
    with tempfile.TemporaryDirectory(prefix="kavet-demo-") as tmp:
        env = env_for(where, Path(tmp) / "demo.sqlite3")
        manage = [sys.executable, str(where / "manage.py")]
        for step in (["migrate", "--noinput", "-v", "0"], ["demo_school"]):
            subprocess.run(manage + step, cwd=where, env=env, check=True, capture_output=True)
        port = free_port()
        with serving(
            manage + ["runserver", "--noreload", f"127.0.0.1:{port}"],
            env=env,
            port=port,
            start_timeout=60,
            stop_timeout=20,
            what=f"the demo server of {name}",
            cwd=where,
            ready="/",
        ):
            yield f"http://127.0.0.1:{port}", env, where


def new_table(where: Path, env: dict) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", SETUP],
        cwd=where,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(next(line for line in out.splitlines() if line.startswith("SETUP "))[6:])


def ev(page, script: str):
    """page.evaluate, once more if the page was just replaced (its first load settling)."""
    from playwright.sync_api import Error

    try:
        return page.evaluate(script)
    except Error as exc:
        if "context was destroyed" not in str(exc):
            raise
        page.wait_for_selector("#board", timeout=15_000)
        return page.evaluate(script)


def play(browser, url: str, table: dict, moves: int) -> dict:
    pages = []
    for cookie in table["cookies"]:
        context = browser.new_context(viewport={"width": 1024, "height": 768})
        context.add_init_script(WATCH)
        context.add_cookies([{"name": "sessionid", "value": cookie, "url": url}])
        page = context.new_page()
        page.goto(f"{url}/play/{table['game']}/")
        page.wait_for_selector("#board", timeout=15_000)
        if f"/play/{table['game']}/" not in page.url:
            raise SystemExit(f"the tablet was sent to {page.url}, not to its table")
        pages.append(page)
    deadline = time.monotonic() + 15
    while not all(ev(p, "window.__kvUp === true") for p in pages):
        if time.monotonic() > deadline:
            raise SystemExit("the push stream never came up")
        time.sleep(0.1)
    answers, others, yardstick, lost = [], [], [], 0
    for _ in range(moves):
        tapped = None
        until = time.monotonic() + 5
        while tapped is None and time.monotonic() < until:
            for i, page in enumerate(pages):
                found = ev(page, TAP)
                if found is not None:
                    tapped = (i, *found)
                    break
            else:
                time.sleep(0.05)
        if tapped is None:
            break  # the game is over (or nobody may tap: a ruling to read)
        mover, version, at = tapped
        other = pages[1 - mover]
        yardstick.append(ev(other, YARDSTICK))
        wanted = str(version + 1)
        seen = {}
        until = time.monotonic() + 10
        while len(seen) < 2 and time.monotonic() < until:
            for i, page in enumerate(pages):
                if i not in seen:
                    t = ev(page, f"window.__kvBoards[{json.dumps(wanted)}]")
                    if t is not None:
                        seen[i] = t
            time.sleep(0.01)
        if len(seen) < 2:
            lost += 1  # not on both tablets within 10 s (a page loaded anew: its record is gone)
            continue
        answers.append(seen[mover] - at)
        others.append(seen[1 - mover] - at)
    for page in pages:
        page.context.close()
    return {"answers": answers, "others": others, "yardstick": yardstick, "lost": lost}


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def three(values: list[float]) -> str:
    return f"{pct(values, 50):.0f} / {pct(values, 95):.0f} / {pct(values, 99):.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=30, help="moves per round and code")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--also", default="", help="another commit beside this checkout")
    args = parse_args(parser, quick={"moves": 4, "rounds": 1})
    from playwright.sync_api import sync_playwright

    codes = [("this checkout", None)] + ([(args.also, args.also)] if args.also else [])
    results = {name: {"answers": [], "others": [], "yardstick": [], "lost": 0} for name, _ in codes}
    with ExitStack() as stack, sync_playwright() as pw:
        servers = {}
        for name, rev in codes:
            servers[name] = stack.enter_context(demo_server(code_dir(stack, rev), name))
        browser = pw.chromium.launch(
            executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium")
        )
        for r in range(args.rounds):
            for name, _rev in codes if r % 2 == 0 else list(reversed(codes)):
                url, env, where = servers[name]
                got = play(browser, url, new_table(where, env), args.moves)
                for key in ("answers", "others", "yardstick"):
                    results[name][key] += got[key]
                results[name]["lost"] += got["lost"]
        browser.close()
    print(
        f"Two tablets at a demo table (runserver, SQLite, no Redis), {args.rounds} rounds of up "
        f"to {args.moves} moves per code, load average {os.getloadavg()[0]:.1f}"
    )
    print(
        "\n| code | moves | tap → the mover's new board p50 / p95 / p99 (ms) | tap → the other "
        "tablet's new board p50 / p95 / p99 (ms) | yardstick: the other tablet's static file p50 / "
        "p95 (ms) | other tablet p95 ÷ yardstick p95 | boards lost |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, _rev in codes:
        res = results[name]
        base = pct(res["yardstick"], 95)
        print(
            f"| {name} | {len(res['others'])} | {three(res['answers'])} | {three(res['others'])} | "
            f"{pct(res['yardstick'], 50):.0f} / {base:.0f} | "
            f"{pct(res['others'], 95) / base if base else float('nan'):.1f} | {res['lost']} |"
        )
    if len(codes) == 2:
        a, b = (results[name]["others"] for name, _ in codes)
        if a and b:
            print(
                f"\nthe other tablet's p50 / p95, this checkout ÷ {codes[1][0]}: "
                f"{statistics.median(a) / statistics.median(b):.2f} / "
                f"{pct(a, 95) / pct(b, 95):.2f}"
            )


if __name__ == "__main__":
    main()
