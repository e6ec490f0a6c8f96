"""Recorded plays for the report tests: real games, played through games.services.

Every Play row here is written by games.services as a tablet's moves make it, from the
engine's verdicts: the moves are scripted (say) or chosen by the engine's computer players
(games.engine.bot_move) for each student's seat (played_game). A clock stands in for
django.utils.timezone.now while a game is played, so that its plays fall in the weeks a
test needs; nothing is written by hand.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date, datetime, timedelta
from unittest import mock
from zoneinfo import ZoneInfo

from classrooms.models import Classroom, Student
from games import engine, services
from games.models import Game
from reports import services as report_services

PARIS = ZoneInfo("Europe/Paris")


def paris(*args: int) -> datetime:
    """A moment written in the school's time zone (the test school is in Paris)."""
    return datetime(*args, tzinfo=PARIS)


def card(value: int, copy: int = 0) -> int:
    """The id of a number card in the deck up to 10 (0..10 twice: id = 2 × value + copy)."""
    return 2 * value + copy


class Clock:
    def __init__(self, at: datetime) -> None:
        self.now = at

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now


@contextmanager
def clock_at(at: datetime) -> Iterator[Clock]:
    """timezone.now() answers `at` (and whatever the clock is moved to) inside the block."""
    clock = Clock(at)
    with mock.patch("django.utils.timezone.now", clock):
        yield clock


def table(
    *,
    classroom: Classroom,
    students: Sequence[Student],
    at: datetime,
    draw: Sequence[int] | None = None,
    seed: int | None = None,
    bots: Sequence[str] = (),
    **settings,
) -> Game:
    """A game started at `at`: the students' seats first (position = index), then computer
    players; `draw` fixes the opening cards (R4.1), else the seed shuffles the deck."""
    settings.setdefault("turn_time", 120)
    settings.setdefault("challenge_window", 10)
    players = [{"student": s} for s in students] + [{"bot": b} for b in bots]
    with clock_at(at):
        game = services.game_create(
            school=classroom.school,
            classroom=classroom,
            players=players,
            settings=settings,
            seed=seed,
            draw_order=list(draw) if draw is not None else None,
        )
        return services.game_start(game=game)


def say(game: Game, seat: int, move: dict | str, *, at: datetime) -> services.MoveOutcome:
    """One scripted move from a seat's tablet at `at`; a text is an announcement (R3.2)."""
    if isinstance(move, str):
        move = {"type": "announce", "text": move}
    game.refresh_from_db()
    with clock_at(at):
        out = services.move_submit(game_id=game.pk, seat=seat, move=move, seen_version=game.version)
    if not out.applied:
        raise AssertionError(f"move {move} refused: {out.refusal_code}")
    return out


def finish(game: Game, *, at: datetime) -> Game:
    with clock_at(at):
        return services.game_end(game=game)


def played_game(
    *,
    classroom: Classroom,
    students: Sequence[Student],
    at: datetime,
    seed: int,
    strengths: Sequence[str] | None = None,
    bots: Sequence[str] = (),
    moves: int = 40,
    seconds: float = 7.0,
) -> Game:
    """A short game from a seed: each student's moves are those the engine's computer player
    of that strength would send (easy ones slip and overlook, R8.2), computer seats and time
    limits are played by games.services.game_tick; ended by the teacher after `moves` moves."""
    strengths = list(strengths or ["easy"] * len(students))
    game = table(classroom=classroom, students=students, at=at, seed=seed, bots=bots)
    rng = random.Random(seed)
    with clock_at(at) as clock:
        for _ in range(moves):
            game.refresh_from_db()
            if game.status != Game.Status.RUNNING:
                break
            state = engine.GameState.from_dict(game.state)
            clock.advance(seconds)
            if not _student_moves(game, state, strengths, rng):
                services.game_tick(game_id=game.pk, now=clock.now)
        game.refresh_from_db()
        if game.status == Game.Status.RUNNING:
            game = services.game_end(game=game)
    return game


def _student_moves(game: Game, state, strengths: list[str], rng: random.Random) -> bool:
    n = state.n_seats
    if state.phase == "window" and state.pending is not None:
        order = [(state.pending["seat"] + i) % n for i in range(1, n)]
    else:
        order = list(range(n))
    for seat in order:
        if seat >= len(strengths):
            continue  # a computer player: game_tick plays it
        move = engine.bot_move(engine.seat_view(state, seat), strengths[seat], rng)
        if move is None:
            continue
        out = services.move_submit(
            game_id=game.pk, seat=seat, move=move, seen_version=state.version
        )
        return out.applied
    return False


def one_move(
    *,
    classroom: Classroom,
    student: Student,
    move: dict | str,
    at: datetime,
    table_values: Sequence[int] = (2, 3, 5),
    react_seconds: float = 6.0,
) -> Game:
    """A game against an easy computer player in which the student makes one move
    `react_seconds` after the deal (their reaction time), on a table of `table_values` (R4.1);
    the time limits then run out, the computer answers, and the teacher ends the game."""
    game = table(
        classroom=classroom,
        students=[student],
        at=at,
        bots=["easy"],
        seed=1,
        draw=[card(v, copy=list(table_values[:i]).count(v)) for i, v in enumerate(table_values)],
    )
    say(game, 0, move, at=at + timedelta(seconds=react_seconds))
    later = at + timedelta(seconds=react_seconds + 30)
    services.game_tick(game_id=game.pk, now=later)
    return finish(game, at=later)


def three_weeks_reported(*, classroom: Classroom, anna: Student, brieuc: Student) -> None:
    """Three weeks of real games (R4): in each, Anna makes one right and one wrong operation and
    Brieuc one right one, each against a computer player, through the services; then each
    student's weekly report of those three weeks is built."""
    for week_day in (3, 10, 17):
        one_move(
            classroom=classroom, student=anna, move="2 + 3 = 5", at=paris(2026, 11, week_day, 9, 0)
        )
        one_move(
            classroom=classroom, student=anna, move="5 + 2 = 3", at=paris(2026, 11, week_day, 10, 0)
        )
        one_move(
            classroom=classroom,
            student=brieuc,
            move="2 + 3 = 5",
            at=paris(2026, 11, week_day, 11, 0),
        )
    for monday in (date(2026, 11, 2), date(2026, 11, 9), date(2026, 11, 16)):
        report_services.report_build(student=anna, week_start=monday)
        report_services.report_build(student=brieuc, week_start=monday)
