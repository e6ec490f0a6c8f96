"""The clocks of a game: the computer players' pauses (R8.2) and the turn's time limits, stamped
on the game row after every change (R4.9: the first turn waits for the tablet).
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F

from games import engine

from ..models import Game, Move, Play, Seat
from .base import _bots, _locked, first_turn_grace


def _bot_delay(strength: str, rng: random.Random) -> float:
    """A computer player's pause before its own move (R8.2): the engine's, by strength."""
    return float(engine.bot_delay(strength, rng))


def _answer_delay(strength: str, rng: random.Random) -> float:
    """A computer player's pause before it answers a check window (R5.1), by strength."""
    return float(engine.bot_answer_delay(strength, rng))


# A computer playing on after its trick (R4.4): its next announcement comes its pause after
# the one before it, the check window included, as a person looks on while the others check;
# never sooner than this after the window closed, so the ruling and the cards turned up are seen.
PLAY_ON_SEEN = 1.0


def _plays_on_since(before, after, actor: int, opened: datetime | None) -> datetime | None:
    """When a computer now playing on (R4.4) made the announcement whose window just closed
    (`opened`, the window's opening), else None: its next turn's pause runs from there."""
    if before is None or before.phase != "window" or after.phase != "turn":
        return None
    pending = before.pending or {}
    if pending.get("seat") != actor or pending.get("kind") != "announce" or after.active != actor:
        return None
    return opened


def _bot_actors(state, bots: dict[int, str]) -> list[int]:
    """Computer seats that have something to do now, in the order they would answer."""
    n = state.n_seats
    if state.phase == "window" and state.pending is not None:
        start = state.pending["seat"]
        order = [(start + i) % n for i in range(1, n)]
    else:
        order = list(range(n))
    return [s for s in order if s in bots and engine.legal_moves(state, s)]


def _answers_due(game: Game, state, bots: dict[int, str]) -> dict[int, datetime]:
    """When each computer player still to answer the open check window answers it (R5.1).

    Like the people at the table, each answers on its own, 1-2 s after the window opened
    (game.phase_started_at: an OK keeps the window's timer, so the times stay put), never
    after its last second: the window closes as soon as everyone has answered, not when it
    runs out. From the seed and the window's timer, so every reader finds the same times.
    """
    opened = game.phase_started_at
    if opened is None or state.phase != "window":
        return {}
    end = game.timer_deadline
    due = {}
    for seat in _bot_actors(state, bots):
        rng = random.Random(f"{game.seed}/answer/{state.timer_started}/{seat}")
        at = opened + timedelta(seconds=_answer_delay(bots[seat], rng))
        if end is not None:
            at = max(opened + timedelta(seconds=0.5), min(at, end - timedelta(seconds=1.0)))
        due[seat] = at
    return due


def bots_due(game: Game, state, bots: dict[int, str]) -> list[tuple[datetime, int]]:
    """(when, seat) of each computer player's next move, the earliest first."""
    if state is None or state.is_over or game.bot_due_at is None:
        return []
    if state.phase == "window":
        return sorted((at, seat) for seat, at in _answers_due(game, state, bots).items())
    actors = _bot_actors(state, bots)
    return [(game.bot_due_at, actors[0])] if actors else []


def _first_turn_waits(game: Game, state, seats: dict[int, Seat]) -> Seat | None:
    """The first player's seat while its turn clock waits for their tablet (R4.9), else None.

    Only the opening turn of a game (nothing played since the start), only a student's seat
    whose tablet has not opened the table since the start.
    """
    timer = state.timer if state is not None else None
    if (
        timer is None
        or timer.get("kind") != "turn"
        or game.started_at is None
        or state.timer_started != 0
    ):  # the opening turn: nothing played before it
        return None
    seat = seats.get(timer.get("seat"))
    if seat is None or seat.bot or seat.student_id is None:
        return None
    opened = seat.last_seen_at
    if opened is not None and opened >= game.started_at:
        return None
    return seat


def _turn_deadline(game: Game, state, seats: dict[int, Seat], now: datetime) -> datetime:
    """R4.9 and a fair start: the first turn's clock runs from max(start, the first player's

    tablet opening the table), or from the end of the grace period when it never opens, so a
    child still signing in does not lose their first turn and an absent one does not stall
    the table. Every other time limit runs from now.
    """
    seconds = timedelta(seconds=state.timer["seconds"])
    waiting = _first_turn_waits(game, state, seats)
    if waiting is None:
        return now + seconds
    grace_end = game.started_at + timedelta(seconds=first_turn_grace())
    return max(now, grace_end) + seconds


def _stamp_deadlines(
    game: Game, before, after, seats: dict[int, Seat], now: datetime
) -> float | None:
    """Set when the running time limit ends and when a computer player acts; the bot's pause."""
    bots = _bots(seats)
    timer = after.timer if after is not None else None
    window_opened = game.phase_started_at  # (before a new phase restamps it)
    new_phase = before is None or after.timer_started != before.timer_started
    if new_phase:
        game.phase_started_at = now
    if timer is None:
        game.timer_deadline = None
    elif new_phase or game.timer_deadline is None:
        game.timer_deadline = _turn_deadline(game, after, seats, now)
    actors = _bot_actors(after, bots) if after is not None and not after.is_over else []
    if not actors:
        game.bot_due_at = None
        return None
    if after.phase == "window":
        # Each computer answers on its own clock from the window's opening (_answers_due).
        game.bot_due_at = min(_answers_due(game, after, bots).values(), default=None)
        if game.bot_due_at is None:
            return None
        return max(0.0, (game.bot_due_at - now).total_seconds())
    rng = random.Random(f"{game.seed}/delay/{after.version}")
    pause = _bot_delay(bots[actors[0]], rng)
    since = _plays_on_since(before, after, actors[0], window_opened)
    if since is not None:
        pause = max(PLAY_ON_SEEN, pause - (now - since).total_seconds())
    if game.timer_deadline is not None:
        # A computer player acts before its own time runs out, like a person would.
        left = (game.timer_deadline - now).total_seconds()
        pause = max(0.5, min(pause, left - 1.0))
    game.bot_due_at = now + timedelta(seconds=pause)
    return pause


# Every moment a game's rows hold: what game_clocks_shift moves (NULL stays NULL).
GAME_CLOCKS = (
    "created_at",
    "started_at",
    "last_move_at",
    "phase_started_at",
    "timer_deadline",
    "bot_due_at",
)


def game_clocks_shift(*, game_id: int, shift: timedelta) -> None:
    """Every moment of a game moved by `shift`: its clocks, its moves', plays' and seats' stamps,
    under the game row's lock (the one writer). The game stays the one played, only later (the
    demo's running game, built once and looked at later: demo.simulate.live_refresh);
    no news: nothing a tablet shows changes but the times."""
    with transaction.atomic():
        game = _locked(game_id)
        Game.objects.filter(pk=game.pk).update(**{name: F(name) + shift for name in GAME_CLOCKS})
        Move.objects.filter(game=game).update(created_at=F("created_at") + shift)
        Play.objects.filter(game=game).update(at=F("at") + shift)
        Seat.objects.filter(game=game, last_seen_at__isnull=False).update(
            last_seen_at=F("last_seen_at") + shift
        )
