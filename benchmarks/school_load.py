"""A school day's load on one box (issue 38): tablets that play like a school, and the sweep.

    .venv/bin/python benchmarks/school_load.py --sweep            # 10,000 tablets, 6 rates
    .venv/bin/python benchmarks/school_load.py --quick            # 400 tablets, 3 short windows
    make load                                                     # the sweep

The school is seeded once through the ORM (benchmarks/loadgen/seed.py; --seed-file keeps it for
the next run); then everything goes over HTTP to the production ASGI command (gunicorn +
uvicorn workers), with PostgreSQL, Redis and a Celery worker (the computer players) on the same
box: tablets sign in through the class code, name and pictures pages (the first --signin of
them; the others bring a session made as the sign-in makes it), open their table and hold one
stream each; the teachers' live views and the class boards of a share of the class games are
open. Each point of the sweep is a fresh window: the teachers resume the class games, every
table plays at a Poisson rate (right, wrong and missed operations, "nothing to do", challenges,
OK presses, event cards, C'HWEC'H; computer players at some tables; a few streams dropping and
reconnecting with Last-Event-ID), the bare view is polled beside; then, once the tables stand
still, every move and every tablet's board is checked against the database.

Figures per window: move answer and move -> new board on each other tablet (p50/p95/p99), the
yardstick, CPU per move per process group, PostgreSQL's work and Redis's bytes per move
(benchmarks/loadgen/measure.py). Targets: move answer p95 < 100 ms, board p95 < 250 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.quick import parse_args  # noqa: E402
from benchmarks.serve import raise_fd_limit  # noqa: E402
from benchmarks.stats import pct  # noqa: E402

MOVE_TARGET, BOARD_TARGET = 100.0, 250.0


# --- the services ---------------------------------------------------------------------------


@contextlib.contextmanager
def own_redis():
    """A private redis-server on a free port (no persistence): its CPU, bytes and commands are
    this run's alone, not those of whatever else uses the machine's Redis."""
    from benchmarks.serve import free_port

    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        import redis

        for _ in range(100):
            try:
                redis.Redis(port=port).ping()
                break
            except redis.RedisError:
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@contextlib.contextmanager
def web_server(port: int, workers: int, env: dict):
    """The production ASGI command, behind one proxy hop (KAVET_TRUSTED_PROXIES=1): each school's
    tablets come from their own address (X-Forwarded-For), as behind a school's NAT."""
    from benchmarks.serve import gunicorn_cmd, serving

    cmd = gunicorn_cmd("kavet_site.asgi", port, "--workers", str(workers), "--backlog", "4096")
    with serving(
        cmd,
        env={**env, "KAVET_TRUSTED_PROXIES": "1"},
        port=port,
        start_timeout=60,
        stop_timeout=30,
        what="the ASGI server",
        poll=0.3,
    ) as proc:
        yield proc


