"""The only code that changes a game: create, start, pause, end, moves, timers and computer players.

Every change to a running game goes through `_apply_locked`, inside a short transaction holding
`select_for_update(no_key=True)` on the game row: the engine applies the move, the move is
appended, per-student Play rows are written, the version is bumped, and the next deadlines are
stamped. Celery jobs are queued only after commit (games.tasks decides how), and so is the
tablets' news (games.push.table_changed).

One lock order everywhere: the game row first (`select_for_update(no_key=True)`, by id when
there are several), then its seats and moves; a student row is locked only after their games
(student_games_erase). A move costs at most five statements: lock the game (its class read
in the same statement), read its seats once, insert the move, insert the plays, save the game.

Due moves (an expired time limit, a computer player's turn) are applied by game_tick from
whoever gets there first, under the same lock: the computer player's task and the beat sweep
(games.tasks), a page that shows the table (a tablet's poll, the projector's board, the teacher's
live view: due_moves_apply, once a move is games.tasks.page_due_grace() late), and a player's
own move (move_submit applies what fell due before it came). The locked row decides what is
due, so a move is never applied twice; and a game keeps going while Redis, and with it every
task, is down.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings as django_settings
from django.db import transaction
from django.db.models import Q, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

from classgames.models import ClassSession
from classrooms.models import Classroom, School, Student, User
from games import engine, push, tasks
from games.engine import SETTINGS_CODES
from games.wording import (
    MAX_SEATS,
    MIN_SEATS,
    TIMEOUT_CODE,
    players_count_message,
    refusal_message,
    settings_error_message,
)

from . import practice
from .models import Game, Move, Play, Seat

log = logging.getLogger(__name__)

# Moves a person may send from a tablet; timeouts and replacements come from the server only.
PLAYER_MOVES = frozenset({"announce", "nothing", "challenge", "ok", "chwech"})
# Seconds a computer player waits when the engine gives no pause of its own (R8.2).
DEFAULT_BOT_DELAY = {"easy": (4.0, 9.0), "medium": (3.0, 6.0), "hard": (2.0, 4.0)}
# A tick never applies more than this many moves at once (a safety net against a loop).
MAX_TICK_MOVES = 30
# R4.9: seconds the first player's turn clock waits for their tablet to open the table.
FIRST_TURN_GRACE = 60


def first_turn_grace() -> int:
    """Settings KAVET_FIRST_TURN_GRACE (seconds), FIRST_TURN_GRACE when not set."""
    return int(getattr(django_settings, "KAVET_FIRST_TURN_GRACE", FIRST_TURN_GRACE))


class GameError(Exception):
    """A request the game refuses, with a stable code and a translated message for the page."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        self.code = code
        self.message = message
        self.params = params
        super().__init__(f"{code}: {message}")


@dataclass
class MoveOutcome:
    """What came of a move: applied or not, the fresh game, the events, and what to tell the player."""

    applied: bool
    game: Game
    events: list[dict] = field(default_factory=list)
    refusal_code: str | None = None
    message: str = ""
    # The table as read under the lock and as the move left it (scores and places at the end):
    # the board the answer shows needs no second read. None where the seats were not read.
    seats: list[Seat] | None = None


# --- creating and running a game ---------------------------------------------------------------


def _engine_error(exc: engine.EngineError) -> GameError:
    """A configuration the engine refuses, told to the teacher in their language."""
    if exc.code not in SETTINGS_CODES:
        log.warning("engine refused a game configuration: %s", exc)
    return GameError(exc.code, settings_error_message(exc.code, exc.params), **exc.params)


def _seat_rows(players: list[dict], school: School) -> list[dict]:
    """Check the players a game is created with; a computer player's name is kept only if given.

    An unnamed computer player is stored without a name and shown as "Computer 1"... in the
    reader's language (Seat.display_name), never in the language of whoever set the table.
    """
    if not MIN_SEATS <= len(players) <= MAX_SEATS:
        raise GameError("players_count", players_count_message(len(players)), count=len(players))
    rows: list[dict] = []
    seen: set[int] = set()
    for entry in players:
        student = entry.get("student")
        if student is not None:
            if not isinstance(student, Student) or student.classroom.school_id != school.pk:
                raise GameError("player_unknown", _("This student is not in this school."))
            if student.pk in seen:
                raise GameError(
                    "player_twice", _("%(name)s is seated twice.") % {"name": student.name}
                )
            seen.add(student.pk)
            rows.append({"student": student, "bot": "", "name": student.name[:40]})
            continue
        strength = entry.get("bot")
        if strength not in Seat.Bot.values:
            raise GameError("bot_unknown", _("A computer player must be easy, medium or hard."))
        rows.append(
            {"student": None, "bot": strength, "name": (entry.get("name") or "").strip()[:40]}
        )
    if not seen:
        raise GameError("no_student", _("A game needs at least one student."))
    return rows


