"""Push (server-sent events on uvicorn workers) beside polling every 2 s (gunicorn), one run.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/kavet_bench_push \
    REDIS_URL=redis://127.0.0.1:6379/9 .venv/bin/python benchmarks/bench_push.py [--quick]

Seeds tables of four students in class games (a teacher per class game). Then, loopback only:

1. push: `gunicorn -c gunicorn.conf.py kavet_site.asgi` (uvicorn workers); a listener process
   (asyncio, raw sockets) opens N streams, one per seat (2,000 tablets: 500 tables) and 2% for
   the teachers; an idle period measures the server's CPU per connected tablet; then moves are
   posted through the real HTTP move endpoint at some tables (each table starts at a random
   moment, the server warmed by one page per table), and every stream's arrival time is
   recorded: delay from the move's sending to each other tablet, the spread of arrival at one
   table. As a tablet does (static/js/table.js), each stream told of a change fetches the new
   board with its poll request on a connection of its own, unless the event carried the board
   itself (a move made from a tablet: games/stream.py), which it then shows as it is: the delay
   and spread of the new board (and how many came in the event, how many were fetched), and the
   server's CPU per move with its fetches, are reported too. The mover's own
   tablet waits for its move's answer instead (the parent tells the listener when a seat's
   move is sent and answered), and fetches only if the table moved further. --no-fetch:
   streams only.
2. polling: `gunicorn -c gunicorn.conf.py kavet_site.wsgi` (threads) with the simulated tablets
   of benchmarks/tablets.py polling every 2 s, the same moves; CPU per tablet, move latency.
   A polling tablet sees a move at its next poll: the delay is uniform over the interval plus
   the poll's answer time (given from the measured poll latency, marked "model").

If games.services does not publish on commit yet, the mover publishes through games.push right
after the move's answer (the same Redis path a web process takes), and the table says so.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import inspect
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.quick import parse_args  # noqa: E402
from benchmarks.serve import (  # noqa: E402
    gunicorn,
    gunicorn_cmd,
    raise_fd_limit,
    serving,
    use_bench_env,
)
from benchmarks.stats import pct  # noqa: E402

CSRF = "benchcsrftokenbenchcsrftoken0123"


# --- seeding --------------------------------------------------------------------------------


def seed(n_tables: int, per_session: int) -> dict:
    import django

    django.setup()
    from django.conf import settings
    from django.utils.module_loading import import_string

    from classgames.models import ClassSession
    from classgames.services import class_table_start
    from classrooms.models import Classroom, School, Student, User
    from classrooms.services import class_code_new
    from games.models import Game
    from games.polling import poll_token

    store = import_string(settings.SESSION_ENGINE + ".SessionStore")
    Game.objects.all().delete()
    ClassSession.objects.all().delete()
    Student.objects.all().delete()
    User.objects.filter(username__startswith="bench-").delete()
    Classroom.objects.all().delete()
    school, _ = School.objects.get_or_create(slug="bench", defaults={"name": "Bench school"})

    def session_cookie(user, extra: dict) -> str:
        s = store()
        s["_auth_user_id"] = str(user.pk)
        s["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
        s["_auth_user_hash"] = user.get_session_auth_hash()
        s.update(extra)
        s.save()
        return f"sessionid={s.session_key}; csrftoken={CSRF}"

    tables, teachers = [], []
    k = 0
    settings_ = {"turn_time": 0, "challenge_window": 600}  # no clocks: moves come from the mover
    for first in range(0, n_tables, per_session):
        teacher = User.objects.create(
            username=f"bench-teacher-{first}", role="teacher", school=school
        )
        classroom = Classroom.objects.create(
            school=school, name=f"Bench {first}", school_year="2026-2027", code=class_code_new()
        )
        classroom.teachers.add(teacher)
        session = ClassSession.objects.create(
            classroom=classroom, created_by=teacher, status=ClassSession.Status.RUNNING
        )
        teachers.append({"session": session.pk, "cookie": session_cookie(teacher, {})})
        for _t in range(min(per_session, n_tables - first)):
            kids = []
            for _j in range(4):
                user = User.objects.create(username=f"bench-kid-{k}", role="student", school=school)
                kids.append(
                    Student.objects.create(
                        user=user,
                        classroom=classroom,
                        name=f"Kid {k}",
                        picture_code=f"{k % 16}-{(k // 16) % 16}-{k}",
                    )
                )
                k += 1
            game = class_table_start(
                session=session,
                number=1,
                settings=settings_,
                players=[{"student": s} for s in kids],
            )
            seats = []
            for position, student in enumerate(kids):
                cookie = session_cookie(
                    student.user,
                    {
                        "kv_student": {"idle": 10, "classroom": classroom.pk},
                        "kv_seen": time.time() + 3600,
                        "kv_seats": {str(game.pk): position},
                    },
                )
                seats.append(
                    {
                        "position": position,
                        "cookie": cookie,
                        "token": poll_token(game, position, student.user.pk),
                    }
                )
            tables.append(
                {"game": game.pk, "session": session.pk, "version": game.version, "seats": seats}
            )
    return {"tables": tables, "teachers": teachers}


# --- the listener process (asyncio, raw sockets) --------------------------------------------


async def _readline(reader) -> bytes:
    return await reader.readline()


async def _read_response(reader) -> tuple[int, bytes]:
    """One HTTP/1.1 response: its status and body (Content-Length or chunked)."""
    status = int((await reader.readline()).split()[1])
    length, chunked = 0, False
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
        elif name.lower() == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
    if not chunked:
        return status, await reader.readexactly(length) if length else b""
    body = b""
    while True:
        size = int((await reader.readline()).strip() or b"0", 16)
        chunk = await reader.readexactly(size + 2)
        if size == 0:
            return status, body
        body += chunk[:-2]


class BoardFetcher:
    """What a tablet does when its stream says "version N": it asks for the board (the same
    request as its poll, answered with the new board), on a keep-alive connection of its own,
    one request at a time. Records when each version's board has arrived."""

    def __init__(self, index, host, port, fetch, cookie, boards, errors) -> None:
        self.index, self.host, self.port = index, host, port
        self.fetch, self.cookie, self.boards, self.errors = fetch, cookie, boards, errors
        self.conn = None
        self.lock = asyncio.Lock()
        self.have = -1
        self.heard = -1
        self.moving = False  # this tablet's own move is on its way (table.js: moveInFlight)

    def told(self, version: int, board: bytes | None = None) -> None:
        """The stream said "version N": fetch, unless this tablet's own move is on its way, or
        the event carried the new board itself (a move's push, games/stream.py), as table.js."""
        self.heard = max(self.heard, version)
        if self.moving:
            return
        if board is not None:
            if version > self.have and b'data-version="%d"' % version in board:
                self.have = version
                self.boards.append((self.index, version, time.monotonic(), "push"))
            return
        asyncio.ensure_future(self.changed(version))

    def move_sent(self) -> None:
        self.moving = True

    def move_answered(self, version: int) -> None:
        """The move's answer was the board at `version`; fetch only if the table moved on."""
        self.moving = False
        self.have = max(self.have, version)
        if self.heard > self.have:
            asyncio.ensure_future(self.changed(self.heard))

    async def changed(self, version: int) -> None:
        async with self.lock:
            if version <= self.have:
                return  # a board fetched meanwhile is already this new
            try:
                if self.conn is None:
                    self.conn = await asyncio.open_connection(self.host, self.port)
                reader, writer = self.conn
                writer.write(
                    f"GET {self.fetch.format(v=version - 1)} HTTP/1.1\r\nHost: {self.host}\r\n"
                    f"Cookie: {self.cookie}\r\nHX-Request: true\r\nX-Kavet-Poll: 1\r\n\r\n".encode()
                )
                await writer.drain()
                status, body = await _read_response(reader)
            except (OSError, asyncio.IncompleteReadError, ValueError, IndexError) as exc:
                self.errors.append(f"fetch {type(exc).__name__}")
                self.conn = None
                return
            if status != 200 or b'data-version="' not in body:
                self.errors.append(f"fetch status {status}")
                return
            got = int(body.split(b'data-version="', 1)[1].split(b'"', 1)[0])
            self.have = got
            self.boards.append((self.index, got, time.monotonic(), "fetch"))

    def close(self) -> None:
        if self.conn is not None:
            self.conn[1].close()