@contextlib.contextmanager
def celery_worker(env: dict):
    """The computer players' worker (games.tasks), on the run's own queue."""
    cmd = [sys.executable, "-m", "celery", "-A", "kavet_site", "worker", "--pool=solo"]
    cmd += ["--concurrency=1", "-Q", env["CELERY_QUEUE"], "--without-gossip"]
    cmd += ["--without-mingle", "--without-heartbeat", "-l", "error"]
    proc = subprocess.Popen(
        cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        time.sleep(2.0)
        if proc.poll() is not None:
            raise RuntimeError(f"the Celery worker ended as it started ({proc.returncode})")
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


# --- the database's side of the checks --------------------------------------------------------


def versions(games: list[int]) -> dict[int, tuple[int, str]]:
    from django.db import connections

    from games.models import Game

    try:
        return {
            pk: (v, s)
            for pk, v, s in Game.objects.filter(pk__in=games).values_list("pk", "version", "status")
        }
    finally:
        connections.close_all()


def moves_since(before: dict[int, tuple[int, str]]) -> list[tuple[int, int, int | None]]:
    """(game, number, seat) of every move applied after the versions `before`."""
    from django.db import connections
    from django.db.models import Q

    from games.models import Move

    try:
        rows: list = []
        games = list(before)
        for i in range(0, len(games), 500):
            q = Q()
            for g in games[i : i + 500]:
                q |= Q(game_id=g, number__gt=before[g][0])
            rows += list(Move.objects.filter(q).values_list("game_id", "number", "seat"))
        return rows
    finally:
        connections.close_all()


# --- one window -------------------------------------------------------------------------------


async def window(school, seeded, meter, *, rate: float, seconds: float, drops: float) -> dict:
    from benchmarks.loadgen.school import analyse

    games = [t.game for t in school.tables]
    await school.quiet()
    school.reset_window()
    school.counts.clear()
    before = await asyncio.to_thread(versions, games)
    snap0 = await asyncio.to_thread(meter.snapshot) if meter else None
    bare: list[float] = []
    until = time.monotonic() + seconds
    yard = asyncio.ensure_future(school.yardstick(until, bare))
    length = await school.play(rate=rate, seconds=seconds, drops_per_s=drops)
    await yard
    await school.quiet(10.0)  # the last answers and boards
    school.recording = False
    snap1 = await asyncio.to_thread(meter.snapshot) if meter else None
    counts = dict(school.counts.most_common(14))
    # The computer players finish what they were due to do (2-3 s), their boards are fetched;
    # a table that still moved between two reads a second apart is left out of the check.
    await asyncio.sleep(3.5)
    await school.quiet()
    after = await asyncio.to_thread(versions, games)
    await asyncio.sleep(1.0)
    await school.quiet()
    again = await asyncio.to_thread(versions, games)
    rows = await asyncio.to_thread(moves_since, before)
    result = analyse(school)
    # Every move applied once: each applied answer is a Move row of that seat at that number,
    # and every Move row of a child's seat is an answer the tablets had applied.
    bots = {t.game: set(t.bots) for t in school.tables}
    human_rows = {(g, n, s) for g, n, s in rows if s is not None and s not in bots[g]}
    # An answer may show a computer's move applied just after the child's (a move applies
    # what fell due before it): the child's row is one of the numbers from `seen` to the answer.
    answered = set()
    for m in school.moves:
        if m["applied"]:
            answered.add(
                next(
                    (
                        (m["game"], n, m["seat"])
                        for n in range(m["seen"] + 1, m["version"] + 1)
                        if (m["game"], n, m["seat"]) in human_rows
                    ),
                    (m["game"], m["version"], m["seat"]),
                )
            )
    # Every tablet's board at the game's last version (of the tables that stood still).
    still = {g for g in games if after[g] == again[g]}
    behind = [
        (tb.table.game, tb.position, tb.shown, again[tb.table.game][0])
        for tb in school.tablets
        if tb.table.game in still and tb.shown >= 0 and tb.shown != again[tb.table.game][0]
    ]
    result.update(
        {
            "rate": rate,
            "seconds": length,
            "bare": bare,
            "rows": len(rows),
            "human_rows": len(human_rows),
            "bot_rows": len(rows) - len(human_rows),
            "unmatched_answers": len(answered - human_rows),
            "unanswered_rows": len(human_rows - answered),
            "behind": behind,
            # (a tablet whose table page failed at the start shows nothing: counted there)
            "checked_tablets": sum(
                1 for tb in school.tablets if tb.table.game in still and tb.shown >= 0
            ),
            "spent": meter.spent(snap0, snap1) if meter else None,
            "errors": dict(school.errors.most_common(6)),
            "counts": counts,
        }
    )
    school.errors.clear()
    return result


def row(r: dict, streams: int) -> str:
    def three(v):
        return f"{pct(v, 50):.0f} / {pct(v, 95):.0f} / {pct(v, 99):.0f}"

    moves = max(1, r["rows"])
    spent = r["spent"]
    cpu = spent["cpu"] if spent else {}
    ms = {k: v * 1000 / moves for k, v in cpu.items()}
    server = sum(v for k, v in ms.items() if k != "generator")
    pg = spent["pg"] if spent else {}
    queries = (
        f"{pg['calls'] / moves:.1f} statements"
        if pg.get("calls") is not None
        else f"{pg.get('xacts', 0) / moves:.1f} xacts, {(pg.get('returned', 0) + pg.get('fetched', 0)) / moves:.0f} rows read, {pg.get('written', 0) / moves:.1f} written"
    )
    rd = spent["redis"] if spent else {"in": 0, "out": 0, "commands": 0}
    ok_move = pct(r["answers"], 95) < MOVE_TARGET
    ok_board = pct(r["boards"], 95) < BOARD_TARGET
    checks = (
        "ok"
        if not r["unmatched_answers"] and not r["unanswered_rows"] and not r["behind"]
        else f"{r['unmatched_answers']} answers without a row, {r['unanswered_rows']} rows "
        f"without an answer, {len(r['behind'])} tablets behind"
    )
    ratio = pct(r["answers"], 95) / pct(r["bare"], 50) if r["bare"] else float("nan")
    return (
        f"| {streams:,} | {r['rate']:.0f} | {r['human_rows'] / r['seconds']:.1f} + "
        f"{r['bot_rows'] / r['seconds']:.1f} | {three(r['answers'])} | {three(r['boards'])} | "
        f"{pct(r['bare'], 50):.1f} / {pct(r['bare'], 95):.1f} | {ratio:.0f}x | "
        f"{server:.1f} (web {ms.get('web', 0):.1f}, pg {ms.get('postgresql', 0):.1f}, redis "
        f"{ms.get('redis', 0):.1f}, worker {ms.get('worker', 0):.1f}) | "
        f"{ms.get('generator', 0):.1f} | {queries} | {rd['in'] / moves / 1024:.1f} / "
        f"{rd['out'] / moves / 1024:.1f} KiB, {rd['commands'] / moves:.0f} cmds | {checks} | "
        f"move {'met' if ok_move else 'MISSED'}, board {'met' if ok_board else 'MISSED'} |"
    )


HEADER = (
    "| streams | target moves/s | applied moves/s (tablets + computers) | move answer "
    "p50 / p95 / p99 (ms) | move -> board on each other tablet p50 / p95 / p99 (ms) | bare view "
    "p50 / p95 (ms) | move p95 / bare p50 | server CPU per move (ms) | generator CPU per move "
    "(ms) | PostgreSQL per move | Redis in / out per move | every move once, every board "
    "last | targets |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


# --- the run ----------------------------------------------------------------------------------


async def run_school(
    seeded: dict,
    *,
    port: int,
    rates: list[float],
    seconds: float,
    signin: int,
    live_share: float,
    board_share: float,
    drops: float,
    pool: int = 256,
    concurrency: int = 48,
    meter=None,
    slow_poll: float = 60.0,  # table.js POLL_SLOW (loadgen.tablet)
    log=print,
) -> dict:
    """The school on a server at `port`: started, then one window per rate. Used by the
    sweep and by the CI smoke test (tests/site/test_school_load.py)."""
    from benchmarks.loadgen.school import School

    try:
        import uvloop  # noqa: F401  (asyncio.run is given its loop by the caller)
    except ImportError:
        pass
    school = School("127.0.0.1", port, seeded, pool_size=pool, seed=38)
    school.slow_poll = slow_poll
    started = await school.start(
        signin=signin,
        concurrency=concurrency,
        live_share=live_share,
        board_share=board_share,
        seeded=seeded,
        log=log,
    )
    streams = len(school.hellos)
    log(
        f"{len(school.tablets)} tablets ({min(signin, len(school.tablets))} signed in through "
        f"the pages), {len(school.watchers)} teachers' views and class boards: {streams} streams "
        f"open in {started['seconds']:.0f} s (sign-in and pages {started['signin_seconds']:.0f} s"
        f"); failures {started['n_failures']} {started['failed']}"
    )
    paused = await asyncio.to_thread(versions, [t.game for t in school.tables])
    if any(status == "paused" for _v, status in paused.values()):
        await school.teachers(seeded, "resume")  # an earlier run's school, paused
        await asyncio.sleep(1.0)
    results = []
    try:
        for rate in rates:
            r = await window(school, seeded, meter, rate=rate, seconds=seconds, drops=drops)
            r["streams"] = len(school.hellos)
            results.append(r)
            log(row(r, streams))
            log(
                f"    kinds {dict(sorted(r['kinds'].items(), key=lambda kv: -kv[1]))}; boards "
                f"{r['board_how']}; errors {r['errors']}; counts {r['counts']}"
            )
    finally:
        await school.stop()
    return {"started": started, "streams": streams, "windows": results, "school": school}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", action="store_true", help="the full sweep (the defaults)")
    parser.add_argument("--tablets", type=int, default=10_000)
    parser.add_argument(
        "--rates",
        type=lambda v: [float(x) for x in v.split(",") if x],
        default=[10, 30, 60, 100, 150, 250],
        help="target tablet moves per second, one fresh window each",
    )
    parser.add_argument("--seconds", type=float, default=30, help="seconds per window")
    parser.add_argument(
        "--signin",
        type=int,
        default=-1,
        help="tablets that sign in through the pages (-1: all of them)",
    )
    parser.add_argument(
        "--live-share", type=float, default=0.3, help="class games with the live view open"
    )
    parser.add_argument(
        "--board-share", type=float, default=0.15, help="class games with the class board open"
    )
    parser.add_argument(
        "--bot-share", type=float, default=0.1, help="tables with a computer player"
    )
    parser.add_argument(
        "--drops", type=float, default=-1, help="streams dropped a second (-1: tablets / 2,000)"
    )
    parser.add_argument("--workers", type=int, default=(os.cpu_count() or 1) * 2)
    parser.add_argument("--port", type=int, default=8381)
    parser.add_argument("--pool", type=int, default=256, help="the client's keep-alive connections")
    parser.add_argument("--seed-file", default="", help="keep the seeded school here, reuse it")
    parser.add_argument(
        "--shared-redis",
        action="store_true",
        help="use REDIS_URL rather than a private redis-server (its figures then include "
        "whatever else uses it)",
    )
    parser.add_argument(
        "--slow-poll",
        type=float,
        default=60.0,
        help="seconds between a streaming tablet's polls (table.js's POLL_SLOW; 0: none, to "
        "see what that safety net costs)",
    )
    parser.add_argument(
        "--max-requests",
        type=int,
        default=0,
        help="gunicorn's worker recycling (GUNICORN_MAX_REQUESTS; 0: none, the default here)",
    )
    parser.add_argument("--seed-only", action="store_true", help="seed (--seed-file), no run")
    parser.add_argument("--json", default="", help="write the windows' figures here")
    args = parse_args(
        parser,
        quick={"tablets": 400, "rates": [10, 30, 60], "seconds": 8},
    )
    raise_fd_limit(args.tablets * 3 + 2000)
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # the servers stopped on the way out
    database = os.environ.setdefault(
        "DATABASE_URL", "postgres://postgres@127.0.0.1:5432/kavet_load"
    )
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/8")
    with contextlib.ExitStack() as stack:
        if not args.shared_redis:
            os.environ["REDIS_URL"] = stack.enter_context(own_redis())
        run(args, database, stack)


def run(args, database: str, stack: contextlib.ExitStack) -> None:
    from benchmarks.bench_push import quiet_collector, settle_database
    from benchmarks.serve import use_bench_env

    os.environ.setdefault("KAVET_PUSH_CHANNEL", "kavet:push:load-" + database.rsplit("/", 1)[-1])
    os.environ["CELERY_QUEUE"] = "load-" + str(os.getpid())
    env = use_bench_env(database)
    env["CELERY_QUEUE"] = os.environ["CELERY_QUEUE"]
    import django

    django.setup()
    from benchmarks.loadgen import seed as seeding

    seeded = None
    if args.seed_file and Path(args.seed_file).exists():
        seeded = json.loads(Path(args.seed_file).read_text())
        live = versions([t["game"] for t in seeded["tables"]])
        n = sum(len(t["seats"]) for t in seeded["tables"])
        if (
            n != args.tablets
            or len(live) != len(seeded["tables"])
            or any(s not in ("running", "paused") for _v, s in live.values())
        ):
            seeded = None
        else:
            print(f"(the school of {args.seed_file}, seeded before)")
    if seeded is None:
        seeded = seeding.seed(tablets=args.tablets, bot_share=args.bot_share)
        print(f"seeded {len(seeded['tables'])} tables in {seeded['seeded_in']:.0f} s")
        if args.seed_file:
            Path(args.seed_file).write_text(json.dumps(seeded))
    if args.seed_only:
        return
    signin = args.tablets if args.signin < 0 else args.signin
    # Sessions for the tablets that skip the sign-in pages, in the order School lists them.
    k, rest = 0, []
    for t in seeded["tables"]:
        k += len(t["seats"])
        if k > signin:  # a seat of it at least skips the pages
            rest.append(t)
    seeding.sessions(seeded, rest)
    settle_database()
    quiet_collector()
    from django.db import connections

    connections.close_all()
    drops = args.tablets / 2000 if args.drops < 0 else args.drops
    # gunicorn.conf.py recycles a worker after ~20,000 requests: with 10,000 tablets polling every
    # 10 s that is every minute or two, each time dropping a quarter of the streams (README).
    web_env = {**env, "CONN_MAX_AGE": "0", "GUNICORN_MAX_REQUESTS": str(args.max_requests)}
    web = stack.enter_context(web_server(args.port, args.workers, web_env))
    worker = stack.enter_context(celery_worker(env))
    from benchmarks.loadgen.measure import Meter

    meter = Meter(
        database_url=database, redis_url=os.environ["REDIS_URL"], web=web.pid, worker=worker.pid
    )
    print(
        f"\nSCHOOL LOAD: gunicorn + {args.workers} uvicorn workers, PostgreSQL, Redis "
        f"({'shared' if args.shared_redis else 'private'}), a Celery worker, the generator: one "
        f"box of {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; windows of "
        f"{args.seconds:.0f} s; {drops:g} streams dropped a second; a streaming tablet polls "
        f"every {args.slow_poll:g} s; PostgreSQL counted "
        f"{'by pg_stat_statements' if meter.statements else 'by pg_stat_database'}"
    )
    import uvloop

    out = uvloop.run(
        run_school(
            seeded,
            port=args.port,
            rates=args.rates,
            seconds=args.seconds,
            signin=signin,
            live_share=args.live_share,
            board_share=args.board_share,
            drops=drops,
            pool=args.pool,
            meter=meter,
            slow_poll=args.slow_poll,
            log=lambda s: print(s, flush=True),
        )
    )
    meter.close()
    print("\n" + HEADER)
    for r in out["windows"]:
        print(row(r, r["streams"]))
    both = [
        r["rate"]
        for r in out["windows"]
        if pct(r["answers"], 95) < MOVE_TARGET and pct(r["boards"], 95) < BOARD_TARGET
    ]
    crossed_move = next(
        (r["rate"] for r in out["windows"] if pct(r["answers"], 95) >= MOVE_TARGET), None
    )
    crossed_board = next(
        (r["rate"] for r in out["windows"] if pct(r["boards"], 95) >= BOARD_TARGET), None
    )
    print(
        f"\nhighest target rate with both targets met: {max(both) if both else 'none'} moves/s; "
        f"move answer p95 >= {MOVE_TARGET:.0f} ms first at {crossed_move or 'none'}; board p95 >= "
        f"{BOARD_TARGET:.0f} ms first at {crossed_board or 'none'}"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                [
                    {k: v for k, v in r.items() if k not in ("behind",)}
                    | {"behind": len(r["behind"])}
                    for r in out["windows"]
                ]
            )
        )


if __name__ == "__main__":
    main()
