"""The table's board, rendered once per version for all its seats, and what the seats share.

A move made from a tablet sends every other tablet of the table its new board in the push
itself (`push_board`, filled in per seat by its stream: `seat_board`, games.stream); any other
change (a computer player, a time limit, a pause) says only "version N" (games.push), and the
tablet asks for its board with its poll request. All of it is kept in Django's
cache (Redis in production, so shared by every web process; in-process memory in the embedded
default), keyed by the version, so a new version is simply a new key and nothing is ever
invalidated by hand:

- **What a table's seats share** at one version (`shared_moves`, `shared_value`): the recent
  moves (the history, the news, the ruling all read them), their sentences and the history's
  rendered list in each language.
- **The table's board** (`shared_board_key`): the HTMX board of `table` as every seat sees it
  alike (the players and their cards, the cards on the table, the history, the ruling, the
  countdown, the end's ranking), rendered once per version, status, deadline and language from
  the table's context with no seat (selectors.table_context(seat=None)), by the first request
  that needs it (most often the mover's own answer; the others asking at that moment wait for
  it, `_once`). Where a seat's board differs it holds marks (`MARKS`).
- **A seat's own parts** (`seat_key`): its "whose turn" line, its held cards and its move form
  (what its legal moves open), whether it may tap the table's cards, whether it is its turn:
  rendered once per version and seat from selectors.seat_context. Keyed by the seat, so one
  seat's own parts are never put into another seat's board.

Per request (`assemble`, `fill`): the seat's own parts into the marks, its row and its place in
the ranking marked "me", what is new to this tablet since the version it saw, its poll token
(per seat and user), the CSRF token (per browser), the server's clock, the seconds left on a
countdown, and for the mover's answer that its move was applied. A practice game (the coach,
one tablet) is rendered whole, as before.
"""

from __future__ import annotations

import re
import time
from contextvars import ContextVar
from dataclasses import dataclass
from html import escape as html_escape
from typing import Any
from urllib.parse import quote

from django.core.cache import cache
from django.db import connections, router
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.utils.translation import get_language

from kavet_site.prepared import Columns, Statement

from . import board as boards
from . import push
from .models import Game, Move, Seat

# Boards are asked for within seconds of their version's push; a version lives long enough.
TTL = 120
# Stand-ins for what differs between two requests of one viewer (letters and digits only, so
# the template's escaping leaves them as they are).
CSRF_MARK = "kvcsrf0mark0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6"
NOW_MARK = "kvnow0mark0c1d2e3f4"
LEFT_MARK = "kvleft0mark0d1e2f3a4"
POLL_MARK = "kvpoll0mark0e1f2a3b4"
# The shared board's stand-ins for what each seat sees of its own (its turn, its form, its row
# of players marked "me", its cards to tap) and of its own tablet (what is new since its version).
WHO_MARK = "kvwho0mark0f1a2b3c4"
ACTIONS_MARK = "kvact0mark0a1b2c3d4"
TURN_MARK = "kvturn0mark0b1c2d3e4"
DISABLED_MARK = "kvdis0mark0c1d2e3f4"
NEWS_MARK = "kvnews0mark0d1e2f3a4"
ME_MARK = "kvme0mark0e1f2a3b4s"
APPLIED_MARK = "kvapp0mark0f1a2b3c4"  # the mover's own answer: its move applied
MARKS = {
    "applied": APPLIED_MARK,
    "whose_turn": WHO_MARK,
    "actions": ACTIONS_MARK,
    "my_turn": TURN_MARK,
    "disabled": DISABLED_MARK,
    "news": NEWS_MARK,
    "me": ME_MARK,
}
# How many sentences of recent play the screen reader hears.
NEWS_LINES = 5
# How many moves the history (one tap away) and the ruling panel look back over: the shared
# moves' key is made of it here, and games.selectors reads them with it.
HISTORY_MOVES = 40


# While a board is built by board_response: what one get_many found, and what is to be set in
# one set_many (a Redis round trip each, rather than one per value).
_batch: ContextVar[dict | None] = ContextVar("kavet_board_batch", default=None)


