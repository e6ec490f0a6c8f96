"""Moves: a player's move from a tablet (move_submit), and the moves that fall due (an expired
time limit, a computer player's turn: game_tick), all through _apply_locked under the game's lock.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from classrooms.models import User
from games import engine, scheduling
from games.permissions import own_seat
from games.wording import refusal_message

from ..models import Game, Seat
from .base import (
    MAX_TICK_MOVES,
    PLAYER_MOVES,
    MoveOutcome,
    _bots,
    _changed,
    _locked_table,
    _state,
    log,
)
from .plays import _record_plays
from .timers import _stamp_deadlines, bots_due
from .writes import game_update, move_insert

# --- moves ------------------------------------------------------------------------------------


def _stale_outcome(game: Game, move: dict) -> MoveOutcome:
    state = _state(game) if game.state else None
    code = "stale"
    if move.get("type") == "challenge" and state is not None and state.challenge:
        code = "too_late"  # R5.1: the first call the server received won
    return MoveOutcome(applied=False, game=game, refusal_code=code, message=refusal_message(code))


def move_submit(
    *,
    game_id: int,
    seat: int | None = None,
    move: dict,
    seen_version: int,
    by: User | None = None,
    player: tuple[int, int] | None = None,
) -> MoveOutcome:
    """A player's move, applied at most once: a stale or doubled tap changes nothing.

    `seat` is the player's position; or, given `player` (games.permissions.player: a student's
    school and user), their own seat found in the move's one locked read, which reads only a
    game they sit at (Game.DoesNotExist for any other: nothing read, nothing locked). The
    outcome then carries that seat."""
    valid = isinstance(move, dict) and move.get("type") in PLAYER_MOVES
    if not valid and player is None:
        game = Game.objects.get(pk=game_id)
        return MoveOutcome(
            applied=False, game=game, refusal_code="bad_move", message=refusal_message("bad_move")
        )
    with transaction.atomic():
        game, seats = _locked_table(game_id, player)  # one locked read: the game, its table
        if player is None:
            outcome = _submit_locked(game, seats, seat, move, seen_version, by)
        else:
            own = own_seat(seats.values(), player[1])
            if valid:
                outcome = _submit_locked(game, seats, own.position, move, seen_version, by)
            else:
                outcome = MoveOutcome(
                    applied=False,
                    game=game,
                    refusal_code="bad_move",
                    message=refusal_message("bad_move"),
                )
            outcome.seat = own
    return outcome


def _submit_locked(
    game: Game, seats: dict[int, Seat], seat: int, move: dict, seen_version: int, by
) -> MoveOutcome:
    """move_submit under the game's lock: what is due first, then the move or its refusal."""
    if game.status != Game.Status.RUNNING:
        code = {Game.Status.PAUSED: "paused", Game.Status.SETUP: "not_started"}.get(
            game.status, "game_over"
        )
        return MoveOutcome(
            applied=False, game=game, refusal_code=code, message=refusal_message(code)
        )
    seat_row = seats.get(seat)
    if seat_row is None:
        return MoveOutcome(
            applied=False,
            game=game,
            refusal_code="not_your_seat",
            message=refusal_message("not_your_seat"),
        )
    if seat_row.bot:
        return MoveOutcome(
            applied=False,
            game=game,
            refusal_code="bot_seat",
            message=refusal_message("bot_seat"),
        )
    move = {**move, "seat": seat}
    now = timezone.now()
    # What fell due before this move came goes first (R4.9: a turn whose time ran out is
    # over; R5.1: a computer player's call due earlier was first), whether or not a
    # worker has got to it yet: the outcome never depends on Redis being up.
    if _tick_locked(game, seats, now):
        _changed(game)
        if game.status != Game.Status.RUNNING:
            return MoveOutcome(
                applied=False,
                game=game,
                refusal_code="game_over",
                message=refusal_message("game_over"),
                seats=list(seats.values()),
            )
    if seen_version != game.version and not _same_window(game, move, seen_version):
        return replace(_stale_outcome(game, move), seats=list(seats.values()))
    try:
        events = _apply_locked(game, move, by=by, now=now, seats=seats)
    except engine.Refusal as refusal:
        return MoveOutcome(
            applied=False,
            game=game,
            refusal_code=refusal.code,
            message=refusal_message(refusal.code, refusal.params),
            seats=list(seats.values()),
        )
    _changed(game)
    return MoveOutcome(applied=True, game=game, events=events, seats=list(seats.values()))


def _same_window(game: Game, move: dict, seen_version: int) -> bool:
    """An OK or a challenge still answers the window the player saw if only OKs came since.

    Other players' OKs bump the version; a child must not lose a right challenge to them.
    """
    if move.get("type") not in ("ok", "challenge") or not game.state or seen_version > game.version:
        return False
    state = _state(game)
    return state.phase == "window" and state.timer_started <= seen_version


def _apply_locked(
    game: Game, move: dict, *, by: User | None, now: datetime, seats: dict[int, Seat]
) -> list[dict]:
    """Apply one move to a locked game: engine, Move row, Play rows, version, deadlines.

    `seats` is the table as read under the lock (_seats). Raises engine.Refusal (nothing
    changed) for a move the engine refuses. The caller tells the tablets (_changed).
    """
    before = _state(game)
    after, events = engine.apply_move(before, move)
    number = after.version
    # R9.2: a move is appended once; a doubled number is refused by the (game, number)
    # constraint (IntegrityError, nothing written).
    move_row = move_insert(
        game, number=number, seat=move.get("seat"), payload=move, events=events, by=by
    )
    _record_plays(game, before, after, move, events, move_row, seats, now)
    game.state = after.to_dict()
    game.version = number
    game.last_move_at = now
    pause = _stamp_deadlines(game, before, after, seats, now)
    if after.is_over:
        _finish(game, after, seats, now)
        pause = None
    game_update(game)  # the columns a move changes (writes.GAME_MOVE_FIELDS)
    scheduling.schedule_bot(game_id=game.pk, pause=pause)
    return events


