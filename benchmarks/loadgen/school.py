"""The school at play: every tablet signed in and streaming, the tables playing at a Poisson rate,
the teachers' live views and the class boards open on some class games, a few streams dropping.

One asyncio loop, one `http.Pool` for every request; what each tablet and page saw is recorded
and read after each window (`Window.result`).
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import quote

from benchmarks.loadgen import http
from benchmarks.loadgen.board import Mix, choose
from benchmarks.loadgen.tablet import POLL_SLOW, Tablet

# static/js/kavet.js: while a page's stream is up, its timer poll goes out only when nothing was
# asked for STREAM_POLL_EVERY (an event's fetch counts); without a stream, at every tick.
STREAM_POLL_EVERY = 15.0

LIVE_GET = re.compile(r'id="live"[^>]*?hx-get="([^"]+)"', re.S)
LIVE_TABLE_GET = re.compile(r'id="live"[^>]*?data-table-url="([^"]+)"', re.S)
LIVE_MARK = re.compile(r'id="live"[^>]*?data-mark="([^"]*)"', re.S)
TABLE_MARK = re.compile(r'data-table="(\d+)" data-mark="([^"]*)"')
BOARD_GET = re.compile(r'id="board-join-tables"[^>]*?hx-get="([^"]+)"', re.S)


@dataclass
class TableRun:
    game: int
    session: int
    code: str
    address: str
    rules: object  # games.engine.rules.RuleSet
    bots: list[int]
    tablets: list[Tablet] = field(default_factory=list)
    pending: dict[int, float] = field(default_factory=dict)
    rng: random.Random = field(default_factory=random.Random)


class Watcher:
    """A teacher's live view (every 2.5 s and on each event) or a class board on the projector
    (every 2 s and on each event): htmx's hx-get of the swapped element, one at a time, the
    newest trigger kept while one is in flight; the class game's stream is read for its events.
    While the stream is up, the timer's tick is held back unless nothing was asked for 15 s
    (static/js/kavet.js, STREAM_POLL_EVERY): the events bring the news. On the live view an
    event that names its table asks for that table alone (data-table-url, kavet.js)."""

    def __init__(self, school: School, entry: dict, kind: str) -> None:
        self.school, self.kind = school, kind
        self.session = entry["session"]
        self.cookies = dict(entry["teacher"]) if kind == "live" else {}
        self.headers = {"X-Forwarded-For": entry["address"]}
        if kind == "live":
            self.page, self.every, self.pattern = (
                f"/teacher/class-games/{self.session}/",
                2.5,
                LIVE_GET,
            )
        else:
            self.page, self.every, self.pattern = (
                f"/board/session/{self.session}/",
                2.0,
                BOARD_GET,
            )
            # The class board is shown on the teacher's computer: the teacher's session.
            self.cookies = dict(entry["teacher"])
        self.get = ""
        self.table_get = ""  # the live view's one-table URL (…/tables/0/)
        # What the live view shows (data-mark: the class game's, each table's in page order),
        # sent as its poll's v as kavet.js makes it (None: the page has no marks).
        self.mark: str | None = None
        self.marks: dict[int, str] = {}
        self.tables_busy: set[int] = set()
        self.tables_again: set[int] = set()
        self.busy = False
        self.again = False
        self.up = False  # the stream said hello and has not ended since
        self.asked = 0.0  # when this page last asked (monotonic)

    async def open(self) -> None:
        r = await self.school.pool.request(
            "GET", self.page, cookies=self.cookies, headers=self.headers
        )
        if r.status != 200:
            raise RuntimeError(f"{self.kind} page: {r.status}")
        m = self.pattern.search(r.body.decode())
        self.get = http.unescape(m.group(1)) if m else ""
        m = LIVE_TABLE_GET.search(r.body.decode()) if self.kind == "live" else None
        self.table_get = http.unescape(m.group(1)) if m else ""
        self.read_marks(r.body.decode())

    def read_marks(self, page: str) -> None:
        """The marks of the live view as it was swapped in whole."""
        if self.kind != "live":
            return
        m = LIVE_MARK.search(page)
        self.mark = http.unescape(m.group(1)) if m else None
        self.marks = {int(g): http.unescape(v) for g, v in TABLE_MARK.findall(page)}

    def read_table_marks(self, html: str) -> None:
        """The marks of sections swapped in alone (a one-table fetch, the poll's sections)."""
        for g, v in TABLE_MARK.findall(html):
            if int(g) in self.marks:
                self.marks[int(g)] = http.unescape(v)

    def shown_get(self) -> str:
        """The poll's URL with v made from what the page shows (static/js/kavet.js)."""
        if self.mark is None or "v=" not in self.get:
            return self.get
        shown = self.mark + ":" + ".".join(self.marks.values())
        return re.sub(r"([?&]v=)[^&#]*", lambda m: m.group(1) + quote(shown, safe=""), self.get)

    async def fetch_table(self, game: int) -> None:
        """htmx.ajax for one table's section: one at a time per table, the newest kept."""
        if game in self.tables_busy:
            self.tables_again.add(game)
            return
        self.tables_busy.add(game)
        try:
            while True:
                self.tables_again.discard(game)
                r = await self.school.pool.request(
                    "GET",
                    self.table_get[: -len("0/")] + f"{game}/",
                    cookies=self.cookies,
                    headers={**self.headers, "HX-Request": "true"},
                )
                self.school.count(f"{self.kind} table {r.status}")
                if r.status == 200:
                    self.read_table_marks(r.body.decode())
                if game not in self.tables_again or not self.school.running:
                    break
        except (OSError, TimeoutError, http.HTTPError, asyncio.IncompleteReadError) as exc:
            self.school.error(f"{self.kind} table {type(exc).__name__}")
        finally:
            self.tables_busy.discard(game)

    async def fetch(self) -> None:
        if not self.get:
            return
        if self.busy:
            self.again = True
            return
        self.busy = True
        try:
            while True:
                self.again = False
                self.asked = time.monotonic()
                r = await self.school.pool.request(
                    "GET",
                    self.shown_get(),
                    cookies=self.cookies,
                    headers={**self.headers, "HX-Request": "true"},
                )
                if r.status == 200 and r.header("hx-reswap") == "none":
                    # The live view's tables out of date alone, each into its section (htmx's
                    # out-of-band swap; classgames.views.session_live): their new marks.
                    self.school.count(f"{self.kind} 200, tables")
                    self.read_table_marks(r.body.decode())
                elif r.status == 200:
                    self.school.count(f"{self.kind} {r.status}")
                    m = self.pattern.search(r.body.decode())
                    if m:
                        self.get = http.unescape(m.group(1))
                    self.read_marks(r.body.decode())
                else:
                    self.school.count(f"{self.kind} {r.status}")
                if not self.again or not self.school.running:
                    break
        except (OSError, TimeoutError, http.HTTPError, asyncio.IncompleteReadError) as exc:
            self.school.error(f"{self.kind} {type(exc).__name__}")
        finally:
            self.busy = False

    async def poll_loop(self) -> None:
        await asyncio.sleep(random.uniform(0, self.every))
        while self.school.running:
            if not self.up or time.monotonic() - self.asked >= STREAM_POLL_EVERY:
                await self.fetch()
            await asyncio.sleep(self.every)

    async def stream_loop(self) -> None:
        path = f"/push/session/{self.session}/"
        while self.school.running:
            try:
                status, reader, writer, chunked = await http.open_stream(
                    self.school.host,
                    self.school.port,
                    path,
                    cookies=self.cookies,
                    headers=self.headers,
                )
            except (OSError, TimeoutError, http.HTTPError) as exc:
                self.school.error(f"{self.kind} stream open {type(exc).__name__}")
                await asyncio.sleep(2)
                continue
            try:
                if status != 200:
                    self.school.error(f"{self.kind} stream status {status}")
                    await asyncio.sleep(30)
                    continue
                async for ev in http.events(reader, chunked):
                    if ev.name == "hello":
                        self.up = True
                        self.school.hello(self)
                    elif ev.name == "table":
                        import json

                        data = json.loads(ev.data)
                        if "game" in data:
                            self.school.watched(data["game"], data["game_version"])
                        if "game" in data and self.table_get:
                            asyncio.ensure_future(self.fetch_table(int(data["game"])))
                        else:
                            asyncio.ensure_future(self.fetch())
            except (OSError, http.HTTPError, asyncio.IncompleteReadError, ValueError):
                pass
            finally:
                self.up = False
                writer.close()
            if self.school.running:
                await asyncio.sleep(2)


class School:
    """Every tablet and page of the run, and what they saw."""

    def __init__(self, host: str, port: int, seeded: dict, *, pool_size: int, seed: int) -> None:
        from games.engine.rules import RuleSet

        self.host, self.port = host, port
        self.pool = http.Pool(host, port, size=pool_size)
        self.rng = random.Random(seed)
        self.running = True
        self.tables: list[TableRun] = []
        self.tablets: list[Tablet] = []
        self.watchers: list[Watcher] = []
        self.tasks: list[asyncio.Task] = []
        self.failed: list[tuple] = []  # (game, seat, signed in through the pages, why)
        self.hellos: set[int] = set()
        self.counts: Counter = Counter()
        self.errors: Counter = Counter()
        self.mix = Mix()
        self.slow_poll = POLL_SLOW  # table.js polls this often while its stream is up
        for i, t in enumerate(seeded["tables"]):
            run = TableRun(
                game=t["game"],
                session=t["session"],
                code=t["code"],
                address=t["address"],
                rules=RuleSet.from_dict(t["rules"]),
                bots=t["bots"],
                rng=random.Random(seed * 100_003 + i),
            )
            run.tablets = [Tablet(self, run, seat) for seat in t["seats"]]
            self.tables.append(run)
            self.tablets += run.tablets
        self.reset_window()

    # --- what the tablets tell -------------------------------------------------------------

    def reset_window(self) -> None:
        self.recording = False
        self.moves: list[dict] = []  # every move answered in the window
        self.seen: list[tuple[int, int, int, float, str]] = []  # (game, version, seat, t, how)
        self.teacher_seen: list[tuple[int, int, float]] = []
        self.kinds: Counter = Counter()

    def count(self, what: str) -> None:
        self.counts[what] += 1

    def error(self, what: str) -> None:
        self.errors[what] += 1

    def hello(self, who) -> None:
        self.hellos.add(id(who))

    def saw(self, tablet: Tablet, before: int, after: int, how: str) -> None:
        if not self.recording:
            return
        now = time.monotonic()
        game = tablet.table.game
        for v in range(max(before + 1, after - 50), after + 1):
            self.seen.append((game, v, tablet.position, now, how))

    def watched(self, game: int, version: int) -> None:
        if self.recording:
            self.teacher_seen.append((game, version, time.monotonic()))

    def moved(self, tablet, kind, seen, version, applied, sent, answered, status, why="") -> None:
        if not self.recording:
            return
        self.kinds[kind if applied else f"{kind} (refused {status}: {why[:50]})"] += 1
        self.moves.append(
            {
                "game": tablet.table.game,
                "seat": tablet.position,
                "seen": seen,
                "version": version,
                "applied": applied,
                "sent": sent,
                "answered": answered,
                "status": status,
            }
        )

    # --- starting the school ---------------------------------------------------------------

    async def start(
        self,
        *,
        signin: int,
        concurrency: int,
        live_share: float,
        board_share: float,
        seeded,
        log=print,
    ) -> dict:
        """Tablets signed in (the first `signin` through the pages; the others bring the session
        seeded for them), each table page opened, one stream per tablet; then the teachers'
        live views and the class boards of a share of the class games."""
        gate = asyncio.Semaphore(concurrency)
        t0 = time.monotonic()
        failures: Counter = Counter()

        async def one(i: int, tablet: Tablet) -> None:
            async with gate:
                try:
                    if i < signin:
                        tablet.cookies = {}
                        await tablet.sign_in()
                    await tablet.open_table()
                except (RuntimeError, OSError, TimeoutError, http.HTTPError) as exc:
                    failures[str(exc)[:60]] += 1
                    self.failed.append((tablet.table.game, tablet.position, i < signin, str(exc)))
                    return
                tablet.tasks.append(asyncio.ensure_future(tablet.stream_loop()))
                t1 = time.monotonic()
                while id(tablet) not in self.hellos and time.monotonic() - t1 < 30:
                    await asyncio.sleep(0.005)
                tablet.tasks.append(asyncio.ensure_future(tablet.poll_loop()))

        async def progress() -> None:
            while True:
                await asyncio.sleep(30)
                log(f"  ... {len(self.hellos)} streams open after {time.monotonic() - t0:.0f} s")

        ticker = asyncio.ensure_future(progress())
        await asyncio.gather(*(one(i, t) for i, t in enumerate(self.tablets)))
        ticker.cancel()
        signed_in = time.monotonic() - t0
        rng = random.Random(7)
        for entry in seeded["classes"]:
            kinds = []
            if rng.random() < live_share:
                kinds.append("live")
            if rng.random() < board_share:
                kinds.append("board")
            for kind in kinds:
                w = Watcher(self, entry, kind)
                try:
                    await w.open()
                except (RuntimeError, OSError, TimeoutError, http.HTTPError) as exc:
                    failures[f"{kind}: {exc}"[:60]] += 1
                    continue
                self.watchers.append(w)
                self.tasks.append(asyncio.ensure_future(w.stream_loop()))
                self.tasks.append(asyncio.ensure_future(w.poll_loop()))
        t2 = time.monotonic()
        while (
            len(self.hellos) < len(self.tablets) + len(self.watchers) and time.monotonic() - t2 < 20
        ):
            await asyncio.sleep(0.05)
        return {
            "seconds": time.monotonic() - t0,
            "signin_seconds": signed_in,
            "streams": len(self.hellos),
            "failures": dict(failures.most_common(5)),
            "n_failures": sum(failures.values()),
            "failed": self.failed[:5],
        }

    # --- a window of play --------------------------------------------------------------------

    async def play(self, *, rate: float, seconds: float, drops_per_s: float) -> float:
        """Every table plays for `seconds`, the school making `rate` tablet moves a second in
        all (each table a Poisson process of rate / tables); `drops_per_s` streams dropped a
        second (they reconnect). Returns the window's length."""
        tables = [t for t in self.tables if t.tablets]
        per_table = rate / max(1, len(tables))
        start = time.monotonic()
        until = start + seconds

        async def table_loop(t: TableRun) -> None:
            while True:
                wait = t.rng.expovariate(per_table)
                if time.monotonic() + wait >= until:
                    await asyncio.sleep(max(0.0, until - time.monotonic()))
                    return
                await asyncio.sleep(wait)
                # A child acts as soon as its board lets it: while no board at the table offers
                # a move (a computer's turn, a board on its way), the tick waits for one.
                ready = [tb for tb in t.tablets if not tb.moving and tb.board.moves]
                while not ready and time.monotonic() < until:
                    await asyncio.sleep(0.1)
                    ready = [tb for tb in t.tablets if not tb.moving and tb.board.moves]
                if not ready:
                    return
                leading = [tb for tb in ready if tb.board.moves & {"announce", "chwech"}]
                tablet = t.rng.choice(leading or ready)
                try:
                    kind, form = choose(tablet.board, t.rules, t.rng, self.mix)
                except LookupError:
                    continue
                asyncio.ensure_future(tablet.move(kind, form))

        async def drops() -> None:
            if drops_per_s <= 0:
                return
            while True:
                wait = self.rng.expovariate(drops_per_s)
                if time.monotonic() + wait >= until:
                    return
                await asyncio.sleep(wait)
                self.rng.choice(self.tablets).drop()

        self.recording = True
        await asyncio.gather(*(table_loop(t) for t in tables), drops())
        return time.monotonic() - start

    async def yardstick(self, until: float, out: list[float]) -> None:
        """benchmarks/urls.py's bare view ten times a second, on a connection of its own."""
        pool = http.Pool(self.host, self.port, size=1)
        while time.monotonic() < until:
            t0 = time.monotonic()
            try:
                await pool.request("GET", "/bench/bare")
                out.append((time.monotonic() - t0) * 1000)
            except (OSError, TimeoutError, http.HTTPError):
                pass
            await asyncio.sleep(max(0.0, 0.1 - (time.monotonic() - t0)))
        pool.close()

    async def teachers(self, seeded: dict, action: str) -> int:
        """Every teacher presses pause (or resume) on the class game's live view."""
        done = 0

        async def one(entry):
            nonlocal done
            try:
                r = await self.pool.request(
                    "POST",
                    f"/teacher/class-games/{entry['session']}/control/",
                    cookies=entry["teacher"],
                    headers={
                        "X-Forwarded-For": entry["address"],
                        "X-CSRFToken": entry["teacher"]["csrftoken"],
                    },
                    form={"action": action},
                )
                done += r.status in (200, 302)
            except (OSError, TimeoutError, http.HTTPError) as exc:
                self.error(f"{action} {type(exc).__name__}")

        gate = asyncio.Semaphore(32)

        async def gated(entry):
            async with gate:
                await one(entry)

        await asyncio.gather(*(gated(e) for e in seeded["classes"]))
        return done

    async def quiet(self, timeout: float = 20.0) -> None:
        """Until no tablet has a move or a fetch on its way (and 1 s more for the events)."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if not any(tb.moving or tb.polling for tb in self.tablets):
                await asyncio.sleep(1.0)
                if not any(tb.moving or tb.polling for tb in self.tablets):
                    return
            await asyncio.sleep(0.1)

    async def stop(self) -> None:
        self.running = False
        tasks = self.tasks + [task for tb in self.tablets for task in tb.tasks]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.pool.close()


def analyse(school: School) -> dict:
    """The window's figures from what the tablets recorded."""
    moves = school.moves
    answers = [(m["answered"] - m["sent"]) * 1000 for m in moves]
    origin = {(m["game"], m["version"]): m for m in moves if m["applied"]}
    boards, how = [], Counter()
    first: dict[tuple, tuple[float, str]] = {}
    for game, version, seat, t, kind in school.seen:
        first.setdefault((game, version, seat), (t, kind))
    for (game, version, seat), (t, kind) in first.items():
        m = origin.get((game, version))
        if m is not None and m["seat"] != seat:
            boards.append((t - m["sent"]) * 1000)
            how[kind] += 1
    teacher = []
    for game, version, t in school.teacher_seen:
        m = origin.get((game, version))
        if m is not None:
            teacher.append((t - m["sent"]) * 1000)
    doubled = len([m for m in moves if m["applied"]]) - len(origin)
    return {
        "answers": answers,
        "boards": boards,
        "board_how": dict(how),
        "teacher": teacher,
        "applied": len(origin),
        "answered": len(moves),
        "doubled_versions": doubled,
        "kinds": dict(school.kinds),
    }