def _cached(key: str, compute, ttl: int):
    batch = _batch.get()
    if batch is not None and key in batch["keys"]:
        value = batch["got"].get(key)
        if value is None:
            value = compute()
            batch["put"][key] = value
        return value
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, ttl)
    return value


@dataclass(frozen=True)
class RecentMove:
    """What the table page reads of a move (its number and its events), cacheable."""

    number: int
    events: list


def _game_key(game: Game, version: int | None = None) -> str:
    # The creation time too: a game id reused (a database rebuilt, a test run after another on
    # the same Redis) never finds the boards of the game that had it before.
    created = game.created_at.timestamp() if game.created_at else 0
    version = game.version if version is None else version
    return f"{game.pk}.{created:.6f}.{version}.{game.status}"


def _moves_key(game: Game, limit: int, version: int | None = None) -> str:
    return f"kv:table:moves:{_game_key(game, version)}:{limit}"


def _shared_key(game: Game, name: str, version: int | None = None) -> str:
    return f"kv:table:{name}:{_game_key(game, version)}"


def shared_moves(game: Game, limit: int) -> list[RecentMove]:
    """The last `limit` moves of the game (oldest first), read once per version of the table.

    Moves are append-only and each bumps the version (games.services), so a version's list
    never changes, and it is the previous version's list with the moves after it: when that one
    is still cached, only the new moves are read (one row, not `limit`). That is the common
    case: the move's answer is the first to ask for a version's list (and, for a push that
    says only the version, the other seats' fetches ask at the same moment)."""

    def read() -> list[RecentMove]:
        previous = None
        if game.version > 0:
            before = _moves_key(game, limit, game.version - 1)
            batch = _batch.get()
            if batch is not None and before in batch["keys"]:
                previous = batch["got"].get(before)  # asked with the board (board_response)
            else:
                previous = cache.get(before)
        if previous is not None:
            after = previous[-1].number if previous else 0
            return (previous + _moves_after(game.pk, after))[-limit:]
        return _moves_last(game.pk, limit)

    return _cached(_moves_key(game, limit), read, TTL)


class _MovesRead(Statement):
    """The number and events of some of a game's moves, one statement written once per
    database, not an ORM query compiled per call: "after" (game, number), the moves after that
    number, oldest first; "last" (game, limit), the last `limit` moves, newest first."""

    def __init__(self, alias: str, kind: str) -> None:
        self.alias = alias
        q = connections[alias].ops.quote_name
        self.columns = Columns(alias, Move, "", ("number", "events"))
        self.number = self.columns.attnames.index("number")
        self.events = self.columns.attnames.index("events")
        number = q(Move._meta.get_field("number").column)
        self.sql = (
            f"SELECT {', '.join(self.columns.columns)} FROM {q(Move._meta.db_table)}"
            f" WHERE {q(Move._meta.get_field('game').column)} = %s"
        )
        if kind == "after":
            self.sql += f" AND {number} > %s ORDER BY {number}"
        else:
            self.sql += f" ORDER BY {number} DESC LIMIT %s"

    def read(self, params: list) -> list[RecentMove]:
        moves = []
        for row in self.fetch(params):
            values = self.columns.values(row)  # (the events' JSON decoded as the field does)
            moves.append(RecentMove(number=values[self.number], events=values[self.events]))
        return moves


def _moves_read(kind: str, params: list) -> list[RecentMove]:
    return _MovesRead.of(router.db_for_read(Move), kind).read(params)


def _moves_after(game_id: int, after: int) -> list[RecentMove]:
    """The game's moves after number `after`, oldest first (the common case of shared_moves:
    the one move of the new version)."""
    return _moves_read("after", [game_id, after])


def _moves_last(game_id: int, limit: int) -> list[RecentMove]:
    """The game's last `limit` moves, oldest first (shared_moves when the previous version's
    list is not stored: after a computer player's move or a time limit, which no page asked
    for, it was an ORM query compiled each time, 2 % of the web workers' CPU at 30 moves/s)."""
    moves = _moves_read("last", [game_id, limit])
    moves.reverse()
    return moves


def told_name(language: str) -> str:
    """The name of a version's sentences in one language (shared_told). Not "told.<language>",
    the list stored before with no names beside it: during a rolling deploy the processes of
    the code before and after share the cache, and neither reads the other's."""
    return f"told-named.{language}"