async def sse_connection(
    index: int,
    host: str,
    port: int,
    path: str,
    cookie: str,
    arrivals: list,
    hellos: set,
    errors: list,
    stop: asyncio.Event,
    fetcher: BoardFetcher | None = None,
) -> None:
    try:
        reader, writer = await asyncio.open_connection(host, port)
    except OSError as exc:
        errors.append(f"connect {type(exc).__name__}")
        return
    try:
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nCookie: {cookie}\r\n"
            f"Accept: text/event-stream\r\n\r\n".encode()
        )
        await writer.drain()
        status = (await asyncio.wait_for(reader.readline(), 30)).split()
        if len(status) < 2 or status[1] != b"200":
            errors.append(f"status {status[1:2]}")
            return
        chunked = False
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b""):
                break
            if line.lower().startswith(b"transfer-encoding:") and b"chunked" in line.lower():
                chunked = True
        buffer = b""
        stopper = asyncio.ensure_future(stop.wait())
        while not stop.is_set():
            if chunked:
                read = asyncio.ensure_future(reader.readline())
                done, _ = await asyncio.wait({read, stopper}, return_when=asyncio.FIRST_COMPLETED)
                if read not in done:
                    read.cancel()
                    break
                size_line = read.result()
                if not size_line:
                    break
                size = int(size_line.strip() or b"0", 16)
                if size == 0:
                    break
                data = await reader.readexactly(size + 2)
                buffer += data[:-2]
            else:
                read = asyncio.ensure_future(reader.read(65536))
                done, _ = await asyncio.wait({read, stopper}, return_when=asyncio.FIRST_COMPLETED)
                if read not in done:
                    read.cancel()
                    break
                if not read.result():
                    break
                buffer += read.result()
            now = time.monotonic()
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                fields = dict(
                    line.split(b": ", 1)
                    for line in block.split(b"\n")
                    if b": " in line and not line.startswith(b":")
                )
                if fields.get(b"event") == b"hello":
                    hellos.add(index)
                elif fields.get(b"event") == b"table":
                    data = json.loads(fields[b"data"])
                    arrivals.append(
                        (index, data.get("game"), data.get("game_version", data["version"]), now)
                    )
                    if fetcher is not None and index in hellos:
                        board = data.get("board")
                        fetcher.told(int(data["version"]), board and board.encode())
        stopper.cancel()
    except (OSError, asyncio.IncompleteReadError, ValueError, TimeoutError) as exc:
        errors.append(type(exc).__name__)
    finally:
        writer.close()
        if fetcher is not None:
            fetcher.close()


async def listen_main(plan: list, host: str, port: int, concurrency: int) -> dict:
    arrivals: list = []
    boards: list = []
    hellos: set = set()
    errors: list = []
    stop = asyncio.Event()
    gate = asyncio.Semaphore(concurrency)
    tasks = []

    fetchers: dict[tuple[int, int], BoardFetcher] = {}

    async def opened(i, path, cookie, fetch, seat):
        fetcher = BoardFetcher(i, host, port, fetch, cookie, boards, errors) if fetch else None
        if fetcher is not None:
            fetchers[tuple(seat)] = fetcher
        async with gate:
            task = asyncio.ensure_future(
                sse_connection(i, host, port, path, cookie, arrivals, hellos, errors, stop, fetcher)
            )
            tasks.append(task)
            t0 = time.monotonic()
            while i not in hellos and not task.done() and time.monotonic() - t0 < 30:
                await asyncio.sleep(0.005)

    started = time.monotonic()
    await asyncio.gather(
        *(
            opened(i, p["path"], p["cookie"], p.get("fetch"), p.get("seat"))
            for i, p in enumerate(plan)
        )
    )
    quiet_collector()
    print(f"READY {len(hellos)} {time.monotonic() - started:.1f} {len(errors)}", flush=True)
    loop = asyncio.get_running_loop()

    def heard(line: str) -> None:
        # The parent posts the moves: "sent G S" before, "answered G S V" after (the mover's
        # own tablet then behaves as table.js does with its own move).
        words = line.split()
        fetcher = fetchers.get((int(words[1]), int(words[2])))
        if fetcher is not None and words[0] == "sent":
            fetcher.move_sent()
        elif fetcher is not None:
            fetcher.move_answered(int(words[3]))

    while True:  # the parent says when to stop
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line or line.startswith("stop"):
            break
        heard(line)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.sleep(0)
    return {
        "arrivals": arrivals,
        "boards": boards,
        "connected": len(hellos),
        "errors": errors[:20],
        "n_errors": len(errors),
    }


def ratio(values: list[float], yardstick: list[float], p: float) -> float:
    base = pct(yardstick, p)
    return pct(values, p) / base if base and base == base else float("nan")


def settle_database() -> None:
    """After the seeding's writes, as pgbench does before its runs: statistics for the planner
    (every table's), dead rows vacuumed and a checkpoint taken, so neither autovacuum nor a
    checkpoint forced by the seeding's WAL lands in the middle of a measurement."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        # Every table: the classes' students and the class games' tables too (a run once
        # started with none of their statistics, and its plans scanned every seat and student
        # at each live poll and board, 6,000 rows read a move where 450 do).
        cursor.execute("VACUUM ANALYZE")
        try:
            cursor.execute("CHECKPOINT")
        except Exception as exc:  # not a superuser: the measurement just runs without it
            print(f"(no CHECKPOINT: {exc})")
    connection.close()


def quiet_collector() -> None:
    """The load generator's own garbage collections must not pause its clocks (a full one over
    2,000 connections' objects takes tens of ms): what exists now is frozen, and young
    collections run rarely. The runs are short; memory is not the concern here."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(100_000, 50, 1000)


def listener_process() -> None:
    raise_fd_limit(65536)
    plan = json.load(open(sys.argv[2]))
    port, concurrency = int(sys.argv[3]), int(sys.argv[4])
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    result = asyncio.run(listen_main(plan, "127.0.0.1", port, concurrency))
    print("RESULT " + json.dumps(result), flush=True)


# --- the parent ---------------------------------------------------------------------------


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a process and its children now."""
    pids = [pid] + [
        int(p)
        for p in subprocess.run(
            ["pgrep", "-P", str(pid)], capture_output=True, text=True
        ).stdout.split()
    ]
    total = 0.0
    for p in pids:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError):
            pass
    return total


def _cpu_of_others(server_pid: int) -> dict[str, float]:
    """CPU seconds so far of what shares the 2 cores with the server: the load generator (the
    listener and this process, the mover) and PostgreSQL and Redis."""
    out = {"load generator": 0.0, "postgresql + redis": 0.0}
    ticks = os.sysconf("SC_CLK_TCK")
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            raw = stat.read_text()
            name = raw[raw.index("(") + 1 : raw.rindex(")")]
            fields = raw.rsplit(")", 1)[1].split()
            cmd = (stat.parent / "cmdline").read_bytes()
        except (OSError, ValueError):
            continue
        cpu = (int(fields[11]) + int(fields[12])) / ticks
        if b"bench_push.py" in cmd:
            out["load generator"] += cpu
        elif name.startswith(("postgres", "redis-server")):
            out["postgresql + redis"] += cpu
    return out


def _simple_move(table: dict):
    """(game, seat, kind) of the table's next plain move: the active seat says "nothing", the
    others press OK; None once neither is legal (the game is over)."""
    from games.engine.game import GameState, legal_moves
    from games.models import Game

    game = Game.objects.get(pk=table["game"])
    state = GameState.from_dict(game.state)
    return next(
        (
            (game, seat, kind)
            for seat in range(4)
            for kind in ("nothing", "ok")
            if kind in legal_moves(state, seat)
        ),
        None,
    )


def _move_headers(table: dict, seat: int) -> dict[str, str]:
    """The headers of a move posted from the seat's tablet (its session, CSRF, htmx)."""
    return {
        "Cookie": table["seats"][seat]["cookie"],
        "X-CSRFToken": CSRF,
        "HX-Request": "true",
        "Content-Type": "application/x-www-form-urlencoded",
    }