def _ruleset(levels: list[tuple[int, int]], settings: dict) -> engine.RuleSet:
    """R2.3: the weakest player's level, lowered further by the teacher, never raised."""
    weakest_range, weakest_tier = engine.combine_levels(levels)
    max_number = int(settings.get("max_number") or weakest_range)
    tier = int(settings.get("tier") or weakest_tier)
    if max_number > weakest_range or tier > weakest_tier:
        raise GameError(
            "level_too_high",
            _(
                "This game can't be harder than its weakest player's level: numbers up to "
                "%(range)d, operations tier %(tier)d."
            )
            % {"range": weakest_range, "tier": weakest_tier},
            max_number=weakest_range,
            tier=weakest_tier,
        )
    cap = engine.RuleSet(
        max_number=max_number, tier=tier, operators=settings.get("operators") or None
    )
    narrowing = {}
    if settings.get("show_steps") is not None:
        narrowing["show_steps"] = bool(settings["show_steps"])
    return engine.ruleset_for_players(levels, cap=cap, **narrowing)


def game_config_build(*, names: list[str], levels: list[tuple[int, int]], settings: dict):
    """The engine's GameConfig for these players and settings; GameError when impossible."""
    try:
        rules = _ruleset(levels, settings)
        deck = engine.DeckSpec(
            max_number=rules.max_number,
            copies=int(settings.get("copies", 2)),
            x_cards=int(settings.get("x_cards", 4)),
            events=bool(settings.get("events", True)),
        )
        options = {
            key: int(settings[key])
            for key in (
                "challenge_window",
                "challenge_time",
                "turn_time",
                "starter",
                "nothing_true_penalty",
            )
            if settings.get(key) is not None
        }
        lesson = settings.get("lesson")
        return engine.GameConfig(
            players=names,
            rules=rules,
            deck=deck,
            lesson=None if lesson is None else bool(lesson),
            **options,
        )
    except engine.EngineError as exc:
        raise _engine_error(exc) from exc
    except (TypeError, ValueError) as exc:
        raise GameError("settings_invalid", _("These game settings are not possible.")) from exc


@transaction.atomic
def game_create(
    *,
    school: School,
    players: list[dict],
    settings: dict,
    created_by: User | None = None,
    classroom: Classroom | None = None,
    session: ClassSession | None = None,
    kind: str = "class",
    label: str = "",
    seed: int | None = None,
    draw_order: list[int] | None = None,
) -> Game:
    """A table, not started yet: seats in play order, rules capped by the weakest player (R2.3)."""
    if kind not in Game.Kind.values:
        raise GameError("kind_unknown", _("Unknown kind of game."))
    rows = _seat_rows(players, school)
    levels = [r["student"].level for r in rows if r["student"] is not None]
    config = game_config_build(names=[r["name"] for r in rows], levels=levels, settings=settings)
    if seed is None:
        seed = random.SystemRandom().randrange(2**53)
    try:
        # Builds the opening once, so a bad draw order is refused now, not when the class waits.
        engine.new_game(config, seed=seed, draw_order=draw_order)
    except engine.EngineError as exc:
        raise _engine_error(exc) from exc
    game = Game.objects.create(
        school=school,
        classroom=classroom,
        session=session,
        created_by=created_by,
        kind=kind,
        label=label[:40],
        config=config.to_dict(),
        seed=seed,
        draw_order=draw_order,
    )
    Seat.objects.bulk_create(
        Seat(game=game, position=i, student=r["student"], bot=r["bot"], name=r["name"])
        for i, r in enumerate(rows)
    )
    return game


