"""The demo's children at play: the engine's computer player at each child's strength, with slips.

Every move goes through the platform's services (move_submit as a tablet sends it, game_tick for
computer players and time limits), dated by the demo clock.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from classgames.models import ClassSession
from classgames.services import (
    class_session_clocks_shift,
    class_table_start,
    session_after_game_change,
)
from classrooms.models import Classroom, Student, User
from classrooms.services import levels_set
from games import engine
from games.models import Game
from games.services import MoveOutcome, game_create, game_start, game_tick, move_submit

from .clock import DemoClock, local_time
from .data import (
    GAME_SETTINGS,
    HISTORY_WEEKS,
    LIVE_MIN_MOVES,
    LIVE_SETTINGS,
    THINK_SECONDS,
    WINDOW_SECONDS,
    DemoClass,
)


@dataclass(frozen=True)
class Player:
    """A student's seat, played by the engine's computer player at the child's strength."""

    student: Student
    strength: str
    slip: float = 0.0

    def move(self, state, position: int, rng: random.Random) -> dict | None:
        """The engine's computer player decides; now and then the child slips, as children do."""
        view = engine.seat_view(state, position)
        if state.phase == "turn" and rng.random() < self.slip:
            text = near_miss(view, rng)
            if text is not None:
                return {"type": "announce", "seat": position, "text": text}
        return engine.bot_move(view, self.strength, rng)

    def answers_at(self, game: Game, state, position: int) -> datetime:
        """When the child answers in this phase: fixed for the phase, whatever others do meanwhile."""
        start = game.phase_started_at or game.last_move_at
        rng = random.Random(f"{game.seed}/think/{position}/{state.timer_started}/{state.phase}")
        low, high = WINDOW_SECONDS if state.phase == "window" else THINK_SECONDS[self.strength]
        return start + timedelta(seconds=rng.uniform(low, high))


def near_miss(view: dict, rng: random.Random) -> str | None:
    """A child's wrong operation with cards in reach: "7 + 5 = 11", off by one or two.

    The engine judges it wrong (R3.5), the others may challenge it (R5), and the reports count
    it as a mistake, which a demo of only perfect players would never show.
    """
    cards = view["table"] + view["seats"][view["seat"]]["held"]
    numbers = [c["value"] for c in cards if c["kind"] == "number"]
    operators = [
        op for op in "+-*" if op in engine.RuleSet.from_dict(view["rules"]).allowed_operators
    ]
    tries = [
        (i, j, k, op)
        for i in range(len(numbers))
        for j in range(len(numbers))
        for k in range(len(numbers))
        for op in operators
        if len({i, j, k}) == 3
    ]
    rng.shuffle(tries)
    for i, j, k, op in tries:
        a, b, c = numbers[i], numbers[j], numbers[k]
        true = {"+": a + b, "-": a - b, "*": a * b}[op]
        if true >= 0 and 0 < abs(true - c) <= 2:
            return f"{a} {op} {b} = {c}"
    return None


def play(
    game_id: int,
    *,
    clock: DemoClock,
    players: dict[int, Player],
    stop: Callable[[Game, object, int], bool] | None = None,
    max_steps: int = 5000,
) -> int:
    """Play a started game through the services until it ends (or `stop` says so); moves applied.

    Whatever happens first on the clock happens next: a child's answer (the engine's computer
    player deciding from the child's seat view, sent through move_submit as a tablet would), a
    computer player's due move or an expired time limit (both through game_tick).
    """
    applied = 0
    refused: set[tuple[int, int]] = set()
    game = Game.objects.get(pk=game_id)
    for _step in range(max_steps):
        if game.status != Game.Status.RUNNING:
            return applied
        state = engine.GameState.from_dict(game.state)
        if stop is not None and stop(game, state, applied):
            return applied
        options: list[tuple[datetime, int, int]] = []  # (when, priority, seat or -1 for a tick)
        if game.bot_due_at is not None:
            options.append((game.bot_due_at, 1, -1))
        if game.timer_deadline is not None:
            options.append((game.timer_deadline, 2, -1))
        for position, player in players.items():
            if (state.version, position) not in refused and engine.legal_moves(state, position):
                options.append((player.answers_at(game, state, position), 0, position))
        if not options:
            raise RuntimeError(f"demo game {game_id} is stuck in phase {state.phase}")
        moment, _priority, position = min(options)
        clock.advance_to(moment)
        if position < 0:
            applied += game_tick(game_id=game_id, now=clock())
            game = Game.objects.get(pk=game_id)
            continue
        outcome = child_move(game, state, position, players[position])
        if outcome is None or not outcome.applied:
            refused.add((state.version, position))  # this child lets the time run out instead
            continue
        applied += 1
        game = outcome.game  # the row as move_submit saved it
    raise RuntimeError(f"demo game {game_id} did not end within {max_steps} steps")