def mover(
    port: int,
    table: dict,
    until: float,
    pace: float,
    log: list,
    latencies: list,
    failures: list,
    publish: bool,
    tell=None,
) -> None:
    """Plays one table: the active seat says "nothing", the others press OK; and again.

    `tell(line)`, when given, tells the listener that the seat's own tablet sent a move
    ("sent G S") and got its answer, the board at version V ("answered G S V")."""
    from games import push

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    # Warm: the table's page once (the connection, the worker's first database connection),
    # then start at a random moment of the first interval: tables don't all move in one
    # millisecond, and ten first moves at once would only measure a queue of ten.
    conn.request("GET", f"/play/{table['game']}/", headers={"Cookie": table["seats"][0]["cookie"]})
    conn.getresponse().read()
    time.sleep(random.uniform(0, pace))
    while time.monotonic() < until:
        choice = _simple_move(table)
        if choice is None:
            return
        game, seat, kind = choice
        headers = _move_headers(table, seat)
        if tell:
            tell(f"sent {table['game']} {seat}")
        sent = time.monotonic()
        try:
            conn.request(
                "POST",
                f"/play/{table['game']}/move/",
                f"seen_version={game.version}&type={kind}",
                headers,
            )
            response = conn.getresponse()
            html = response.read().decode()
        except (OSError, http.client.HTTPException) as exc:
            failures.append(repr(exc))
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
            continue
        answered = time.monotonic()
        latencies.append((answered - sent) * 1000)
        if tell:
            shown = (
                html.split('data-version="', 1)[1].split('"', 1)[0]
                if "data-version" in html
                else -1
            )
            tell(f"answered {table['game']} {seat} {shown}")
        if response.status != 200 or 'data-applied="1"' not in html:
            failures.append(f"{response.status} {kind} v{game.version}")
            time.sleep(pace)
            continue
        version = game.version + 1
        if publish:
            push.table_changed(game_id=table["game"], version=version, group=table["session"])
        log.append(
            {
                "game": table["game"],
                "version": version,
                "seat": seat,
                "sent": sent,
                "answered": answered,
                "published": time.monotonic() if publish else None,
            }
        )
        time.sleep(pace * random.uniform(0.8, 1.2))


def run_moves(port: int, tables: list, seconds: float, pace: float, publish: bool, tell=None):
    """Every table played by its own thread for `seconds`: the moves' log, their answer times,
    the failures, and the yardstick's answer times in the same moments."""
    from django.db import connections

    log, latencies, failures = [], [], []
    until = time.monotonic() + seconds

    def one(table):
        try:
            mover(port, table, until, pace, log, latencies, failures, publish, tell)
        finally:
            connections.close_all()

    def yardstick():
        # The bare Django view of benchmarks/urls.py, ten times a second on the same server at
        # the same moments: what the machine and the server's queue cost any request.
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
        while time.monotonic() < until:
            t0 = time.monotonic()
            try:
                conn.request("GET", "/bench/bare")
                conn.getresponse().read()
                bare.append((time.monotonic() - t0) * 1000)
            except (OSError, http.client.HTTPException):
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
            time.sleep(max(0.0, 0.1 - (time.monotonic() - t0)))

    bare: list[float] = []
    threads = [threading.Thread(target=one, args=(t,)) for t in tables]
    threads.append(threading.Thread(target=yardstick))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return log, latencies, failures, bare


@contextlib.contextmanager
def asgi_server(port: int, workers: int, env: dict, app: str = "kavet_site.asgi"):
    cmd = gunicorn_cmd(app, port, "--workers", str(workers), "--backlog", "4096")
    with serving(
        cmd,
        # Every benchmark tablet comes from 127.0.0.1: the per-address stream cap (300, for
        # a school behind one address) would close all but 300 of them. The per-session cap
        # (5) stays: each benchmark tablet has a session of its own.
        env={"KAVET_STREAMS_PER_ADDRESS": "1000000", **env, "CONN_MAX_AGE": "0"},
        port=port,
        start_timeout=40,
        stop_timeout=30,
        what="the ASGI server",
        poll=0.3,
    ) as proc:
        yield proc


def stream_plan(seeded: dict, n: int, teacher_share: float) -> list[dict]:
    """N streams: seats in turn (several streams per seat when N > seats), and the teachers."""
    n_teachers = max(len(seeded["teachers"]), int(n * teacher_share))
    plan = []
    seats = [(t, s) for t in seeded["tables"] for s in t["seats"]]
    for i in range(n - n_teachers):
        table, seat = seats[i % len(seats)]
        plan.append(
            {
                "kind": "seat",
                "game": table["game"],
                "seat": seat["position"],
                "cookie": seat["cookie"],
                "path": f"/push/table/{table['game']}/?v={table['version']}&t={quote(seat['token'])}",
                # the tablet's poll request, which answers the new board once the table moved
                "fetch": f"/play/{table['game']}/?v={{v}}&s=running&t={quote(seat['token'])}",
            }
        )
    for i in range(n_teachers):
        teacher = seeded["teachers"][i % len(seeded["teachers"])]
        plan.append(
            {
                "kind": "teacher",
                "session": teacher["session"],
                "cookie": teacher["cookie"],
                "path": f"/push/session/{teacher['session']}/?v=0",
            }
        )
    return plan