def practice_create(
    *, student: Student, bots: int, strength: str, created_by: User | None = None
) -> tuple[Game, practice.PracticeDeal | None]:
    """A child's practice game against computer players, at their own level (R2.3), not started.

    Dealt from the child's own mistakes when a skill is due again (games.practice): the cards
    of one operation of that skill come first in the draw order, so they are among the first
    turned up (R4.1); otherwise an ordinary shuffle of the seed (R1.4).
    """
    players: list[dict[str, Any]] = [{"student": student}]
    # No names and no label: "Computer 1" and "Practice" are words of the reader's language.
    players += [{"bot": strength} for _i in range(bots)]
    config = game_config_build(
        names=[student.name] + [""] * bots, levels=[student.level], settings={}
    )
    seed = random.SystemRandom().randrange(2**53)
    deal = practice.practice_deal_for(student, config=config, seed=seed)
    game = game_create(
        school=student.classroom.school,
        classroom=student.classroom,
        players=players,
        settings={},
        created_by=created_by,
        kind=Game.Kind.PRACTICE,
        seed=seed,
        draw_order=deal.draw_order if deal is not None else None,
    )
    return game, deal


def _locked(game: Game | int) -> Game:
    pk = game.pk if isinstance(game, Game) else game
    # no_key: a move never changes the game's key, so seats and moves may still reference it.
    # The class comes in the same statement (the board's reading-aloud setting), unlocked.
    return (
        Game.objects.select_related("classroom")
        .select_for_update(no_key=True, of=("self",))
        .get(pk=pk)
    )


def _locked_in(game: Game, status: str, code: str, message: str) -> Game:
    """The game, locked, if it is in `status`; else a GameError with the code and message."""
    game = _locked(game)
    if game.status != status:
        raise GameError(code, message)
    return game


def _seats(game: Game) -> dict[int, Seat]:
    """The table's seats by position, read once per change (the game row is locked first)."""
    return {s.position: s for s in Seat.objects.filter(game=game).select_related("student")}


def _bots(seats: dict[int, Seat]) -> dict[int, str]:
    return {p: s.bot for p, s in seats.items() if s.bot}


def _changed(game: Game) -> None:
    """After commit, tell the table's tablets and the class game's live view (games.push).

    A table of a class game that has just ended tells its class game too, in the same
    transaction (the game row locked first, then the session's): the class game is over
    once every table is.
    """
    game_id, version, session_id = game.pk, game.version, game.session_id
    if session_id is not None and game.status in (Game.Status.FINISHED, Game.Status.ABANDONED):
        from classgames.services import session_after_game_change

        session_after_game_change(session_id=session_id)
    transaction.on_commit(
        lambda: push.table_changed(game_id=game_id, version=version, session_id=session_id)
    )


def _config(game: Game):
    return engine.GameConfig.from_dict(game.config)


def _state(game: Game):
    return engine.GameState.from_dict(game.state)


# Seconds a computer player takes to answer OK or "Kavet 'm eus!" in a challenge window.
WINDOW_ANSWER_DELAY = (1.0, 3.0)


def _bot_delay(strength: str, rng: random.Random) -> float:
    delay = getattr(engine, "bot_delay", None)
    if delay is not None:
        return float(delay(strength, rng))
    low, high = DEFAULT_BOT_DELAY.get(strength, (3.0, 6.0))
    return rng.uniform(low, high)


def _bot_actors(state, bots: dict[int, str]) -> list[int]:
    """Computer seats that have something to do now, in the order they would answer."""
    n = state.n_seats
    if state.phase == "window" and state.pending is not None:
        start = state.pending["seat"]
        order = [(start + i) % n for i in range(1, n)]
    else:
        order = list(range(n))
    return [s for s in order if s in bots and engine.legal_moves(state, s)]


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
    rng = random.Random(f"{game.seed}/delay/{after.version}")
    pause = _bot_delay(bots[actors[0]], rng)
    if after.phase == "window":
        # Judging someone else's announcement is quicker than finding one's own: a child
        # playing computers should not sit through the whole window after every operation.
        pause = min(pause, rng.uniform(*WINDOW_ANSWER_DELAY))
    if game.timer_deadline is not None:
        # A computer player answers before its own time runs out, like a person would.
        left = (game.timer_deadline - now).total_seconds()
        pause = max(0.5, min(pause, left - 1.0))
    game.bot_due_at = now + timedelta(seconds=pause)
    return pause