def child_move(game: Game, state, position: int, player: Player) -> MoveOutcome | None:
    """The child at `position` answers as from their tablet: the engine's computer player
    deciding from their seat's view, sent through move_submit (None: they let the time run out)."""
    rng = random.Random(f"{game.seed}/child/{state.version}/{position}")
    move = player.move(state, position, rng)
    if move is None:
        return None
    return move_submit(
        game_id=game.pk,
        seat=position,
        move=move,
        seen_version=game.version,
        by=player.student.user,
    )


def _seed(*parts: object) -> int:
    return zlib.crc32("/".join(str(p) for p in parts).encode())


def _tables(spec: tuple[str, ...], students: dict[str, Student]) -> list[list[dict]]:
    tables = []
    for text in spec:
        players: list[dict] = []
        for word in text.split():
            players.append(
                {"bot": word[1:], "name": ""}
                if word.startswith("+")
                else {"student": students[word]}
            )
        tables.append(players)
    return tables


def class_game_start(
    *, classroom: Classroom, tables: list[list[dict]], settings: dict, by: User, seed: str
) -> tuple[ClassSession, list[Game]]:
    """A class game as classgames.services.class_session_start makes it, with fixed seeds.

    class_session_start draws every table's seed at random; the demo must be the same on every
    machine, so it creates the session the same way and gives game_create a seed per table.
    Each table plays at its weakest student's level (game_create applies R2.3).
    """
    session = ClassSession.objects.create(
        classroom=classroom,
        created_by=by,
        status=ClassSession.Status.RUNNING,
        settings={**settings, "starter": "first", "cap_range": None, "cap_tier": None},
    )
    games = []
    for number, players in enumerate(tables, start=1):
        game = class_table_start(
            session=session,
            number=number,
            players=players,
            settings={**settings, "starter": 0},
            by=by,
            seed=_seed(seed, number),
        )
        games.append(game)
    return session, games


def live_class_game_start(
    *, spec: DemoClass, classroom: Classroom, students: dict[str, Student], by: User, seed: str
) -> tuple[ClassSession, list[Game]]:
    """The demo's running class game at its tables (spec.live), with the live settings."""
    tables = _tables(spec.live, students)
    return class_game_start(
        classroom=classroom, tables=tables, settings=LIVE_SETTINGS, by=by, seed=seed
    )


def side_by_side(games: list[Game], clock: DemoClock) -> Iterator[Game]:
    """The tables of a class game, each played from the class game's start (side by side)."""
    start = clock()
    for game in games:
        clock.set(start)
        yield game


def _players(game: Game, spec: DemoClass, week: int) -> dict[int, Player]:
    kids = {k.name: k for k in spec.students}
    return {
        seat.position: Player(
            seat.student, kids[seat.student.name].strength(week), kids[seat.student.name].slip(week)
        )
        for seat in game.seats.select_related("student__user")
        if seat.student_id
    }