def shared_told(game: Game, name: str, recent: list[RecentMove], said, players) -> list:
    """The sentences of the recent moves, [(number, [line...])], once per version of the table
    (`name`: one per language), told with these `players`' names: the previous version's list,
    where still stored and told with the same names, gives those of the moves both share, so
    only the new move is told (`said(move)`), not the last forty again. Stored with the names
    it was told with (a seat given to a computer player renames it: then all are told again)."""
    players = tuple(players)

    def stored(key: str):
        batch = _batch.get()
        if batch is not None and key in batch["keys"]:
            value = batch["put"].get(key) or batch["got"].get(key)
        else:
            value = cache.get(key)
        return value if isinstance(value, tuple) and value[0] == players else None

    key = _shared_key(game, name)
    made = stored(key)
    if made is not None:
        return made[1]
    known = {}
    if game.version > 0:
        previous = stored(_shared_key(game, name, game.version - 1))
        known = dict(previous[1]) if previous is not None else {}
    told = [(m.number, known[m.number] if m.number in known else said(m)) for m in recent]
    batch = _batch.get()
    if batch is not None and key in batch["keys"]:
        batch["put"][key] = (players, told)
    else:
        cache.set(key, (players, told), TTL)
    return told


def shared_value(game: Game, name: str, compute):
    """A value every seat of the table shares at this version (the moves' sentences...)."""
    return _cached(_shared_key(game, name), compute, TTL)


def _deadline(game: Game) -> float | None:
    """The game's time limit as seconds since the epoch (its countdown's end), if it has one."""
    return game.timer_deadline.timestamp() if game.timer_deadline else None


def _due(game: Game) -> float:
    """When the table's next move falls due (Game.next_due_at; the board's data-due), or 0."""
    due = game.next_due_at
    return due.timestamp() if due else 0


def shared_board_key(game: Game) -> str:
    """The board every seat of the table sees at one version/status/deadline/due moment, in
    one language."""
    return (
        f"kv:board:shared:{_game_key(game)}:{_deadline(game) or 0:.3f}:{_due(game):.3f}:"
        f"{get_language()}"
    )


def seat_key(game: Game, seat: Seat) -> str:
    """One seat's own parts of the board at one version/status, in one language."""
    return f"kv:board:seat:{_game_key(game)}:{seat.pk}.{seat.position}:{get_language()}"


def cacheable(game: Game) -> bool:
    # Practice games carry the coach (games.tutorial), and no other tablet shares them.
    return game.kind != Game.Kind.PRACTICE and bool(game.state)


# Renders of the board's text, by kind ("shared", "seat", "whole"): what the tests count.
renders: dict[str, int] = {"shared": 0, "seat": 0, "whole": 0}


def _render(kind: str, render, ctx: dict, *request: HttpRequest) -> str:
    """`render` (games.board's: the board's markup in Jinja2) of `ctx`, counted by `kind`."""
    renders[kind] += 1
    return str(render(ctx, *request))