def game_start(*, game: Game, by: User | None = None) -> Game:
    """Deal the opening cards (R4.1) and start the clocks (the first turn's fairly, R4.9)."""
    with transaction.atomic():
        game = _locked_in(
            game, Game.Status.SETUP, "already_started", _("This game has already started.")
        )
        try:
            state = engine.new_game(_config(game), seed=game.seed, draw_order=game.draw_order)
        except engine.EngineError as exc:
            raise _engine_error(exc) from exc
        now = timezone.now()
        seats = _seats(game)
        game.state = state.to_dict()
        game.version = state.version
        game.status = Game.Status.FINISHED if state.is_over else Game.Status.RUNNING
        game.started_at = now
        game.last_move_at = now
        pause = _stamp_deadlines(game, None, state, seats, now)
        game.save()
        tasks.schedule_bot(game_id=game.pk, pause=pause)
        _changed(game)
    return game


def game_pause(*, game: Game, by: User | None = None) -> Game:
    """Stop the clocks and the computer players; tablets show "paused"."""
    with transaction.atomic():
        game = _locked_in(
            game, Game.Status.RUNNING, "not_running", _("Only a running game can be paused.")
        )
        game.status = Game.Status.PAUSED
        game.timer_deadline = None
        game.bot_due_at = None
        game.save(update_fields=["status", "timer_deadline", "bot_due_at"])
        _changed(game)
    return game


def game_resume(*, game: Game, by: User | None = None) -> Game:
    """Start again; the running time limit starts afresh, so nobody loses time to the pause."""
    with transaction.atomic():
        game = _locked_in(
            game, Game.Status.PAUSED, "not_paused", _("Only a paused game can be resumed.")
        )
        game.status = Game.Status.RUNNING
        state = _state(game)
        pause = _stamp_deadlines(game, None, state, _seats(game), timezone.now())
        game.save()
        tasks.schedule_bot(game_id=game.pk, pause=pause)
        _changed(game)
    return game


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


def game_end(*, game: Game, by: User | None = None) -> Game:
    """End a game early: status abandoned, the scores as they stand (R6.3, no settlements)."""
    with transaction.atomic():
        game = _locked(game)
        if game.status in (Game.Status.FINISHED, Game.Status.ABANDONED):
            raise GameError("already_ended", _("This game has already ended."))
        now = timezone.now()
        if game.state:
            _seats_rank(_seats(game), engine.scores_of(_state(game)))
        game.status = Game.Status.ABANDONED
        game.finished_at = now
        game.timer_deadline = None
        game.bot_due_at = None
        game.save()
        _changed(game)
    return game


def seat_replace_by_bot(
    *, game: Game, position: int, strength: str, by: User | None = None
) -> Seat:
    """An absent student's seat is played by a computer player from now on (recorded as a move)."""
    if strength not in Seat.Bot.values:
        raise GameError("bot_unknown", _("A computer player must be easy, medium or hard."))
    with transaction.atomic():
        game = _locked(game)
        seats = _seats(game)
        seat = seats.get(position)
        if seat is None:
            raise GameError("seat_unknown", _("There is no such seat at this table."))
        if game.status in (Game.Status.FINISHED, Game.Status.ABANDONED):
            raise GameError("already_ended", _("This game has already ended."))
        seat.bot = strength
        seat.save(update_fields=["bot"])
        if game.state:
            # Recorded as a move so that a replay knows who played from here on (R9.2).
            _apply_locked(
                game,
                {"type": "replace", "seat": position, "bot": strength},
                by=by,
                now=timezone.now(),
                seats=seats,
            )
            _changed(game)
    return seat


# --- the table's tablets -----------------------------------------------------------------------