def _seats_rank(seats: dict[int, Seat], scores: list[int], places: list[int] | None = None) -> None:
    """Store each seat's R6.3 score and place (the engine's ranks_of), in one statement."""
    places = places or engine.ranks_of(scores)
    ranked = []
    for position, seat in seats.items():
        if position < len(scores):
            seat.score, seat.place = scores[position], places[position]
            ranked.append(seat)
    if ranked:
        Seat.objects.bulk_update(ranked, ["score", "place"])


def _finish(game: Game, state, seats: dict[int, Seat], now: datetime) -> None:
    """R6.3: the engine's final scores and places (after the settlements) on the seats."""
    result = state.result or {}
    _seats_rank(seats, result.get("scores") or engine.scores_of(state), result.get("places"))
    game.status = Game.Status.FINISHED
    game.finished_at = now
    game.timer_deadline = None
    game.bot_due_at = None


# --- time limits and computer players ----------------------------------------------------------


def _due_move(game: Game, state, seats: dict[int, Seat], now: datetime) -> dict | None:
    """The move due now, the earliest first: a computer player's move (its turn, or its answer
    to a check window, R5.1) due before the running time limit ran out goes first; else the
    expired time limit (R4.9, R5.1, R5.3)."""
    expired = game.timer_deadline is not None and game.timer_deadline <= now
    if game.bot_due_at is not None and game.bot_due_at <= now:
        bots = _bots(seats)
        due = bots_due(game, state, bots)
        for at, position in due:
            if at > now or (expired and game.timer_deadline < at):
                break
            view = engine.seat_view(state, position)
            rng = engine.bot_rng(game.seed, state.version, position)
            move = engine.bot_move(view, bots[position], rng)
            if move is not None:
                return {**move, "seat": position}
        if not expired:
            # Nothing for a computer to do now: its next answer, if one is still to come.
            game.bot_due_at = min((at for at, _seat in due if at > now), default=None)
    if expired:
        timer = state.timer
        if timer is not None:
            return {"type": "timeout", "kind": timer["kind"], "timer": timer["id"]}
        game.timer_deadline = None
    return None


def _tick_locked(game: Game, seats: dict[int, Seat], now: datetime) -> int:
    """Apply what is due on a game locked by the caller; the number of moves applied.

    Deadlines it finds with nothing left to do are cleared and saved; the caller tells the
    tablets (_changed) when moves were applied."""
    if game.status != Game.Status.RUNNING or not game.state:
        return 0
    due = [t for t in (game.timer_deadline, game.bot_due_at) if t is not None]
    if not due or min(due) > now:
        return 0  # the common case: nothing to do, no engine call
    applied = 0
    dirty = False
    while applied < MAX_TICK_MOVES and game.status == Game.Status.RUNNING:
        state = _state(game)
        deadlines = (game.timer_deadline, game.bot_due_at)
        move = _due_move(game, state, seats, now)
        if move is None:
            # Only deadlines cleared above (nothing left to do for them) need saving.
            dirty = dirty or deadlines != (game.timer_deadline, game.bot_due_at)
            break
        try:
            _apply_locked(game, move, by=None, now=now, seats=seats)
        except engine.Refusal as refusal:
            # A computer player's move refused by the engine: an engine bug, never a hang.
            log.error("game %s: engine refused a server move %r: %s", game.pk, move, refusal)
            if move["type"] == "timeout":
                game.timer_deadline = None
            else:
                game.bot_due_at = None
            dirty = True
            break
        applied += 1
    if dirty:
        game.save(update_fields=["timer_deadline", "bot_due_at"])
    return applied


def game_tick(*, game_id: int, now: datetime | None = None) -> int:
    """Apply whatever is due (time limits, computer players); the number of moves applied.

    Called by the computer player's task and the beat sweep (games.tasks), and by the pages
    that show the table (due_moves_apply); all of them lock the game row first and read what
    is due from it, so a second call for the same moment finds nothing due and changes nothing.
    """
    now = now or timezone.now()
    with transaction.atomic():
        try:
            game, seats = _locked_table(game_id)
        except Game.DoesNotExist:
            return 0
        if game.status != Game.Status.RUNNING or not game.state:
            return 0
        applied = _tick_locked(game, seats, now)
        if applied:
            _changed(game)
    return applied


def upcoming_game_deadlines(*, within: timedelta, now: datetime | None = None):
    """Running games with a time limit or a computer player due within `within`: (id, when).

    `when` is the first of the two still to come (what is already due is the sweep's).
    """
    now = now or timezone.now()
    until = now + within
    rows = (
        Game.objects.filter(status=Game.Status.RUNNING)
        .filter(
            Q(timer_deadline__gt=now, timer_deadline__lte=until)
            | Q(bot_due_at__gt=now, bot_due_at__lte=until)
        )
        .values_list("pk", "timer_deadline", "bot_due_at")[:500]
    )
    return [
        (pk, min(t for t in (deadline, bot) if t is not None and now < t <= until))
        for pk, deadline, bot in rows
    ]


def due_game_ids(*, now: datetime | None = None) -> list[int]:
    """Running games whose time limit ran out or whose computer player is due."""
    now = now or timezone.now()
    return list(
        Game.objects.filter(status=Game.Status.RUNNING)
        .filter(Q(timer_deadline__lte=now) | Q(bot_due_at__lte=now))
        .values_list("pk", flat=True)[:500]
    )