def board_response(
    request: HttpRequest,
    *,
    game: Game,
    seat: Seat,
    since: int | None,
    token: str,
    build,
    shared,
    own,
    applied: bool = False,
    others=None,
) -> HttpResponse:
    """The HTMX board of this seat: the table's board of this version (`shared()`: the table's
    context with no seat, rendered once per version and language for every seat) with this
    seat's own parts (`own()`: selectors.seat_context, rendered once per version and seat) and
    this request's (its poll token, "since", CSRF token, clock, countdown) filled in.
    `build()`: the whole context of this seat, for a board that is not shared (practice).
    `applied`: the answer to this seat's own move, applied (the mover's board of the version).
    `others`: for that answer, [(seat, its selectors.seat_context)] of the table's other
    tablets: their own parts are made here too, and the board goes out with the move's push
    (`push_board`), so none of them fetches it."""
    if not cacheable(game):
        return HttpResponse(_render("whole", boards.render_board, build(), request))
    board_k, seat_k = shared_board_key(game), seat_key(game, seat)
    language = get_language()
    parts = [_moves_key(game, HISTORY_MOVES)] + [
        _shared_key(game, name) for name in (told_name(language), f"history.{language}")
    ]
    if game.version > 0:
        # What shared_moves builds this version's list from when it is not stored yet (the
        # mover's answer, the first to ask): in the same round trip.
        parts.append(_moves_key(game, HISTORY_MOVES, game.version - 1))
        parts.append(_shared_key(game, told_name(language), game.version - 1))
    got = cache.get_many([board_k, seat_k, *parts])
    board, mine = got.get(board_k), got.get(seat_k)
    pushing = others is not None and push.holding(game.pk, game.version)
    pushed: dict | None = None
    if board is None:

        def make() -> tuple[dict, dict]:
            # Most often the mover's answer: its own parts, and the other seats' ones its push
            # carries, are stored with the board, one round trip to Redis for all it made.
            nonlocal mine, pushed
            made_board, made = _shared_board(request, game, shared, got, parts, language)
            if mine is None:
                mine = made[seat_k] = _seat_parts(own())
            if pushing:
                pushed = push_board(game, made_board, seat, mine, others, made)
            return made_board, made

        if pushing:
            # The mover's answer: its push is held until this board is made (games.push.held),
            # so no other tablet has heard of this version yet and none is rendering it: no
            # lock to take (two round trips to Redis), the board made here and stored.
            board, made = make()
            cache.set_many({**made, board_k: board}, TTL)
        else:
            board = _once(board_k, make)
    if mine is None:
        mine = _seat_parts(own())
        cache.set(seat_k, mine, TTL)
    if pushing:
        if pushed is None:  # the board was made before (a second answer at this version)
            pushed = push_board(game, board, seat, mine, others)
        push.attach_board(game_id=game.pk, version=game.version, board=pushed)
    html = assemble(board, mine, seat.position, since, token, applied=applied)
    return HttpResponse(fill(html, request, game))


def push_board(
    game: Game, board: dict, seat: Seat, mine: dict, others, store: dict | None = None
) -> dict:
    """The table's board at this version as its push carries it (games.push.attach_board):
    the shared board, and the own parts of every seat with a tablet by position (the mover's,
    `mine`, and each of `others`: [(seat, its seat_context)], made here and cached: into
    `store`, the caller's one set_many, else at once), in one language. A seat's stream fills
    in its own seat only (`seat_board`)."""
    seats = {str(seat.position): mine}
    made = {} if store is None else store
    for other, ctx in others():
        seats[str(other.position)] = made[seat_key(game, other)] = _seat_parts(ctx)
    if made and store is None:
        cache.set_many(made, TTL)  # a tablet that fetches after all finds its parts made
    return {"language": get_language(), "board": board, "seats": seats, "deadline": _deadline(game)}


def seat_board(
    pushed: dict, *, position: int, language: str, since: int | None, token: str, csrf: str
) -> str | None:
    """One seat's board from a push's board (`push_board`), for its stream: what its fetch
    would answer (what is new since `since`, its poll token, a CSRF token of its browser, the
    clock now). None when the push has no board for this seat in this language (the tablet
    then fetches it)."""
    try:
        mine = pushed["seats"].get(str(position))
        if mine is None or pushed["language"] != language:
            return None
        html = assemble(pushed["board"], mine, position, since, token)
        return fill_in(html, csrf, pushed["deadline"])
    except (KeyError, TypeError, AttributeError, ValueError):
        return None  # not a board this code made: the tablet fetches


# How long a board's other seats wait for the one rendering it (they ask at the same moment: the
# push goes out at the move's commit), before rendering it themselves.
WAIT = 0.25


def _once(key: str, make):
    """`make()` stored at `key`, made by one of the requests that miss it at the same moment:
    the others wait for it (a lock in the cache: Redis, shared by every web process). `make()`
    gives (value, {key: value} of what it computed on the way), all stored in one set_many."""
    lock = key + ":making"
    locked = cache.add(lock, 1, 5)
    if not locked:  # another request is making it: wait for it, then make it here after all
        until = time.monotonic() + WAIT
        while time.monotonic() < until:
            time.sleep(0.004)
            value = cache.get(key)
            if value is not None:
                return value
    try:
        value, made = make()
        cache.set_many({**made, key: value}, TTL)  # one round trip for all it made
    finally:
        if locked:
            cache.delete(lock)
    return value