def table_visit(*, game: Game, seat: Seat, now: datetime | None = None) -> Game:
    """A tablet has the table open (the page, or a poll that found it changed): the one service

    the table's GET calls, once. It stamps the seat's presence (Seat.last_seen_at, a stamp,
    not game state), starts the first player's turn clock if it was waiting for this tablet
    (R4.9, a fair start), and applies the time limits and computer players that are due
    (due_moves_apply). Returns the game as it is now. The game row is locked only when the
    clock or a due move needs it.
    """
    from games.polling import PRESENCE_RESOLUTION

    now = now or timezone.now()
    seen, started = seat.last_seen_at, game.started_at
    first_sight = started is not None and (seen is None or seen < started)
    if not seat.bot and (first_sight or (now - seen).total_seconds() >= PRESENCE_RESOLUTION):
        Seat.objects.filter(pk=seat.pk).update(last_seen_at=now)
        seat.last_seen_at = now
    if game.status != Game.Status.RUNNING or not game.state:
        return game
    changed = False
    if first_sight and not seat.bot and game.state.get("timer_started") == 0:
        timer = _state(game).timer
        if timer and timer.get("kind") == "turn" and timer.get("seat") == seat.position:
            changed = _first_turn_open(game_id=game.pk, position=seat.position, now=now)
    changed = due_moves_apply(game=game, now=now) or changed
    if changed:
        game.refresh_from_db()
    return game


def page_due(
    *, status: str, timer_deadline: datetime | None, bot_due_at: datetime | None, now: datetime
) -> bool:
    """True when a page showing this game should apply its due move now: the game runs and
    its time limit or computer player is games.tasks.page_due_grace() overdue. From the row as
    the page already read it (no query): the cheap "is anything due" of every poll."""
    if status != Game.Status.RUNNING:
        return False
    due = [t for t in (timer_deadline, bot_due_at) if t is not None]
    if not due or min(due) > now:
        return False
    return min(due) <= now - timedelta(seconds=tasks.page_due_grace())


def due_moves_apply(*, game: Game, now: datetime | None = None) -> bool:
    """The one policy for a page that shows a running game (a tablet's table, the projector
    board, the teacher's live view): a due time limit or computer player that no one has
    applied yet is applied here, with one game_tick under the game's lock — the same call
    the worker makes, so whichever comes second finds nothing due. Where workers run it waits
    for games.tasks.page_due_grace(), so that normally the worker plays and the request stays
    light; with Redis down (no task, no beat) the tablets' polls keep the game going. True when
    a move was applied."""
    now = now or timezone.now()
    if not page_due(
        status=game.status,
        timer_deadline=game.timer_deadline,
        bot_due_at=game.bot_due_at,
        now=now,
    ):
        return False
    return bool(game_tick(game_id=game.pk, now=now))


def _first_turn_open(*, game_id: int, position: int, now: datetime) -> bool:
    """The first player's tablet opened the table: their turn clock runs from now (R4.9)."""
    with transaction.atomic():
        game = _locked(game_id)
        if game.status != Game.Status.RUNNING or not game.state:
            return False
        state = _state(game)
        timer = state.timer
        if (
            timer is None
            or timer.get("kind") != "turn"
            or state.timer_started != 0
            or timer.get("seat") != position
            or game.timer_deadline is None
        ):
            return False
        deadline = max(now, game.started_at) + timedelta(seconds=timer["seconds"])
        if deadline < game.timer_deadline:
            game.timer_deadline = deadline
            if game.bot_due_at is not None and game.bot_due_at > deadline:
                game.bot_due_at = deadline
            game.save(update_fields=["timer_deadline", "bot_due_at"])
            _changed(game)
            return True
    return False


# --- moves ------------------------------------------------------------------------------------


def _stale_outcome(game: Game, move: dict) -> MoveOutcome:
    state = _state(game) if game.state else None
    code = "stale"
    if move.get("type") == "challenge" and state is not None and state.challenge:
        code = "too_late"  # R5.1: the first call the server received won
    return MoveOutcome(applied=False, game=game, refusal_code=code, message=refusal_message(code))


def move_submit(
    *, game_id: int, seat: int, move: dict, seen_version: int, by: User | None = None
) -> MoveOutcome:
    """A player's move, applied at most once: a stale or doubled tap changes nothing."""
    if not isinstance(move, dict) or move.get("type") not in PLAYER_MOVES:
        game = Game.objects.get(pk=game_id)
        return MoveOutcome(
            applied=False, game=game, refusal_code="bad_move", message=refusal_message("bad_move")
        )
    move = {**move, "seat": seat}
    with transaction.atomic():
        game = _locked(game_id)
        if game.status != Game.Status.RUNNING:
            code = {Game.Status.PAUSED: "paused", Game.Status.SETUP: "not_started"}.get(
                game.status, "game_over"
            )
            return MoveOutcome(
                applied=False, game=game, refusal_code=code, message=refusal_message(code)
            )
        seats = _seats(game)
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
    move_row = Move.objects.create(
        game=game, number=number, seat=move.get("seat"), payload=move, events=events, by_user=by
    )
    _record_plays(game, before, after, move, events, move_row, seats, now)
    game.state = after.to_dict()
    game.version = number
    game.last_move_at = now
    pause = _stamp_deadlines(game, before, after, seats, now)
    if after.is_over:
        _finish(game, after, seats, now)
        pause = None
    game.save()
    tasks.schedule_bot(game_id=game.pk, pause=pause)
    return events


