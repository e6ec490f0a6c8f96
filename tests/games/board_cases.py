"""Every render of the table's board, for every state of the table catalogue (games.catalogue):
what tests/games/test_board_precompiled.py checks against its goldens and
benchmarks/bench_board_render.py times.

For one state, in the active language, the cases are:

- "shared": the table's board as games.table_cache renders it once per version for all its
  seats (the table's context with no seat, the stand-in marks, an HTMX request);
- "whose_turn", "actions": each tablet's own parts (selectors.seat_context, no request), as
  table_cache renders them once per version and seat;
- "whole": each tablet's board rendered whole (a practice game, the answer to a refused move:
  with its flash), for HTMX; "news": its lines for the screen reader; "page": its whole page.

What changes from one run to the next (the clock, the countdown, the game's id, the CSRF token)
is set to fixed values, so a render is the same bytes in every run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory
from django_htmx.middleware import HtmxDetails

from games import catalogue, selectors, table_cache

NOW_MS = 1_700_000_000_000
GAME_ID = 4242
CSRF = "goldencsrftoken0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ"
# Names a template must escape (Django's way: ' is &#x27;), for the "odd" pass.
ODD_NAMES = {0: "Anna <b>", 1: "Bo'\"&", 2: "J&amp;de"}


@dataclasses.dataclass
class Case:
    kind: str  # shared, whose_turn, actions, whole, news, page
    seat: int | None
    ctx: dict[str, Any]
    request: Any


def request(htmx: bool):
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    req = RequestFactory().get("/", **headers)
    req.user = AnonymousUser()
    req.htmx = HtmxDetails(req)
    return req


def _fixed(ctx: dict[str, Any], game) -> dict[str, Any]:
    if isinstance(ctx.get("now_ms"), int):
        ctx["now_ms"] = NOW_MS
    if ctx.get("due_ms"):
        ctx["due_ms"] = NOW_MS + 5_000
    countdown = ctx.get("countdown")
    if countdown is not None:
        left = countdown.seconds_left if isinstance(countdown.seconds_left, str) else 57
        ctx["countdown"] = dataclasses.replace(
            countdown, deadline_ms=NOW_MS + 57_000, seconds_left=left
        )
    return ctx


@contextmanager
def cases(name: str, *, odd: bool = False) -> Iterator[list[Case]]:
    """The renders of state `name` in the active language (`odd`: with names to escape)."""
    entry = catalogue.states()[name]
    with catalogue.rows(name) as (game, seats):
        if odd:
            for seat in seats:
                seat.name = ODD_NAMES.get(seat.position, seat.name)
        out: list[Case] = []
        shared = selectors.table_context(game=game, seat=None, seats=seats)
        shared.update(
            csrf_token=table_cache.CSRF_MARK,
            now_ms=table_cache.NOW_MARK,
            poll_token=table_cache.POLL_MARK,
            marks=table_cache.MARKS,
        )
        if shared.get("countdown") is not None:
            shared["countdown"] = table_cache._marked_countdown(shared["countdown"])
        out.append(Case("shared", None, shared, request(htmx=True)))
        for position in entry.tablets():
            seat = seats[position]
            own = selectors.seat_context(game=game, seat=seat, seats=seats)
            own["csrf_token"] = table_cache.CSRF_MARK
            out.append(Case("whose_turn", position, own, None))
            out.append(Case("actions", position, own, None))
            whole = selectors.table_context(game=game, seat=seat, seats=seats)
            whole.update(poll_token=f"token-{position}", csrf_token=CSRF)
            flashed = dict(
                whole, flash="Wait: it's Bo's turn <now> & “then”.", refused=True, applied=False
            )
            out.append(Case("whole", position, flashed, request(htmx=True)))
            out.append(Case("news", position, flashed, request(htmx=True)))
            out.append(Case("page", position, whole, request(htmx=False)))
        game.pk = GAME_ID  # after the reads: what the board prints of it is the same each run
        for case in out:
            _fixed(case.ctx, game)
        yield out
