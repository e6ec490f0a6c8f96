"""Creating and running a game: the table and its rules (capped by the weakest player, R2.3),
start, pause, resume, end, and a seat handed to a computer player (R8).
"""

from __future__ import annotations

import random
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from classrooms.models import Classroom, School, Student, User
from games import engine, scheduling
from games.engine import SETTINGS_CODES
from games.wording import (
    MAX_SEATS,
    MIN_SEATS,
    players_count_message,
    settings_error_message,
)

from .. import practice
from ..models import Game, Seat
from .base import GameError, _changed, _config, _locked, _locked_in, _seats, _state, log
from .moves import _apply_locked, _seats_rank
from .timers import _stamp_deadlines

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
            rows.append(
                {
                    "student": student,
                    "bot": "",
                    "name": student.name[:40],
                    "untimed": student.untimed,
                }
            )
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


def game_config_build(
    *,
    names: list[str],
    levels: list[tuple[int, int]],
    settings: dict,
    untimed: tuple[int, ...] = (),
):
    """The engine's GameConfig for these players and settings; GameError when impossible.

    `untimed`: the seats of children the teacher gave untimed games (R4.9); settings
    "untimed" (a class game's choice) makes every seat untimed."""
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
        if settings.get("untimed"):
            untimed = tuple(range(len(names)))
        return engine.GameConfig(
            players=names,
            rules=rules,
            deck=deck,
            lesson=None if lesson is None else bool(lesson),
            untimed=tuple(untimed),
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
    config = game_config_build(
        names=[r["name"] for r in rows],
        levels=levels,
        settings=settings,
        untimed=tuple(i for i, r in enumerate(rows) if r.get("untimed")),
    )
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
    *,
    student: Student,
    bots: int,
    strength: str,
    created_by: User | None = None,
    seed: int | None = None,
) -> tuple[Game, practice.PracticeDeal | None]:
    """A child's practice game against computer players, at their own level (R2.3), not started.

    Dealt from the child's own mistakes when a skill is due again (games.practice): the cards
    of one operation of that skill come first in the draw order, so they are among the first
    turned up (R4.1); otherwise an ordinary shuffle of the seed (R1.4), a random one unless
    given (a replayed practice game, the tests).
    """
    players: list[dict[str, Any]] = [{"student": student}]
    # No names and no label: "Computer 1" and "Practice" are words of the reader's language.
    players += [{"bot": strength} for _i in range(bots)]
    config = game_config_build(
        names=[student.name] + [""] * bots,
        levels=[student.level],
        settings={},
        untimed=(0,) if student.untimed else (),
    )
    if seed is None:
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
        scheduling.schedule_bot(game_id=game.pk, pause=pause)
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
        scheduling.schedule_bot(game_id=game.pk, pause=pause)
        _changed(game)
    return game


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