def history_play(
    *,
    spec: DemoClass,
    classroom: Classroom,
    teacher: User,
    clock: DemoClock,
    first_monday: date,
    tz: ZoneInfo,
) -> set[date]:
    """The class's lessons of the past weeks, level changes included; the weeks played."""
    students = {
        s.name: s for s in Student.objects.filter(classroom=classroom).select_related("user")
    }
    promotions = {k.promoted_week: k for k in spec.students if k.start}
    weeks: set[date] = set()
    for lesson in spec.lessons:
        monday = first_monday + timedelta(weeks=lesson.week)
        kid = promotions.pop(lesson.week, None)
        if kid is not None:
            # The teacher raised this child's level on Monday morning, before the week's games.
            clock.set(local_time(monday, "08:20", tz))
            levels_set(
                students=[students[kid.name]],
                number_range=kid.number_range,
                tier=kid.tier,
                by=teacher,
            )
            students[kid.name].refresh_from_db()
        clock.set(local_time(monday + timedelta(days=lesson.weekday), lesson.at, tz))
        session, games = class_game_start(
            classroom=classroom,
            tables=_tables(lesson.tables, students),
            settings=GAME_SETTINGS,
            by=teacher,
            seed=f"{spec.code}/{lesson.week}/{lesson.weekday}",
        )
        for game in side_by_side(games, clock):
            play(game.pk, clock=clock, players=_players(game, spec, lesson.week))
        session_after_game_change(session_id=session.pk)
        weeks.add(monday)
        practice_play(
            spec=spec, students=students, clock=clock, week=lesson.week, weekday=lesson.weekday
        )
    return weeks


def practice_play(
    *, spec: DemoClass, students: dict[str, Student], clock: DemoClock, week: int, weekday: int
) -> int:
    """After a lesson, the children who practise play alone against one easy computer player,
    as from the tablet's "Practise against the computer"; the number of games played."""
    played = 0
    lessons_this_week = [lesson for lesson in spec.lessons if lesson.week == week]
    if lessons_this_week[-1].weekday != weekday:
        return played  # once a week, after the week's last lesson
    for kid in spec.students:
        if kid.practice_from_week is None or week < kid.practice_from_week:
            continue
        student = students[kid.name]
        for number in range(kid.practice_per_week):
            clock.advance_to(clock() + timedelta(minutes=20))
            game = game_create(
                school=student.classroom.school,
                classroom=student.classroom,
                players=[{"student": student}, {"bot": "easy"}],
                settings={},
                created_by=student.user,
                kind=Game.Kind.PRACTICE,
                seed=_seed(spec.code, "practice", kid.name, week, number),
            )
            game_start(game=game, by=student.user)
            player = Player(student, kid.strength(week), kid.slip(week))
            play(game.pk, clock=clock, players={0: player})
            played += 1
    return played


def live_play(
    *, spec: DemoClass, classroom: Classroom, teacher: User, clock: DemoClock, now: datetime
) -> ClassSession:
    """A class game started a few minutes ago, each table now waiting for a student's move."""
    students = {
        s.name: s for s in Student.objects.filter(classroom=classroom).select_related("user")
    }
    clock.set(now - timedelta(minutes=3))
    session, games = live_class_game_start(
        spec=spec, classroom=classroom, students=students, by=teacher, seed=f"{spec.code}/live"
    )
    for game in side_by_side(games, clock):
        players = _players(game, spec, HISTORY_WEEKS - 1)

        def waits_for_a_child(game: Game, state, applied: int, players=players) -> bool:
            # Enough moves to look at, and never past the real present.
            enough = applied >= LIVE_MIN_MOVES or clock() >= now - timedelta(minutes=1)
            return (
                enough
                and state.phase == "turn"
                and game.bot_due_at is None
                and state.active in players
            )

        play(game.pk, clock=clock, players=players, stop=waits_for_a_child)
    # The demo's running class game plays on by itself from now on (demo.alive).
    session.settings = {**session.settings, "demo_live": True}
    session.save(update_fields=["settings"])
    return session


# The running class game's last move, as the demo shows it: a moment ago, never long enough for
# the live view's "No move for … minutes" (classgames.selectors.STUCK_AFTER_SECONDS).
LIVE_LAST_MOVE_AGO = timedelta(seconds=20)


def live_refresh(*, session: ClassSession, now: datetime) -> timedelta:
    """Bring the running class game's clock to now, as if it had just been played; the shift.

    The demo is built once and looked at later: without this its running game would say "No
    move for 46 minutes". Every moment of the game moves by the same amount (its moves, plays,
    seats and clocks), so the game stays the one played; nothing else changes.
    """
    games = session.games.filter(status=Game.Status.RUNNING)
    last = max((g.last_move_at for g in games if g.last_move_at), default=None)
    if last is None:
        return timedelta(0)
    shift = now - LIVE_LAST_MOVE_AGO - last
    if shift <= timedelta(0):
        return timedelta(0)
    class_session_clocks_shift(session=session, shift=shift)  # the floors' own writers
    return shift