def _finish(game: Game, state, seats: dict[int, Seat], now: datetime) -> None:
    """R6.3: the engine's final scores and places (after the settlements) on the seats."""
    result = state.result or {}
    _seats_rank(seats, result.get("scores") or engine.scores_of(state), result.get("places"))
    game.status = Game.Status.FINISHED
    game.finished_at = now
    game.timer_deadline = None
    game.bot_due_at = None


# --- what each student did, for the reports ----------------------------------------------------


def _skills(operation: dict | None) -> list[str]:
    """Play.skills: the engine's skills_of on the stored operation, as a sorted list of keys."""
    return sorted(engine.skills_of(operation)) if operation else []


def _reaction_ms(game: Game, now: datetime) -> int | None:
    start = game.phase_started_at or game.last_move_at
    if start is None:
        return None
    return max(0, int((now - start).total_seconds() * 1000))


def _verdict_record(event: dict) -> dict:
    """An announcement as a verdict event tells it."""
    return {
        "text": event["text"],
        "ok": event["ok"],
        "verdict": event,
        "operation": event.get("operation"),
        "cards": event.get("cards", []),
    }


def _announcement_record(after, events: list[dict], seat: int) -> dict | None:
    """The engine's judged announcement: still pending in a window, or told in a verdict event."""
    for event in events:
        if (
            event.get("type") == "verdict"
            and event.get("seat") == seat
            and event.get("role") != "turn"
        ):
            return _verdict_record(event)
    pending = after.pending
    if pending and pending.get("kind") == "announce" and pending.get("seat") == seat:
        return pending
    for event in events:
        if event.get("type") == "verdict" and event.get("seat") == seat:
            return _verdict_record(event)
    return None


def _nothing_record(after, events: list[dict], seat: int) -> dict | None:
    pending = after.pending
    if pending and pending.get("kind") == "nothing" and pending.get("seat") == seat:
        return pending
    for event in events:
        if event.get("type") == "nothing_ruled" and event.get("seat") == seat:
            return event
    return None


def _record_plays(
    game: Game,
    before,
    after,
    move: dict,
    events: list[dict],
    move_row: Move,
    seats: dict[int, Seat],
    now: datetime,
) -> None:
    rules = before.config.rules
    base = {
        "game": game,
        "move": move_row,
        "at": now,
        "tier": rules.tier,
        "number_range": rules.max_number,
    }
    reaction = _reaction_ms(game, now)

    def student_at(position: Any) -> Student | None:
        seat = seats.get(position)
        return seat.student if seat is not None and not seat.bot else None

    plays: list[Play] = []
    for event in events:
        etype = event.get("type")
        student = student_at(event.get("seat"))
        if student is None:
            continue
        if etype == "announced":
            record = _announcement_record(after, events, event["seat"]) or {}
            op = record.get("operation")
            verdict = record.get("verdict") or {}
            values = (op or {}).get("values") or []
            plays.append(
                Play(
                    student=student,
                    kind=Play.Kind.ANNOUNCE,
                    text=str(event.get("text", ""))[:200],
                    ok=record.get("ok"),
                    verdict_kind=verdict.get("kind") or "",
                    code=verdict.get("code") or "",
                    operation=op,
                    # What the child computed, correct or wrong (the engine judges the operation).
                    skills=_skills(op or {"text": str(event.get("text", ""))}),
                    n_cards=len(record.get("cards") or values),
                    uses_x="X" in values,
                    reaction_ms=reaction,
                    **base,
                )
            )
        elif etype == "said_nothing" and event.get("role") == "turn":
            record = _nothing_record(after, events, event["seat"]) or {}
            possible = record.get("possible") or {}
            was_true = record.get("was_true")
            plays.append(
                Play(
                    student=student,
                    kind=Play.Kind.NOTHING,
                    # A timed-out turn is told in words where it is shown, in the reader's language.
                    code=TIMEOUT_CODE if event.get("timeout") else "",
                    ok=was_true,
                    missed=was_true is False,
                    missed_operation=str(possible.get("text", ""))[:200],
                    operation=possible or None,
                    skills=_skills(possible) if was_true is False else [],
                    reaction_ms=reaction,
                    **base,
                )
            )
        elif etype == "challenge_called":
            plays.append(
                Play(
                    student=student,
                    kind=Play.Kind.CHALLENGE,
                    text="Kavet 'm eus!",
                    reaction_ms=reaction,
                    **base,
                )
            )
    if plays:
        Play.objects.bulk_create(plays)
    for event in events:
        if event.get("type") == "challenge_ruled":
            outcome = event.get("outcome", "")[:10]
            challenger = student_at(event.get("challenger"))
            challenged = student_at(event.get("challenged"))
            # The student's last unruled play of that kind, in one UPDATE each.
            if challenger is not None:
                last = (
                    Play.objects.filter(
                        game=game,
                        student=challenger,
                        kind=Play.Kind.CHALLENGE,
                        challenge_outcome="",
                    )
                    .order_by("-at", "-pk")
                    .values("pk")[:1]
                )
                Play.objects.filter(pk__in=Subquery(last)).update(challenge_outcome=outcome)
            if challenged is not None:
                last = (
                    Play.objects.filter(
                        game=game,
                        student=challenged,
                        kind__in=[Play.Kind.ANNOUNCE, Play.Kind.NOTHING],
                        challenge_outcome="",
                    )
                    .order_by("-at", "-pk")
                    .values("pk")[:1]
                )
                Play.objects.filter(pk__in=Subquery(last)).update(challenge_outcome=outcome)