def push_phase(args, env, seeded, move_tables, publish) -> dict:
    import tempfile

    plan = stream_plan(seeded, args.connections, 0.02)
    listing = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump(
        [
            {
                "path": p["path"],
                "cookie": p["cookie"],
                "fetch": p.get("fetch") if args.fetch else None,
                "seat": (p["game"], p["seat"]) if p["kind"] == "seat" else None,
            }
            for p in plan
        ],
        listing,
    )
    listing.close()
    with asgi_server(args.port, args.workers, env) as server:
        listener = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--listen",
                listing.name,
                str(args.port),
                str(args.connect_concurrency),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        lock = threading.Lock()

        def tell(line: str) -> None:
            with lock:
                listener.stdin.write(line + "\n")
                listener.stdin.flush()

        ready = listener.stdout.readline().split()
        connected, connect_s = int(ready[1]), float(ready[2])
        cpu0, t0 = tree_cpu(server.pid), time.monotonic()
        time.sleep(args.idle)
        idle_cpu = (tree_cpu(server.pid) - cpu0) / (time.monotonic() - t0)
        cpu1, t1 = tree_cpu(server.pid), time.monotonic()
        others1 = _cpu_of_others(server.pid)
        log, latencies, failures, bare = run_moves(
            args.port, move_tables, args.seconds, args.move_pace, publish, tell
        )
        time.sleep(1.0)  # the last events on their way (and the boards they ask for)
        busy_cpu = tree_cpu(server.pid) - cpu1 - idle_cpu * (time.monotonic() - t1)
        others = {
            k: (v - others1[k]) / (time.monotonic() - t1)
            for k, v in _cpu_of_others(server.pid).items()
        }
        # Capacity: the same tables, moving faster, the 2,000 streams still open.
        sweep = []
        for pace in args.sweep:
            c0, s0 = tree_cpu(server.pid), time.monotonic()
            s_log, s_latencies, s_failures, s_bare = run_moves(
                args.port, move_tables, args.sweep_seconds, pace, publish, tell
            )
            seconds = time.monotonic() - s0
            time.sleep(1.0)
            s_cpu = tree_cpu(server.pid) - c0 - idle_cpu * (time.monotonic() - s0)
            sweep.append((pace, s_log, s_latencies, s_failures, s_cpu, seconds, s_bare))
        tell("stop")
        out, _ = listener.communicate(timeout=120)
    result = json.loads(next(line for line in out.splitlines() if line.startswith("RESULT "))[7:])
    out = {
        "connected": connected,
        "planned": len(plan),
        "connect_s": connect_s,
        "idle_cpu": idle_cpu,
        "errors": result["n_errors"],
        "error_kinds": result["errors"],
        **_analyse(plan, result, log),
        "cpu_per_move": busy_cpu / max(1, len(log)),
        "others_cpu": others,
        "rate": len(log) / args.seconds,
        "moves": latencies,
        "bare": bare,
        "failures": failures,
        "sweep": [],
    }
    for pace, s_log, s_latencies, s_failures, s_cpu, s_seconds, s_bare in sweep:
        out["sweep"].append(
            {
                "pace": pace,
                "rate": len(s_log) / s_seconds,
                "cpu_per_move": s_cpu / max(1, len(s_log)),
                "moves": s_latencies,
                "bare": s_bare,
                "failures": s_failures,
                **_analyse(plan, result, s_log),
            }
        )
    return out


# --- the capacity sweep: streams x moving tables --------------------------------------------


def workers_rss_mib(server) -> tuple[float, float]:
    """(the workers' resident memory, the master's), MiB."""
    from benchmarks.serve import rss_mib, worker_pids

    return sum(rss_mib(p) for p in worker_pids(server)), rss_mib(server.pid)


def _full_tables(plan: list, seeded: dict) -> list[dict]:
    """The tables whose every seat has a stream of the plan (the moving tables are among them)."""
    streamed: dict[int, int] = {}
    for p in plan:
        if p["kind"] == "seat":
            streamed[p["game"]] = streamed.get(p["game"], 0) + 1
    return [t for t in seeded["tables"] if streamed.get(t["game"], 0) >= len(t["seats"])]


