"""The table's board, rendered once per version and viewer, and what a table's seats share.

A move makes every other tablet of the table fetch its new board (the push channel says
"version N", games.push; the tablet asks with its poll request). Two caches, both in Django's
cache (Redis in production, so shared by every web process; in-process memory in the embedded
default), both keyed by the version, so a new version is simply a new key and nothing is ever
invalidated by hand:

- **What a table's seats share** at one version (`shared_moves`, `shared_value`): the recent
  moves (the history, the news, the ruling all read them), their sentences and the history's
  rendered list in each language. These are the same for
  every seat (the history shows no one's hand), so the first board of the version (most often
  the mover's own answer) makes them and the other seats' fetches do not. The history was most
  of a board's rendering (40 moves: several ms) and grows with the game.
- **The rendered board of one viewer** (`board_response`): the HTMX board of `table` for one
  seat of one user, at one version, status, language and "since" (which news is new to this
  tablet). A seat sees its own hand (engine.seat_view, R1.5): the key names the seat and the
  user, so one seat's board is never served to another. What changes between two requests of
  the same viewer is left out of the cached text and filled in per request: the CSRF token (per
  browser, not per user), the server's clock (data-now) and the seconds left on a countdown.

Why a viewer's board is asked twice at one version: a child's second tablet, the stream's
fallback poll, a reconnect after a Wi-Fi gap, a double fetch when two changes come close.
"""

from __future__ import annotations

import hashlib
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import get_language

from .models import Game, Move, Seat

# Boards are asked for within seconds of their version's push; a version lives long enough.
TTL = 120
# Stand-ins for what differs between two requests of one viewer (letters and digits only, so
# the template's escaping leaves them as they are).
CSRF_MARK = "kvcsrf0mark0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6"
NOW_MARK = "kvnow0mark0c1d2e3f4"
LEFT_MARK = "kvleft0mark0d1e2f3a4"


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


def _shared_key(game: Game, name: str) -> str:
    return f"kv:table:{name}:{_game_key(game)}"


def shared_moves(game: Game, limit: int) -> list[RecentMove]:
    """The last `limit` moves of the game (oldest first), read once per version of the table.

    Moves are append-only and each bumps the version (games.services), so a version's list
    never changes, and it is the previous version's list with the moves after it: when that one
    is still cached, only the new moves are read (one row, not `limit`). That is the common
    case of a push: the move's answer and the other seats' fetches all ask at once, before any
    of them has stored this version's list, and each would read all `limit` moves."""

    def read() -> list[RecentMove]:
        previous = (
            cache.get(_moves_key(game, limit, game.version - 1)) if game.version > 0 else None
        )
        rows = Move.objects.filter(game=game).only("events", "number")
        if previous is not None:
            after = previous[-1].number if previous else 0
            new = [
                RecentMove(number=m.number, events=m.events)
                for m in rows.filter(number__gt=after).order_by("number")
            ]
            return (previous + new)[-limit:]
        moves = [
            RecentMove(number=m.number, events=m.events) for m in rows.order_by("-number")[:limit]
        ]
        moves.reverse()
        return moves

    return _cached(_moves_key(game, limit), read, TTL)


def shared_value(game: Game, name: str, compute):
    """A value every seat of the table shares at this version (the moves' sentences...)."""
    return _cached(_shared_key(game, name), compute, TTL)


def viewer_key(request: HttpRequest, game: Game, seat: Seat, since: int | None) -> str:
    """One seat of one user, at one version/status/deadline, in one language, since one version."""
    deadline = game.timer_deadline.timestamp() if game.timer_deadline else 0
    raw = (
        f"{_game_key(game)}|{deadline:.3f}|seat {seat.pk}.{seat.position}|user {request.user.pk}"
        f"|{get_language()}|since {since}|htmx {bool(request.htmx)}"
    )
    return "kv:board:" + hashlib.sha256(raw.encode()).hexdigest()


def cacheable(game: Game) -> bool:
    # Practice games carry the coach (games.tutorial), and no other tablet shares them.
    return game.kind != Game.Kind.PRACTICE and bool(game.state)


def board_response(
    request: HttpRequest, *, game: Game, seat: Seat, since: int | None, build
) -> HttpResponse:
    """The HTMX board for this viewer: from the cache when this viewer's board of this version
    was rendered already, else `build()` (the table's context) rendered and kept."""
    template = "games/table.html#board"
    if not cacheable(game):
        return HttpResponse(render_to_string(template, build(), request))
    from games.selectors import HISTORY_MOVES

    key = viewer_key(request, game, seat, since)
    language = get_language()
    # (Not the previous version's moves: shared_moves asks for them only when these are missing.)
    shared = [_moves_key(game, HISTORY_MOVES)] + [
        _shared_key(game, name)
        for name in ("read-aloud", f"told.{language}", f"history.{language}")
    ]
    got = cache.get_many([key, *shared])
    html = got.get(key)
    if html is None:
        batch = {"keys": set(shared), "got": got, "put": {}}
        token = _batch.set(batch)
        try:
            ctx = build()
        finally:
            _batch.reset(token)
        ctx["csrf_token"] = CSRF_MARK
        ctx["now_ms"] = NOW_MARK
        countdown = ctx.get("countdown")
        if countdown is not None:
            ctx["countdown"] = _marked_countdown(countdown)
        html = render_to_string(template, ctx, request)
        cache.set_many({key: html, **batch["put"]}, TTL)
    return HttpResponse(fill(html, request, game))


def _marked_countdown(countdown: Any):
    from dataclasses import replace

    return replace(countdown, seconds_left=LEFT_MARK)


def fill(html: str, request: HttpRequest, game: Game) -> str:
    """What the cached text leaves out, for this request: its CSRF token, the server's clock,
    the seconds left on the countdown (as selectors.table_context computes them)."""
    now = timezone.now()
    html = html.replace(CSRF_MARK, get_token(request)).replace(
        NOW_MARK, str(int(now.timestamp() * 1000))
    )
    if LEFT_MARK in html:
        left = 0
        if game.timer_deadline:
            left = max(0, int((game.timer_deadline - now).total_seconds() + 0.999))
        html = html.replace(LEFT_MARK, str(left))
    return html