# --- time limits and computer players ----------------------------------------------------------


def _due_move(game: Game, state, seats: dict[int, Seat], now: datetime) -> dict | None:
    """The move that is due now: an expired time limit, else a computer player's turn."""
    if game.timer_deadline is not None and game.timer_deadline <= now:
        timer = state.timer
        if timer is not None:
            return {"type": "timeout", "kind": timer["kind"], "timer": timer["id"]}
        game.timer_deadline = None
    if game.bot_due_at is not None and game.bot_due_at <= now:
        bots = _bots(seats)
        for position in _bot_actors(state, bots):
            view = engine.seat_view(state, position)
            rng = engine.bot_rng(game.seed, state.version, position)
            move = engine.bot_move(view, bots[position], rng)
            if move is not None:
                return {**move, "seat": position}
        game.bot_due_at = None
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
            game = _locked(game_id)
        except Game.DoesNotExist:
            return 0
        if game.status != Game.Status.RUNNING or not game.state:
            return 0
        applied = _tick_locked(game, _seats(game), now)
        if applied:
            _changed(game)
    return applied


def due_game_ids(*, now: datetime | None = None) -> list[int]:
    """Running games whose time limit ran out or whose computer player is due."""
    now = now or timezone.now()
    return list(
        Game.objects.filter(status=Game.Status.RUNNING)
        .filter(Q(timer_deadline__lte=now) | Q(bot_due_at__lte=now))
        .values_list("pk", flat=True)[:500]
    )


# --- erasing a student -------------------------------------------------------------------------

ERASED_NAME = "—"


def _scrub_players(data: dict, positions: set[int]) -> dict:
    """`data` with the player names at these positions replaced by ERASED_NAME."""
    players = data.get("players") if isinstance(data, dict) else None
    if not isinstance(players, list):
        return data
    return {
        **data,
        "players": [ERASED_NAME if i in positions else p for i, p in enumerate(players)],
    }