def _profile_workers(server, seconds: float, out_dir: Path) -> tuple[list, list[Path]]:
    """py-spy on every worker for `seconds` (in the test extra: `make install-test`; it needs ptrace)."""
    import shutil

    from benchmarks.serve import worker_pids

    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        print("(no py-spy: the profile is skipped)")
        return [], []
    out_dir.mkdir(parents=True, exist_ok=True)
    procs, files = [], []
    for pid in worker_pids(server):
        out = out_dir / f"worker-{pid}.txt"
        files.append(out)
        procs.append(
            subprocess.Popen(
                [
                    spy,
                    "record",
                    "--pid",
                    str(pid),
                    "--duration",
                    str(int(seconds)),
                    "--rate",
                    "50",
                    "--format",
                    "raw",
                    "--gil",
                    "--nonblocking",
                    "--output",
                    str(out),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
    return procs, files


def _frame(raw: str) -> str:
    """py-spy's "function (path/file.py:line)" as "function (path/file.py)"."""
    name, _, where = raw.partition(" (")
    return f"{name} ({where.rsplit(':', 1)[0]})" if where else name


# A thread at one of these is waiting (for work, a lock, the event loop's next event), not
# working: py-spy's --gil keeps the samples holding the GIL, and these are left out too.
IDLE_FRAMES = {
    "_worker (concurrent/futures/thread.py)",
    "Condition.wait (threading.py)",
    "Thread._wait_for_tstate_lock (threading.py)",
}
OWN_CODE = ("games/", "classrooms/", "classgames/", "kavet_site/", "reports/")


def profile_top(files: list[Path], n: int = 15) -> dict:
    """From py-spy's collapsed stacks of the workers (samples holding the GIL, not idle): the
    functions most often on the stack (inclusive), the project's own, and at its top (self),
    as shares of all samples."""
    inclusive: dict[str, int] = {}
    own: dict[str, int] = {}
    total = 0
    for f in files:
        if not f.exists():
            continue
        for line in f.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            if not stack or not count.isdigit():
                continue
            k = int(count)
            frames = [_frame(fr) for fr in stack.split(";")]
            if frames[-1] in IDLE_FRAMES:
                continue
            total += k
            for fr in set(frames):
                inclusive[fr] = inclusive.get(fr, 0) + k
            own[frames[-1]] = own.get(frames[-1], 0) + k

    def top(d, keep=lambda name: True):
        return sorted(((k, v) for k, v in d.items() if keep(k)), key=lambda kv: -kv[1])[:n]

    return {
        "total": total,
        "inclusive": top(inclusive),
        "project": top(inclusive, lambda name: name.split(" (", 1)[-1].startswith(OWN_CODE)),
        "own": top(own),
    }


def capacity_run(args, env, seeded, streams: int, port: int, movings: list, offset: int, publish):
    """One server, `streams` open streams, then each count of moving tables in turn."""
    import tempfile

    from benchmarks.serve import worker_pids

    tables = seeded["tables"][: max(1, streams // 4)]
    sessions = {t["session"] for t in tables}
    sub = {
        "tables": tables,
        "teachers": [t for t in seeded["teachers"] if t["session"] in sessions],
    }
    plan = stream_plan(sub, streams, 0.0)
    full = _full_tables(plan, sub)
    listing = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump(
        [
            {
                "path": p["path"],
                "cookie": p["cookie"],
                "fetch": p.get("fetch") if args.fetch else None,
                "seat": (p["game"], p["seat"]) if p["kind"] == "seat" else None,
            }
            for p in plan
        ],
        listing,
    )
    listing.close()
    phases = []
    profile = None
    with asgi_server(port, args.workers, env, args.app) as server:
        time.sleep(1.0)
        rss_before, master_rss = workers_rss_mib(server)
        listener = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--listen",
                listing.name,
                str(port),
                str(args.connect_concurrency),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        lock = threading.Lock()

        def tell(line: str) -> None:
            with lock:
                listener.stdin.write(line + "\n")
                listener.stdin.flush()

        ready = listener.stdout.readline().split()
        connected, connect_s = int(ready[1]), float(ready[2])
        time.sleep(2.0)
        cpu0, t0 = tree_cpu(server.pid), time.monotonic()
        time.sleep(args.idle)
        idle_cpu = (tree_cpu(server.pid) - cpu0) / (time.monotonic() - t0)
        rss_open, _ = workers_rss_mib(server)
        threads = sum(len(os.listdir(f"/proc/{p}/task")) for p in worker_pids(server))
        for m in movings:
            chosen = [full[(offset + i) % len(full)] for i in range(m)]
            offset += m
            c0, s0 = tree_cpu(server.pid), time.monotonic()
            log, latencies, failures, bare = run_moves(
                port, chosen, args.seconds, args.move_pace, publish, tell
            )
            seconds = time.monotonic() - s0
            time.sleep(1.0)
            cpu = tree_cpu(server.pid) - c0 - idle_cpu * (time.monotonic() - s0)
            phases.append(
                {
                    "moving": m,
                    "log": log,
                    "moves": latencies,
                    "failures": failures,
                    "bare": bare,
                    "rate": len(log) / seconds,
                    "cpu_per_move": cpu / max(1, len(log)),
                }
            )
        rss_after, _ = workers_rss_mib(server)
        if args.profile and streams == max(args.capacity):
            # Not measured: py-spy's sampling costs CPU on the same cores.
            m = max(movings)
            chosen = [full[(offset + i) % len(full)] for i in range(m)]
            offset += m
            spies, files = _profile_workers(server, args.seconds, Path(args.profile))
            run_moves(port, chosen, args.seconds, args.move_pace, publish, tell)
            for spy in spies:
                spy.wait(timeout=60)
            profile = profile_top(files)
        tell("stop")
        out, _ = listener.communicate(timeout=300)
    try:
        result = json.loads(
            next(line for line in out.splitlines() if line.startswith("RESULT "))[7:]
        )
    except (StopIteration, ValueError):
        Path("/tmp/bench-push-listener.out").write_text(out)
        raise SystemExit(
            "the listener's result is unreadable: /tmp/bench-push-listener.out"
        ) from None
    for phase in phases:
        phase.update(_analyse(plan, result, phase.pop("log")))
    return {
        "streams": streams,
        "planned": len(plan),
        "connected": connected,
        "connect_s": connect_s,
        "errors": result["n_errors"],
        "error_kinds": result["errors"][:3],
        "idle_cpu": idle_cpu,
        "rss_before": rss_before,
        "rss_open": rss_open,
        "rss_after": rss_after,
        "master_rss": master_rss,
        "threads": threads,
        "phases": phases,
        "profile": profile,
    }, offset


def capacity_main(args, env, seeded, publish) -> None:
    print(
        f"\nCAPACITY: gunicorn + {args.workers} uvicorn workers ({args.app}), PostgreSQL, Redis "
        f"pub/sub, load average {os.getloadavg()[0]:.1f}; "
        f"moves every {args.move_pace} s per moving table for {args.seconds} s; "
        f"targets: move answer p95 < 100 ms, move -> board on the others p95 < 250 ms"
    )
    runs, offset = [], 0
    for i, streams in enumerate(args.capacity):
        run, offset = capacity_run(
            args, env, seeded, streams, args.port + 2 + i, args.moving, offset, publish
        )
        runs.append(run)
        _print_capacity_run(run)
    print(
        "\n| streams | moving tables | moves/s | move answer p50 / p95 / p99 (ms) | bare view "
        "p50 / p95 / p99 (ms) | move -> event p95 (ms) | move -> board p50 / p95 / p99 (ms) "
        "| delivered | CPU per move (ms) | targets |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for run in runs:
        for ph in run["phases"]:
            ok_move = pct(ph["moves"], 95) < 100
            ok_board = pct(ph["boards"], 95) < 250 if args.fetch else True
            lost = ph["expected"] - ph["delivered"]
            print(
                f"| {run['connected']:,} | {ph['moving']} | {ph['rate']:.1f} | "
                f"{_three(ph['moves'])} | {_three(ph['bare'])} | {pct(ph['delays'], 95):.0f} | "
                f"{_three(ph['boards'])} | {ph['delivered']}/{ph['expected']}"
                f"{' (failures ' + str(len(ph['failures'])) + ')' if ph['failures'] else ''} | "
                f"{ph['cpu_per_move'] * 1000:.1f} | "
                f"{'both met' if ok_move and ok_board and not lost else 'move ' + ('ok' if ok_move else 'MISSED') + ', board ' + ('ok' if ok_board else 'MISSED') + (', events lost' if lost else '')} |"
            )
    print(
        "\n| streams | open in (s) | workers' RSS before / with the streams (MiB) | RSS per "
        "stream, all / added (KiB) | workers' threads | idle CPU (% of a core) | idle CPU per "
        "tablet (us/s) |"
    )
    print("|---|---|---|---|---|---|---|")
    for run in runs:
        n = max(1, run["connected"])
        print(
            f"| {run['connected']:,} | {run['connect_s']:.0f} | {run['rss_before']:.0f} / "
            f"{run['rss_open']:.0f} | {run['rss_open'] * 1024 / n:.0f} / "
            f"{(run['rss_open'] - run['rss_before']) * 1024 / n:.1f} | {run['threads']:,} | "
            f"{run['idle_cpu'] * 100:.1f} | "
            f"{run['idle_cpu'] * 1e6 / n:.1f} |"
        )
    for run in runs:
        prof = run["profile"]
        if prof:
            total = max(1, prof["total"])
            print(
                f"\nprofile (py-spy, {prof['total']} busy samples of the workers, "
                f"{run['connected']:,} streams, {max(args.moving)} moving tables)"
            )
            for title, rows in (
                ("the project's functions most often on the stack", prof["project"]),
                ("anything most often on the stack", prof["inclusive"]),
                ("at the top of the stack (own time)", prof["own"]),
            ):
                print(title)
                for name, k in rows:
                    print(f"  {k * 100 / total:5.1f}%  {name}")


def _three(values: list) -> str:
    return f"{pct(values, 50):.0f} / {pct(values, 95):.0f} / {pct(values, 99):.0f}"


def _print_capacity_run(run: dict) -> None:
    print(
        f"\n{run['connected']}/{run['planned']} streams open in {run['connect_s']:.1f} s "
        f"({run['errors']} errors {run['error_kinds']}); workers' RSS {run['rss_before']:.0f} -> "
        f"{run['rss_open']:.0f} MiB with the streams, {run['rss_after']:.0f} after the moves; "
        f"idle CPU {run['idle_cpu'] * 100:.1f}% of a core",
        flush=True,
    )
    for ph in run["phases"]:
        print(
            f"  {ph['moving']} moving tables ({ph['rate']:.1f} moves/s): answer {_three(ph['moves'])}"
            f", bare {_three(ph['bare'])}, event p95 {pct(ph['delays'], 95):.0f}, board "
            f"{_three(ph['boards'])} ms ({ph['boards_pushed']} in the event, "
            f"{ph['boards_fetched']} fetched); delivered {ph['delivered']}/{ph['expected']}, "
            f"failures {len(ph['failures'])}, CPU/move {ph['cpu_per_move'] * 1000:.1f} ms",
            flush=True,
        )


def _analyse(plan: list, result: dict, log: list) -> dict:
    """What the tablets saw of the moves in `log`: delays, spreads, boards."""
    origin = {(m["game"], m["version"]): m for m in log}
    first_seen: dict[tuple, float] = {}
    for index, game, version, t in result["arrivals"]:
        p = plan[index]
        g = p.get("game") if p["kind"] == "seat" else game
        key = (index, g, version)
        if key not in first_seen:
            first_seen[key] = t
    delays, teacher_delays, spreads, versus_answer = [], [], [], []
    by_move: dict[tuple, list[float]] = {}
    for (index, g, version), t in first_seen.items():
        move = origin.get((g, version))
        if move is None:
            continue
        # From the moment the move was sent: the move's own work (its commit) and the delivery,
        # an upper bound on "a move is made -> the other tablets know". Beside it, the same
        # arrival against the mover's own answer (negative: the others heard it first).
        start = move["published"] or move["sent"]
        if plan[index]["kind"] == "seat":
            delays.append((t - start) * 1000)
            versus_answer.append((t - move["answered"]) * 1000)
            by_move.setdefault((g, version), []).append(t)
        else:
            teacher_delays.append((t - start) * 1000)
    for times in by_move.values():
        if len(times) > 1:
            spreads.append((max(times) - min(times)) * 1000)
    # The new board on each other tablet (the mover's own tablet has it in its answer).
    boards = []
    # Each tablet's first board of each version: when, and how (in the event, or fetched).
    board_seen: dict[tuple, tuple[float, str]] = {}
    for index, version, t, source in result["boards"]:
        board_seen.setdefault((index, version), (t, source))
    sources: dict[str, int] = {"push": 0, "fetch": 0}
    board_times: dict[tuple, list[float]] = {}
    for (index, version), (t, source) in board_seen.items():
        move = origin.get((plan[index]["game"], version))
        if move is not None and plan[index]["seat"] != move["seat"]:
            boards.append((t - move["sent"]) * 1000)
            sources[source] += 1
            board_times.setdefault((plan[index]["game"], version), []).append(t)
    # When the new board (the challenge window's countdown, R5.1) is up on every other tablet.
    board_spreads = [(max(v) - min(v)) * 1000 for v in board_times.values() if len(v) > 1]
    expected = sum(
        len([p for p in plan if p["kind"] == "seat" and p["game"] == m["game"]]) for m in log
    )
    return {
        "delays": delays,
        "boards": boards,
        "boards_pushed": sources["push"],
        "boards_fetched": sources["fetch"],
        "board_spreads": board_spreads,
        "versus_answer": versus_answer,
        "teacher_delays": teacher_delays,
        "spreads": spreads,
        "delivered": len(delays),
        "expected": expected,
    }


def poll_phase(args, env, seeded, move_tables) -> dict:
    from benchmarks.bench_table_load import run_tablets, tablets_result
    from games.models import Game

    versions = dict(Game.objects.values_list("pk", "version"))  # the push phase moved some
    for t in seeded["tables"]:
        t["version"] = versions[t["game"]]
    moving = {t["game"] for t in move_tables}
    seats = [(t, s) for t in seeded["tables"] if t["game"] not in moving for s in t["seats"]]
    targets = [
        (f"/play/{t['game']}/?v={t['version']}&s=running&t={quote(s['token'])}", s["cookie"])
        for i in range(args.poll_tablets)
        for t, s in [seats[i % len(seats)]]
    ]
    with gunicorn(
        args.port + 1, workers=args.poll_workers, threads=args.poll_threads, env=env
    ) as server:
        tablets_result(run_tablets(args.port + 1, targets[:50], seconds=2, interval=0.05))  # warm
        polls = run_tablets(
            args.port + 1, targets, seconds=args.idle + args.seconds + 2, interval=args.interval
        )
        time.sleep(2.0)
        cpu0, t0 = tree_cpu(server.pid), time.monotonic()
        time.sleep(args.idle)
        idle_cpu = (tree_cpu(server.pid) - cpu0) / (time.monotonic() - t0)
        _log, latencies, failures, _bare = run_moves(
            args.port + 1, move_tables, args.seconds, args.move_pace, publish=False
        )
        p = tablets_result(polls)
    return {"idle_cpu": idle_cpu, "moves": latencies, "failures": failures, "polls": p}


def reuse_seed(args) -> dict | None:
    """The tables seeded by an earlier run (--seed-file), when enough of them are still there:
    seeding 2,500 tables takes minutes on a busy machine. Their versions are read again."""
    import django

    django.setup()
    from games.models import Game

    try:
        seeded = json.loads(Path(args.seed_file).read_text())
    except (OSError, ValueError):
        return None
    versions = dict(Game.objects.values_list("pk", "version"))
    if len(seeded["tables"]) < args.tables or any(
        t["game"] not in versions for t in seeded["tables"]
    ):
        return None
    for t in seeded["tables"]:
        t["version"] = versions[t["game"]]
    print(f"(the {len(seeded['tables'])} tables of {args.seed_file}, seeded before)")
    return seeded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--connections", type=int, default=2000, help="SSE streams in the push phase"
    )
    parser.add_argument(
        "--tables", type=int, default=500, help="tables of four students (a stream per seat)"
    )
    parser.add_argument(
        "--per-session", type=int, default=10, help="tables per class game (teacher)"
    )
    parser.add_argument("--move-tables", type=int, default=10)
    parser.add_argument(
        "--move-pace", type=float, default=1.0, help="seconds between a table's moves"
    )
    parser.add_argument("--seconds", type=float, default=20, help="seconds of moves per phase")
    parser.add_argument(
        "--idle", type=float, default=16, help="idle seconds measured (> heartbeat)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=(os.cpu_count() or 1) * 2,
        help="uvicorn workers (gunicorn.conf.py's default: 2 per core)",
    )
    parser.add_argument("--poll-tablets", type=int, default=300)
    parser.add_argument("--poll-workers", type=int, default=2)
    parser.add_argument("--poll-threads", type=int, default=4)
    parser.add_argument("--interval", type=float, default=2.0)
    parser.add_argument("--connect-concurrency", type=int, default=16)
    parser.add_argument("--port", type=int, default=8191)
    parser.add_argument("--skip-poll", action="store_true")
    parser.add_argument(
        "--sweep",
        type=lambda v: [float(x) for x in v.split(",") if x],
        default=[0.5, 0.3],
        help="then the same tables again, a move every P seconds each (comma list; '' for none)",
    )
    parser.add_argument("--sweep-seconds", type=float, default=12)
    parser.add_argument(
        "--capacity",
        type=lambda v: [int(x) for x in v.split(",") if x],
        default=[],
        help="the capacity sweep instead: a fresh server per count of streams (comma list, "
        "e.g. 500,2000,5000,10000), each with --moving tables in turn",
    )
    parser.add_argument(
        "--moving",
        type=lambda v: [int(x) for x in v.split(",") if x],
        default=[5, 10, 20],
        help="with --capacity: how many tables move (each a move every --move-pace s)",
    )
    parser.add_argument(
        "--app",
        default="kavet_site.asgi",
        help="with --capacity: the ASGI application to measure (module:attribute)",
    )
    parser.add_argument(
        "--seed-file",
        default="",
        help="keep the seeded tables' cookies here and reuse them in the next run",
    )
    parser.add_argument(
        "--profile", default="", help="with --capacity: py-spy's stacks of the largest run here"
    )
    parser.add_argument(
        "--channels",
        action="store_true",
        help="two web processes on --port and --port+1 sharing --channel-tables moving tables "
        "(a Redis channel per table: who hears what, the bytes per move)",
    )
    parser.add_argument("--channel-tables", type=int, default=30)
    parser.add_argument(
        "--no-fetch",
        dest="fetch",
        action="store_false",
        help="streams only: the tablets do not fetch the new board when told",
    )
    args = parse_args(
        parser,
        quick={
            "connections": 200,
            "tables": 50,
            "move_tables": 3,
            "seconds": 5,
            "idle": 4,
            "poll_tablets": 60,
            "sweep": [0.5],
            "sweep_seconds": 4,
        },
    )
    if args.capacity:
        args.connections = max(args.capacity)
        args.tables = max(args.tables, (args.connections + 3) // 4)
    if args.channels:
        args.tables = args.channel_tables  # a seed file of at least these tables will do
    fds = raise_fd_limit(args.connections * 2 + 1000)
    database = os.environ.setdefault(
        "DATABASE_URL", "postgres://postgres@127.0.0.1:5432/kavet_bench_push"
    )
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/9")
    os.environ.setdefault("KAVET_PUSH_CHANNEL", "kavet:push:bench-" + database.rsplit("/", 1)[-1])
    env = use_bench_env(database)
    t0 = time.monotonic()
    seeded = reuse_seed(args) if args.seed_file else None
    if seeded is None:
        seeded = seed(args.tables, args.per_session)
        if args.seed_file:
            Path(args.seed_file).write_text(json.dumps(seeded))
    print(
        f"seeded {len(seeded['tables'])} tables of 4, {len(seeded['teachers'])} class games "
        f"in {time.monotonic() - t0:.1f} s; open files limit {fds}; {os.cpu_count()} cores"
    )
    settle_database()
    from games import services

    publish = "table_changed" not in inspect.getsource(services)
    move_tables = seeded["tables"][: args.move_tables]
    quiet_collector()
    if args.capacity:
        capacity_main(args, env, seeded, publish)
        return
    if args.channels:
        channels_main(args, {**env, "KAVET_PUSH_CHANNEL": os.environ["KAVET_PUSH_CHANNEL"]}, seeded)
        return
    pushed = push_phase(args, env, seeded, move_tables, publish)
    polled = (
        None
        if args.skip_poll
        else poll_phase(args, env, seeded, seeded["tables"][-args.move_tables :])
    )

    d, s, td = pushed["delays"], pushed["spreads"], pushed["teacher_delays"]
    print(
        f"\nPUSH: gunicorn + {args.workers} uvicorn workers, PostgreSQL, Redis pub/sub; "
        f"{pushed['connected']}/{pushed['planned']} streams open in {pushed['connect_s']:.1f} s "
        f"({pushed['errors']} errors {pushed['error_kinds'][:3]})"
    )
    print(
        "event from: "
        + (
            "the mover's publish right after the move's answer (services does not "
            "publish on commit yet)"
            if publish
            else "the server, on commit; timed from the moment the move was sent"
        )
    )
    print(
        f"moves: {len(move_tables)} tables, a move every {args.move_pace} s each = "
        f"{pushed['rate']:.1f} moves/s"
    )
    print(f"{'measure':<44}{'n':>7}{'p50':>9}{'p95':>9}{'p99':>9}{'max':>9}")

    def row(name, values, unit=""):
        print(
            f"{name:<44}{len(values):>7}{pct(values, 50):>9.1f}{pct(values, 95):>9.1f}"
            f"{pct(values, 99):>9.1f}{max(values, default=float('nan')):>9.1f}{unit}"
        )

    row("push: move sent -> other tablets (ms)", d)
    row("push: other tablets' event - mover's answer (ms)", pushed["versus_answer"])
    if args.fetch:
        row("push: move sent -> new board on the others (ms)", pushed["boards"])
        row("push: spread of the new board across a table (ms)", pushed["board_spreads"])
    row("push: spread across one table (ms)", s)
    row("push: move -> teacher's view (ms)", td)
    row("push: move answer, under the streams (ms)", pushed["moves"])
    row("yardstick: the bare view, same moments (ms)", pushed["bare"])
    print(
        f"push: move answer / bare view: p50 {ratio(pushed['moves'], pushed['bare'], 50):.1f}x, "
        f"p95 {ratio(pushed['moves'], pushed['bare'], 95):.1f}x"
    )
    print(
        f"push: delivered {pushed['delivered']}/{pushed['expected']} tablet events; move failures "
        f"{len(pushed['failures'])}"
    )
    print(
        "on the same 2 cores meanwhile: "
        + ", ".join(f"{k} {v * 100:.0f}% of a core" for k, v in pushed["others_cpu"].items())
    )
    print(
        f"push: server CPU per move {pushed['cpu_per_move'] * 1000:.1f} ms (the move, its events"
        + (", and the new board fetched by each tablet of the table)" if args.fetch else ")")
    )
    for phase in pushed["sweep"]:
        print(
            f"\ncapacity: the {len(move_tables)} tables, a move every {phase['pace']} s each = "
            f"{phase['rate']:.1f} moves/s, server CPU per move {phase['cpu_per_move'] * 1000:.1f} ms"
        )
        row("  move answer (ms)", phase["moves"])
        row("  yardstick: the bare view (ms)", phase["bare"])
        row("  move sent -> other tablets (ms)", phase["delays"])
        if args.fetch:
            row("  move sent -> new board on the others (ms)", phase["boards"])
        row("  spread across one table (ms)", phase["spreads"])
        print(
            f"  delivered {phase['delivered']}/{phase['expected']}; failures {len(phase['failures'])}"
        )
    per_tablet = pushed["idle_cpu"] * 1e6 / max(1, pushed["connected"])
    print(
        f"push: server CPU idle {pushed['idle_cpu'] * 100:.2f}% of a core for "
        f"{pushed['connected']} streams = {per_tablet:.1f} us CPU/s per tablet"
    )
    if polled:
        p = polled["polls"]
        print(
            f"\nPOLL: gunicorn {args.poll_workers} workers x {args.poll_threads} threads, "
            f"{args.poll_tablets} tablets every {args.interval} s"
        )
        print(
            f"poll answers p50 {p['p50']:.1f} p95 {p['p95']:.1f} p99 {p['p99']:.1f} ms, "
            f"errors {p['errors']}, statuses {p['statuses']}"
        )
        row("poll: move answer, under the polls (ms)", polled["moves"])
        iv = args.interval * 1000
        print(
            f"poll (model): move -> other tablets p50 {iv * 0.5 + p['p50']:.0f} ms, "
            f"p95 {iv * 0.95 + p['p95']:.0f} ms, max ~{iv + p['max']:.0f} ms; spread across a "
            f"table up to ~{iv:.0f} ms"
        )
        per_poll = polled["idle_cpu"] * 1e6 / args.poll_tablets
        print(
            f"poll: server CPU {polled['idle_cpu'] * 100:.1f}% of a core for {args.poll_tablets} "
            f"tablets = {per_poll:.1f} us CPU/s per tablet; "
            f"ratio poll/push per tablet: {per_poll / per_tablet if per_tablet else float('nan'):.0f}x"
        )


# --- two web processes on two ports, a Redis channel per table (issue 38) --------------------


async def _sse(port: int, path: str, cookie: str, seen: dict, stop: asyncio.Event) -> None:
    """One tablet's stream: each event's version, with its arrival time and whether it
    carried the board, into `seen` ("versions": [(version, at, board?)], "hello")."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\n"
            "Accept: text/event-stream\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    event = version = None
    try:
        while not stop.is_set():
            try:
                line = await asyncio.wait_for(reader.readline(), 0.5)
            except TimeoutError:
                continue
            if not line:
                break
            text = line.decode().rstrip("\r\n")
            if text.startswith("event: "):
                event = text[7:]
                if event == "hello":
                    seen["hello"] = True
            elif text.startswith("id: "):
                version = int(text[4:])
            elif text.startswith("data: ") and event == "table" and version is not None:
                seen["versions"].append((version, time.monotonic(), '"board"' in text))
                event = version = None
    finally:
        writer.close()


def channels_main(args, env, seeded) -> None:
    """--channels: two `gunicorn -c gunicorn.conf.py kavet_site.asgi` on two ports (one worker
    each: two web processes) over one PostgreSQL and one Redis. Of --channel-tables tables, the
    first third have their tablets spread over both processes (seats 0-1 on the first port,
    2-3 on the second), the others all four tablets on one process (alternately); movers post
    each table's moves to the port of the seat that moves. Every tablet must see every move of
    its table (the last version it saw is the game's), a tablet on the other process as fast
    as one on the mover's own. The bench subscribes to every table's and group's Redis channel
    itself (a pattern): the bytes of each message, what EVERY process received per move with
    the one channel of before; each process now receives the messages of the tables (and
    groups) it holds streams of, which PUBSUB NUMSUB shows per channel."""
    import redis
    from django.db import connections

    from games import push
    from games.models import Game

    site = env["KAVET_PUSH_CHANNEL"]
    ports = (args.port, args.port + 1)
    tables = seeded["tables"][: args.channel_tables]
    n_spread = max(1, len(tables) // 3)
    placement = {}  # (game, position) -> port index
    for i, table in enumerate(tables):
        for seat in table["seats"]:
            if i < n_spread:
                placement[(table["game"], seat["position"])] = 0 if seat["position"] < 2 else 1
            else:
                placement[(table["game"], seat["position"])] = i % 2
    versions = {g.pk: g.version for g in Game.objects.filter(pk__in=[t["game"] for t in tables])}
    connections.close_all()
    client = redis.Redis.from_url(env["REDIS_URL"])
    sizes: dict[str, list[int]] = {}
    tap = client.pubsub()
    tap.psubscribe(f"{site}|kavet:*")

    def listen_tap() -> None:
        while not stop_tap.is_set():
            message = tap.get_message(timeout=0.2)
            if message and message["type"] == "pmessage":
                name = message["channel"].decode().split("|", 1)[1]
                sizes.setdefault(name, []).append(len(message["data"]))

    stop_tap = threading.Event()
    tapping = threading.Thread(target=listen_tap)
    tapping.start()
    seen = {key: {"versions": [], "hello": False} for key in placement}
    with contextlib.ExitStack() as stack:
        for port in ports:
            stack.enter_context(
                serving(
                    gunicorn_cmd("kavet_site.asgi", port, "--workers", "1"),
                    env={**env, "CONN_MAX_AGE": "0", "KAVET_STREAMS_PER_ADDRESS": "1000000"},
                    port=port,
                    start_timeout=40,
                    stop_timeout=30,
                    what="an ASGI server",
                )
            )
        loop = asyncio.new_event_loop()
        stop = asyncio.Event()
        stream_tasks = []

        def streams() -> None:
            asyncio.set_event_loop(loop)
            for table in tables:
                for seat in table["seats"]:
                    key = (table["game"], seat["position"])
                    path = (
                        f"/push/table/{table['game']}/?v={versions[table['game']]}"
                        f"&t={quote(seat['token'])}"
                    )
                    stream_tasks.append(
                        loop.create_task(
                            _sse(ports[placement[key]], path, seat["cookie"], seen[key], stop)
                        )
                    )
            loop.run_until_complete(asyncio.gather(*stream_tasks, return_exceptions=True))

        streaming = threading.Thread(target=streams)
        streaming.start()
        deadline = time.monotonic() + 30
        while not all(s["hello"] for s in seen.values()) and time.monotonic() < deadline:
            time.sleep(0.1)
        opened = sum(s["hello"] for s in seen.values())
        numsub = dict(
            (name.decode().split("|", 1)[1], count)
            for name, count in client.pubsub_numsub(
                *[f"{site}|{push.table_channel(t['game'])}" for t in tables]
            )
        )
        log, latencies, failures = [], [], []
        until = time.monotonic() + args.seconds
        threads = [
            threading.Thread(
                target=_two_port_mover,
                args=(ports, placement, table, until, args.move_pace, log, latencies, failures),
            )
            for table in tables
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        time.sleep(1.0)
        loop.call_soon_threadsafe(stop.set)
        streaming.join(10)
    stop_tap.set()
    tapping.join()
    final = {g.pk: g.version for g in Game.objects.filter(pk__in=[t["game"] for t in tables])}
    connections.close_all()
    _print_channels(
        tables,
        n_spread,
        placement,
        seen,
        log,
        latencies,
        failures,
        sizes,
        numsub,
        final,
        opened,
        ports,
    )


def _two_port_mover(ports, placement, table, until, pace, log, latencies, failures) -> None:
    from django.db import connections

    conns = {p: http.client.HTTPConnection("127.0.0.1", p, timeout=15) for p in ports}
    time.sleep(random.uniform(0, pace))
    try:
        while time.monotonic() < until:
            choice = _simple_move(table)
            if choice is None:
                return
            game, seat, kind = choice
            port = ports[placement[(table["game"], seat)]]
            sent = time.monotonic()
            try:
                conns[port].request(
                    "POST",
                    f"/play/{table['game']}/move/",
                    f"seen_version={game.version}&type={kind}",
                    _move_headers(table, seat),
                )
                response = conns[port].getresponse()
                html = response.read().decode()
            except (OSError, http.client.HTTPException) as exc:
                failures.append(repr(exc))
                conns[port] = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
                continue
            latencies.append((time.monotonic() - sent) * 1000)
            if response.status != 200 or 'data-applied="1"' not in html:
                failures.append(f"{response.status} {kind} v{game.version}")
                time.sleep(pace)
                continue
            log.append(
                {
                    "game": table["game"],
                    "version": game.version + 1,
                    "seat": seat,
                    "port": port,
                    "sent": sent,
                }
            )
            time.sleep(pace * random.uniform(0.8, 1.2))
    finally:
        connections.close_all()


def _print_channels(
    tables, n_spread, placement, seen, log, latencies, failures, sizes, numsub, final, opened, ports
) -> None:
    from games import push

    sent_at = {(m["game"], m["version"]): m for m in log}
    same, other, missing, with_board, events = [], [], 0, 0, 0
    for (game, position), got in seen.items():
        last = max((v for v, _at, _b in got["versions"]), default=None)
        if last != final[game]:
            missing += 1
        for version, at, board in got["versions"]:
            move = sent_at.get((game, version))
            if move is None or move["seat"] == position:
                continue  # the mover's own tablet takes its answer, not the event
            events += 1
            with_board += board
            (same if ports[placement[(game, position)]] == move["port"] else other).append(
                (at - move["sent"]) * 1000
            )
    moves = len(log)
    print(
        f"two web processes on ports {ports[0]} and {ports[1]}, {len(tables)} tables "
        f"({n_spread} spread over both), {opened}/{len(seen)} streams open"
    )
    print(
        f"  moves applied: {moves} ({moves / max(1e-9, max((m['sent'] for m in log), default=0) - min((m['sent'] for m in log), default=0)):.1f}/s), failures {len(failures)} {failures[:3]}"
    )
    print(
        f"  move answer p50/p95/p99 ms: {pct(latencies, 50):.0f} / {pct(latencies, 95):.0f} / {pct(latencies, 99):.0f}"
    )
    for name, values in (("same process as the mover", same), ("the other process", other)):
        if values:
            print(
                f"  move -> board, tablets on {name}: {len(values)} events, p50/p95/p99 "
                f"{pct(values, 50):.0f} / {pct(values, 95):.0f} / {pct(values, 99):.0f} ms"
            )
    print(
        f"  events with the board: {with_board}/{events}; tablets whose last version is not "
        f"the game's: {missing}"
    )
    table_bytes = {t["game"]: sum(sizes.get(push.table_channel(t["game"]), [])) for t in tables}
    group_bytes = sum(sum(v) for k, v in sizes.items() if k.startswith("kavet:group:"))
    total = sum(table_bytes.values()) + group_bytes
    print(
        f"  Redis messages: {sum(len(v) for v in sizes.values())}, {total / 1024:.0f} KiB; "
        f"per move {total / max(1, moves) / 1024:.1f} KiB (tables {sum(table_bytes.values()) / max(1, moves) / 1024:.1f}, groups {group_bytes / max(1, moves) / 1024:.2f})"
    )
    spread = {t["game"] for t in tables[:n_spread]}
    subs = {}
    for t in tables:
        subs.setdefault(numsub.get(push.table_channel(t["game"]), 0), []).append(t["game"])
    print(
        "  processes subscribed per table channel (PUBSUB NUMSUB): "
        + ", ".join(f"{n}: {len(g)} tables" for n, g in sorted(subs.items()))
    )
    for index, port in enumerate(ports):
        held = {g for (g, _p), i in placement.items() if i == index}
        heard = sum(table_bytes[g] for g in held)
        print(
            f"  process on port {port}: streams of {len(held)} tables ({len(held & spread)} "
            f"spread); receives {heard / max(1, moves) / 1024:.1f} KiB per move of the site "
            f"(the one channel of before: {total / max(1, moves) / 1024:.1f} KiB, every "
            f"message of the site)"
        )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--listen":
        listener_process()
    else:
        main()
