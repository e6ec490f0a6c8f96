"""A child's tablet: signs in as a child does, holds one event stream, and on each event does
exactly what the page's JavaScript does (static/js/table.js and static/js/live.js):

- a `table` event carrying a board newer than the one shown: shown as it is, no request;
- a `table` event without a board (a computer player's move, a pause), at or above the version
  shown: the board is fetched with the poll's request (GET the poller's URL, HX-Request,
  X-Kavet-Poll), one at a time, and again after a swap if the stream told of a newer one
  (catchUp);
- while its own move is on its way the events are held; once the answer (the new board) is in,
  the one event at its version is the move's own, a plain one still fetches, a newer pushed
  board is shown;
- the page polls about once a minute while its stream is up, not at all when the stream's
  `hello` says the server keeps watch over it (`watched`: games/stream.py's keeper, under
  ASGI), every 2 s while it is down, and at the moment the board names (data-due: a computer
  player's turn);
- a stream that drops reconnects after the server's `retry:` with Last-Event-ID, and its
  `hello` makes the page fetch once (resync); a `bye` stops the stream (the page polls).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import TYPE_CHECKING

from benchmarks.loadgen import http
from benchmarks.loadgen.board import STREAM, Board, version_of

if TYPE_CHECKING:
    from benchmarks.loadgen.school import School, TableRun

POLL_FAST, POLL_SLOW = 2.0, 60.0
FLASH = re.compile(rb'class="news-flash[^"]*"[^>]*>([^<]*)<')
RETRY = 2.0  # the server's `retry:` (games.stream.RETRY_MS)
HTMX = {"HX-Request": "true"}
POLL_HEADERS = {"HX-Request": "true", "X-Kavet-Poll": "1"}


class Tablet:
    def __init__(self, school: School, table: TableRun, seat: dict) -> None:
        self.school, self.table, self.seat = school, table, seat
        self.position: int = seat["position"]
        self.cookies: dict[str, str] = dict(seat.get("cookies") or {})
        self.headers = {"X-Forwarded-For": table.address}
        self.body = b""
        self._board: Board | None = None
        self.shown = -1
        self.heard = -1
        self.moving = False
        self.held: list[tuple[int, bytes | None]] = []
        self.polling = False
        self.poll_at = 0.0
        self.stream_path = ""
        self.last_id: str | None = None
        self.stream_up = False
        self.watched = False  # the hello said the server keeps watch: no safety-net poll
        self.says_hello = False
        self.writer = None
        self.tasks: list[asyncio.Task] = []

    # --- requests through the school's one pool --------------------------------------------

    async def _get(self, path: str, headers: dict | None = None) -> http.Response:
        r = await self.school.pool.request(
            "GET", path, cookies=self.cookies, headers={**self.headers, **(headers or {})}
        )
        self._keep(r)
        return r

    async def _post(self, path: str, form: dict, headers: dict | None = None) -> http.Response:
        csrf = self.cookies.get("csrftoken", "")
        r = await self.school.pool.request(
            "POST",
            path,
            cookies=self.cookies,
            headers={**self.headers, "X-CSRFToken": csrf, **(headers or {})},
            form=form,
        )
        self._keep(r)
        return r

    def _keep(self, r: http.Response) -> None:
        for k, v in r.cookies().items():
            if v:
                self.cookies[k] = v
            else:
                self.cookies.pop(k, None)

    # --- signing in: class code, name, three pictures ----------------------------------------

    async def sign_in(self) -> None:
        code = self.table.code
        r = await self._get("/tablet/")
        if r.status != 200 or b'name="code"' not in r.body:
            raise RuntimeError(f"class code page: {r.status}")
        r = await self._post("/tablet/", {"code": code})
        if r.status != 302:
            raise RuntimeError(f"class code refused: {r.status}")
        r = await self._get("/tablet/")
        link = f'href="/tablet/student/{self.seat["student"]}/"'.encode()
        if r.status != 200 or link not in r.body:
            raise RuntimeError(f"names page without this child: {r.status}")
        path = f"/tablet/student/{self.seat['student']}/"
        r = await self._get(path)
        so_far: list[int] = []
        for pick in self.seat["pictures"]:
            r = await self._post(path, {"so_far": "-".join(map(str, so_far)), "pick": str(pick)})
            so_far.append(pick)
        if r.status != 302 or "sessionid" not in self.cookies:
            raise RuntimeError(f"pictures refused: {r.status}")
        r = await self._get("/me/")
        if r.status != 200:
            raise RuntimeError(f"home: {r.status}")

    # --- the table page -------------------------------------------------------------------

    async def open_table(self) -> None:
        r = await self._get(f"/play/{self.table.game}/")
        if r.status != 200:
            raise RuntimeError(f"table page: {r.status}")
        m = STREAM.search(r.body.decode())
        self.stream_path = http.unescape(m.group(1)) if m else ""
        self._show(r.body, "page")

    @property
    def board(self) -> Board:
        if self._board is None:
            self._board = Board.read(self.body)
        return self._board

    def _show(self, body: bytes, how: str, version: int | None = None) -> None:
        """The board swapped in (htmx's outerHTML swap), then afterSwap: the poll rescheduled,
        and a fetch again if the stream told of a newer table (catchUp)."""
        v = version_of(body) if version is None else version
        before = self.shown
        self.body, self._board, self.shown = body, None, v
        if v > before:
            self.school.saw(self, before, v, how)
        self._schedule_poll()
        if self.heard > self.shown and not self.moving:
            self._later(0.05, self.poll)

    def _schedule_poll(self) -> None:
        if not self.stream_up:
            wait = POLL_FAST
        elif self.watched:
            wait = 1e9
        else:
            wait = self.school.slow_poll or 1e9
        due = self.board.due_ms if b"data-due" in self.body else 0
        if due:
            until = due / 1000 + 0.05 - time.time()
            wait = min(wait, until if until > 0 else 1.0)
        self.poll_at = time.monotonic() + wait

    def _later(self, delay: float, fn) -> None:
        asyncio.get_running_loop().call_later(delay, lambda: asyncio.ensure_future(fn()))

    async def poll(self) -> None:
        """htmx.trigger(poller, "kavet:poll"): one request at a time (a poll queued behind
        another dies with the poller the first one replaced; catchUp covers it)."""
        if self.polling or self.board.over or not self.school.running:
            return
        self.polling = True
        try:
            asked = self.shown
            r = await self._get(self.board.poller, POLL_HEADERS)
            if r.status == 200:
                # Against the board shown when it was asked: an event may have brought the same
                # board while the answer was on its way (a busy server).
                got = version_of(r.body)
                self.school.count(
                    "poll 200, "
                    + ("newer" if got > asked else "same version")
                    + (", the event was first" if asked < got <= self.shown else "")
                )
                self._show(r.body, "fetch")
            else:
                self.school.count(f"poll {r.status}")
                self._schedule_poll()
        except (OSError, TimeoutError, http.HTTPError, asyncio.IncompleteReadError) as exc:
            self.school.error(f"poll {type(exc).__name__}")
            self._schedule_poll()
        finally:
            self.polling = False
        if self.heard > self.shown and not self.moving:
            self._later(0.05, self.poll)

    async def poll_loop(self) -> None:
        while self.school.running:
            left = self.poll_at - time.monotonic()
            if left > 0:
                await asyncio.sleep(min(left, 1.0) if left > 1.0 else left)
                continue
            if self.board.over:
                return
            if not self.moving:
                await self.poll()
            self._schedule_poll()

    # --- the stream (live.js) -----------------------------------------------------------

    async def stream_loop(self) -> None:
        while self.school.running and self.stream_path:
            headers = dict(self.headers)
            if self.last_id is not None:
                headers["Last-Event-ID"] = self.last_id
            try:
                status, reader, writer, chunked = await http.open_stream(
                    self.school.host,
                    self.school.port,
                    self.stream_path,
                    cookies=self.cookies,
                    headers=headers,
                )
            except (OSError, TimeoutError, http.HTTPError, asyncio.IncompleteReadError) as exc:
                self.school.error(f"stream open {type(exc).__name__}")
                await asyncio.sleep(RETRY)
                continue
            self.writer = writer
            bye = False
            try:
                if status != 200:
                    self.school.error(f"stream status {status}")
                    if status == 403:
                        return
                    # An EventSource refused (503: the admission gate) is closed, not retried:
                    # live.js tells "stream-down" (table.js polls every 2 s) and opens the
                    # stream again after RETRY_AFTER (30 s).
                    if self.stream_up:
                        self.stream_up = self.watched = False
                        self._schedule_poll()
                    await asyncio.sleep(30)
                    continue
                async for ev in http.events(reader, chunked):
                    if ev.id is not None:
                        self.last_id = ev.id
                    if ev.name == "hello":
                        self.school.hello(self)
                        if self.says_hello:
                            self.school.count("resync")
                            self.changed(None, None)  # kavet:changed {resync: true}
                        self.says_hello = True
                        watched = json.loads(ev.data or "{}").get("watched") is True
                        if not self.stream_up or watched != self.watched:
                            self.stream_up, self.watched = True, watched
                            self._schedule_poll()
                    elif ev.name == "table":
                        data = json.loads(ev.data)
                        board = data.get("board")
                        self.changed(int(data["version"]), board.encode() if board else None)
                    elif ev.name == "bye":
                        bye = True
                        break
            except (OSError, http.HTTPError, asyncio.IncompleteReadError, ValueError) as exc:
                if self.school.running and not isinstance(exc, ConnectionResetError):
                    self.school.error(f"stream {type(exc).__name__}")
            finally:
                writer.close()
                self.writer = None
            if bye:
                self.school.count("bye")
                self.stream_up = self.watched = False
                return
            if self.school.running:
                await asyncio.sleep(RETRY)  # EventSource reconnects after `retry:`

    def drop(self) -> None:
        """The Wi-Fi drops this tablet's stream: the stream loop reconnects after `retry:`."""
        if self.writer is not None:
            self.school.count("stream dropped")
            self.writer.transport.abort()

    def changed(self, version: int | None, board: bytes | None) -> None:
        """table.js's kavet:changed."""
        if version is not None:
            self.heard = max(self.heard, version)
        if self.moving:
            self.held.append((-1 if version is None else version, board))
            return
        if board is not None:
            if version > self.shown:
                self.school.count("board in the event")
                self._show(board, "push", version)
            return
        if version is None or version >= self.shown:
            asyncio.ensure_future(self.poll())

    # --- a move -------------------------------------------------------------------------

    async def move(self, kind: str, form: dict) -> None:
        self.moving, self.held = True, []
        sent = time.monotonic()
        self.table.pending[self.position] = sent
        try:
            r = await self._post(f"/play/{self.table.game}/move/", form, HTMX)
        except (OSError, TimeoutError, http.HTTPError, asyncio.IncompleteReadError) as exc:
            self.moving = False
            self.school.error(f"move {type(exc).__name__}")
            return
        answered = time.monotonic()
        seen = int(form["seen_version"])
        v = version_of(r.body)
        applied = r.status == 200 and b'data-applied="1"' in r.body
        why = ""
        if not applied:
            m = FLASH.search(r.body)
            why = m.group(1).decode(errors="replace") if m else ""
        self.school.moved(self, kind, seen, v, applied, sent, answered, r.status, why)
        self.moving = False
        if r.status in (200, 422):
            self._show(r.body, "answer")
        # afterRequest: the move's own event set aside, a plain one fetches, a newer board shows.
        held, self.held = self.held, []
        if held:
            own = -1
            for i, (ver, board) in enumerate(held):
                if (
                    applied
                    and ver == self.shown
                    and (own < 0 or (board is not None and held[own][1] is None))
                ):
                    own = i
            if own >= 0:
                held.pop(own)
            plain = any(board is None for _v, board in held)
            newest = max(
                ((ver, b) for ver, b in held if b is not None and ver > self.shown),
                default=None,
            )
            if newest is not None:
                self.school.count("board in the event")
                self._show(newest[1], "push", newest[0])
            if plain:
                self._later(0.05, self.poll)
        if self.heard > self.shown:
            self._later(0.05, self.poll)