def student_games_erase(*, student: Student, by: User | None = None) -> None:
    """Scrub an erased student from every game they sat at; runs in the caller's transaction.

    Call it BEFORE locking the student row (classrooms.services.student_erase): the lock order
    is the game first, like every move (move_submit locks the game, then reads students).
    Every game where the student has a seat is locked by id; the games stay (the other
    children's scores are theirs), but the seat shows "—" and the player name is removed from
    the game's stored configuration, state and opening event. Their plays go with the
    student row (CASCADE). Outside a transaction, select_for_update refuses to run.
    """
    game_ids = Seat.objects.filter(student=student).values_list("game_id", flat=True)
    games = list(Game.objects.select_for_update(no_key=True).filter(pk__in=game_ids).order_by("pk"))
    positions: dict[int, set[int]] = {}
    for game_id, position in Seat.objects.filter(student=student).values_list(
        "game_id", "position"
    ):
        positions.setdefault(game_id, set()).add(position)
    for game in games:
        if game.pk not in positions:
            continue  # a seat that moved away between the two reads: nothing of theirs here
        game.config = _scrub_players(game.config, positions[game.pk])
        if isinstance(game.state, dict) and isinstance(game.state.get("config"), dict):
            game.state = {
                **game.state,
                "config": _scrub_players(game.state["config"], positions[game.pk]),
            }
        game.save(update_fields=["config", "state"])
        # The opening event carries the player names too.
        for move in Move.objects.filter(game=game, events__isnull=False):
            events = move.events
            if isinstance(events, list) and any(
                isinstance(e, dict) and "players" in e for e in events
            ):
                move.events = [
                    _scrub_players(e, positions[game.pk]) if isinstance(e, dict) else e
                    for e in events
                ]
                move.save(update_fields=["events"])
    Seat.objects.filter(student=student).update(name=ERASED_NAME, student=None)


# --- retention (classrooms.retention decides the cut-off) ------------------------------------


def _over_before(before: datetime) -> Q:
    """Games over before `before`: by when they ended, or when they were created if they never
    say when (a table set up but never started, an old game ended without a date); never a
    running or paused game, however old."""
    ended = Q(status__in=(Game.Status.FINISHED, Game.Status.ABANDONED)) & (
        Q(finished_at__lt=before) | Q(finished_at__isnull=True, created_at__lt=before)
    )
    return ended | Q(status=Game.Status.SETUP, created_at__lt=before)


def games_erase_before(
    *, before: datetime, batch: int = 200, school: School | None = None, dry_run: bool = False
) -> dict[str, int]:
    """Delete the games over before `before` (see _over_before) with their seats, moves and
    plays, then the class games created before it that have no table left; returns the rows
    deleted per model label ({"games.Game": 3, "games.Move": 120, ...}).

    Each batch of `batch` games is one short transaction that locks the game rows first, in id
    order, with select_for_update(no_key=False): a delete needs the full row lock (it conflicts
    with the key-share lock a new seat or move takes on its game), and taking it at once
    rather than upgrading from no-key cannot deadlock with a move. What hangs from the game
    goes after it (CASCADE), in the lock order of every move. Call it outside a transaction,
    so that each batch lets its locks go. Idempotent: a second run finds nothing. dry_run
    counts the same rows and changes nothing.
    """
    from django.db.models import Exists, OuterRef

    over = _over_before(before)
    games = Game.objects.filter(over)
    sessions = ClassSession.objects.filter(created_at__lt=before).exclude(
        Exists(Game.objects.filter(session=OuterRef("pk")).exclude(over))
    )
    if school is not None:
        games = games.filter(school=school)
        sessions = sessions.filter(classroom__school=school)
    labels = [m._meta.label for m in (Game, Seat, Move, Play, ClassSession)]
    counts = dict.fromkeys(labels, 0)
    if dry_run:
        ids = games.values("pk")
        counts[Game._meta.label] = games.count()
        for model in (Seat, Move, Play):
            counts[model._meta.label] = model.objects.filter(game__in=ids).count()
        counts[ClassSession._meta.label] = sessions.count()
        return counts
    while True:
        with transaction.atomic():
            ids = list(
                games.select_for_update(no_key=False)
                .order_by("pk")
                .values_list("pk", flat=True)[:batch]
            )
            if not ids:
                break
            _, deleted = Game.objects.filter(pk__in=ids).delete()
        for label, n in deleted.items():
            counts[label] = counts.get(label, 0) + n
    with transaction.atomic():
        ids = list(
            sessions.select_for_update(no_key=False, of=("self",)).values_list("pk", flat=True)
        )
        # Locked now: a table added since the first read keeps its class game (and itself).
        empty = ClassSession.objects.filter(pk__in=ids).exclude(
            Exists(Game.objects.filter(session=OuterRef("pk")))
        )
        _, deleted = empty.delete()
    for label, n in deleted.items():
        counts[label] = counts.get(label, 0) + n
    return counts