def _shared_board(
    request, game: Game, shared, got: dict, parts: list, language: str
) -> tuple[dict, dict]:
    batch = {"keys": set(parts), "got": got, "put": {}}
    token = _batch.set(batch)
    try:
        ctx = shared()
    finally:
        _batch.reset(token)
    ctx.update(csrf_token=CSRF_MARK, now_ms=NOW_MARK, poll_token=POLL_MARK, marks=MARKS)
    countdown = ctx.get("countdown")
    if countdown is not None:
        ctx["countdown"] = _marked_countdown(countdown)
    html = _render("shared", boards.render_board, ctx, request)
    told_key = _shared_key(game, told_name(language))
    told = (batch["put"].get(told_key) or got.get(told_key) or (None, []))[1]
    # The news of the table, each line with its move, so "new since" is told per tablet.
    if told:
        lines = _told_lines(told)
    else:  # no move yet: the game's first sentence, new to everyone
        lines = [(None, line) for line, _new in ctx.get("news") or []]
    # The parts computed on the way (moves, sentences, history) are stored with the board.
    return {"html": html, "news": lines}, batch["put"]


def _seat_parts(ctx: dict) -> dict:
    # Without the request: its context processors (the user, the messages...) are not read by
    # these parts, and are most of what rendering two small parts would cost.
    ctx["csrf_token"] = CSRF_MARK
    return {
        "whose_turn": _render("seat", boards.render_whose_turn, ctx),
        "actions": _render("seat", boards.render_actions, ctx),
        "my_turn": "1" if ctx["my_turn"] else "0",
        "disabled": "" if ctx["can_build"] else "disabled",
    }


def news(told: list, since: int | None) -> list[tuple[str, bool]]:
    """The last lines told at the table, each marked new when its move is after `since`."""
    return [(line, since is None or number > since) for number, line in _told_lines(told)]


def _told_lines(told: list) -> list[tuple[int, str]]:
    return [(number, line) for number, said in told for line in said][-NEWS_LINES:]


_ME = re.compile(ME_MARK + r"(\d+)x")


def assemble(
    board: dict, mine: dict, position: int, since: int | None, token: str, *, applied: bool = False
) -> str:
    """The table's board with this seat's own parts and this tablet's news and poll token."""
    told = "".join(
        f"<p>{html_escape(line)}</p>"  # django.utils.html.escape's text, without its lazy check
        for number, line in board["news"]
        if since is None or number is None or number > since
    )
    mine_html = board["html"]
    for mark, value in (
        (WHO_MARK, mine["whose_turn"]),
        (ACTIONS_MARK, mine["actions"]),
        (TURN_MARK, mine["my_turn"]),
        (DISABLED_MARK, mine["disabled"]),
        (NEWS_MARK, told),
        (POLL_MARK, quote(token)),  # the urlencode filter's text
        (APPLIED_MARK, "1" if applied else "0"),
    ):
        mine_html = mine_html.replace(mark, value)
    me = str(position)
    return _ME.sub(lambda m: " is-me" if m[1] == me else "", mine_html)


def _marked_countdown(countdown: Any):
    from dataclasses import replace

    return replace(countdown, seconds_left=LEFT_MARK)


def fill(html: str, request: HttpRequest, game: Game) -> str:
    """What the cached text leaves out, for this request: its CSRF token, the server's clock,
    the seconds left on the countdown (as selectors.table_context computes them)."""
    return fill_in(html, get_token(request), _deadline(game))


def fill_in(html: str, csrf: str, deadline: float | None) -> str:
    """`fill` from its values: a CSRF token of the viewer's browser, the countdown's deadline."""
    now = time.time()
    html = html.replace(CSRF_MARK, csrf).replace(NOW_MARK, str(int(now * 1000)))
    if LEFT_MARK in html:
        left = 0
        if deadline:
            left = max(0, int(deadline - now + 0.999))
        html = html.replace(LEFT_MARK, str(left))
    return html
