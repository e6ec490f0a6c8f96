"""The demo school: accounts, two classes, and weeks of play made through the platform's own services."""
from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

from django.contrib.auth.hashers import make_password
from django.db import transaction
from django.utils import timezone

from classrooms.models import Classroom, ParentLink, School, Student, User
from classrooms.pictures import pictures_of
from classrooms.services import class_session_sync, levels_set, student_create
from games import engine
from games.models import ClassSession, Game
from games.services import game_create, game_start, game_tick, move_submit

DEMO_PASSWORD = "kavet-demo"
SCHOOL_YEAR = "2026-2027"
HISTORY_WEEKS = 5  # the school weeks of play before the current week
# The teacher's form defaults (classrooms.forms.ClassGameSettingsForm).
GAME_SETTINGS = {"challenge_window": 10, "challenge_time": 60, "turn_time": 120,
                 "nothing_true_penalty": 3, "lesson": None, "copies": 2, "x_cards": 4, "events": True}
# The running class game has no turn limit, so it waits for a tablet instead of playing on by
# itself with "time ran out" while nobody looks.
LIVE_SETTINGS = {**GAME_SETTINGS, "turn_time": 0}
LIVE_MIN_MOVES = 10  # moves played at each table of the running class game before it waits

# How long a child thinks, by the computer-player strength that stands in for them (seconds).
# "Easy" children are often slower than the reports' 20 s for "quickly"; "hard" ones are not.
THINK_SECONDS = {"easy": (7.0, 35.0), "medium": (5.0, 22.0), "hard": (3.0, 12.0)}
WINDOW_SECONDS = (1.5, 8.0)  # answering OK or "Kavet 'm eus!" to someone else's announcement


def _by_week(values: tuple, week: int):
    """A habit spread over the history weeks: ("easy", "medium") is easy first, medium later."""
    return values[min(len(values) - 1, week * len(values) // HISTORY_WEEKS)]


@dataclass(frozen=True)
class DemoStudent:
    """A demo child: level now, level when the history starts, and how they play week by week."""

    name: str
    number_range: int
    tier: int
    pictures: str
    strengths: tuple[str, ...]  # the computer player that stands in for the child, by week
    slips: tuple[float, ...] = (0.1,)  # chance of announcing a wrong operation on their turn
    start: tuple[int, int] | None = None  # (range, tier) five weeks ago, when it was lower
    promoted_week: int = 0  # week of the history (0 = first) when the teacher raised the level

    def strength(self, week: int) -> str:
        return _by_week(self.strengths, week)

    def slip(self, week: int) -> float:
        return _by_week(self.slips, week)


@dataclass(frozen=True)
class Lesson:
    """A class game in the past: week of the history, weekday (0 = Monday), local time, tables.

    A table is written "Anna Bleuenn +easy": students in seat order, then computer players.
    """

    week: int
    weekday: int
    at: str
    tables: tuple[str, ...]


@dataclass(frozen=True)
class DemoClass:
    name: str
    code: str
    students: tuple[DemoStudent, ...]
    lessons: tuple[Lesson, ...] = ()
    live: tuple[str, ...] = ()  # the tables of a class game left running now


DEMO_CLASSES = (
    DemoClass("CP-CE1", "DEMO1", (
        DemoStudent("Anna", 10, 1, "0-4-8", ("easy", "easy", "medium"), (0.25, 0.15, 0.08)),
        DemoStudent("Bleuenn", 10, 1, "1-5-9", ("easy",), (0.2,)),
        DemoStudent("Corentin", 20, 1, "2-6-10", ("medium", "hard"), (0.1, 0.05),
                    start=(10, 1), promoted_week=2),
        DemoStudent("Dewi", 10, 1, "3-7-11", ("easy",), (0.3, 0.25)),
        DemoStudent("Elouan", 20, 2, "12-13-14", ("hard",), (0.05,)),
        DemoStudent("Fanny", 20, 1, "15-0-5", ("medium",), (0.15,)),
    ), lessons=(
        Lesson(0, 1, "10:15", ("Anna Bleuenn Dewi", "Corentin Elouan Fanny")),
        Lesson(1, 4, "14:00", ("Anna Dewi +easy", "Bleuenn Corentin Fanny")),
        Lesson(2, 1, "10:15", ("Anna Bleuenn", "Corentin Elouan Fanny")),
        Lesson(3, 3, "10:15", ("Anna Fanny Dewi", "Bleuenn Corentin Elouan")),
        Lesson(4, 1, "14:00", ("Anna Bleuenn Dewi +easy", "Corentin Elouan Fanny")),
    )),
    DemoClass("CM1", "DEMO2", (
        DemoStudent("Gwen", 20, 2, "0-4-8", ("medium",), (0.1,)),
        DemoStudent("Hugo", 20, 2, "1-5-9", ("easy", "medium"), (0.25, 0.15)),
        DemoStudent("Iwan", 20, 3, "2-6-10", ("hard",), (0.03,)),
        DemoStudent("Jade", 20, 2, "3-7-11", ("medium",), (0.12,)),
        # Tier 3 is new to Katell after her promotion: a few more slips at first.
        DemoStudent("Katell", 20, 3, "12-13-14", ("medium", "hard"), (0.08, 0.08, 0.08, 0.15, 0.1),
                    start=(20, 2), promoted_week=3),
        DemoStudent("Loïc", 10, 2, "15-0-5", ("easy",), (0.3,)),
    ), lessons=(
        Lesson(0, 0, "09:30", ("Gwen Hugo Loïc", "Iwan Jade Katell")),
        Lesson(1, 3, "09:30", ("Iwan Katell +hard", "Gwen Hugo Jade Loïc")),
        Lesson(2, 0, "09:30", ("Gwen Jade +medium", "Hugo Iwan Loïc")),
        Lesson(3, 3, "09:30", ("Iwan Katell", "Gwen Hugo Jade Loïc")),
        Lesson(4, 0, "09:30", ("Gwen Hugo Loïc", "Iwan Jade Katell")),
    ), live=("Gwen Hugo Jade +medium", "Iwan Katell +hard")),
)
PARENT_OF = "Anna"


@dataclass
class DemoSummary:
    """What the demo contains, for the command to print."""

    school: School
    classes: list[Classroom] = field(default_factory=list)
    child: Student | None = None
    live: ClassSession | None = None
    history_added: list[str] = field(default_factory=list)  # class codes given play this run
    weeks: list[date] = field(default_factory=list)


# --- the demo clock --------------------------------------------------------------------------


class DemoClock:
    """The moment the services believe it is while the demo's past is played.

    The demo's history is played through the real services (move_submit, game_tick, levels_set,
    student_create), which stamp rows with timezone.now(). Playing it under this clock dates the
    demo data where it belongs, the way it would have been written on those days: games that
    last minutes, and reaction times a child would have. Shifting real-time rows afterwards
    would leave games of a fraction of a second and reaction times of a few milliseconds, which
    is what the reports measure ("quickly", minutes played).
    """

    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment

    def set(self, moment: datetime) -> None:
        self.moment = moment

    def advance_to(self, moment: datetime) -> None:
        self.moment = max(self.moment, moment)


@contextmanager
def demo_clock(moment: datetime) -> Iterator[DemoClock]:
    """Date the demo data: timezone.now() answers the demo clock until the block ends.

    Only for this command, which runs alone in its process; everything written meanwhile
    (auto_now_add fields included) is demo data being dated. Celery is kept in-process so that
    no worker is sent a computer player's move for a game this loop is already playing.
    """
    from kavet_site.celery import app

    clock = DemoClock(moment)
    real_now, eager = timezone.now, app.conf.task_always_eager
    timezone.now = clock
    app.conf.task_always_eager = True
    try:
        yield clock
    finally:
        timezone.now = real_now
        app.conf.task_always_eager = eager


# --- the school ------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _password_hash() -> str:
    # Hashed once for the three staff accounts: each hash takes a noticeable part of a second.
    return make_password(DEMO_PASSWORD)


def _user(username: str, role: str, school: School, first: str, last: str, staff: bool = False) -> User:
    user = User.objects.filter(username=username).first()
    if user is None:
        user = User(username=username, role=role, school=school, first_name=first,
                    last_name=last, is_staff=staff, email=f"{username}@demo.invalid",
                    password=_password_hash())
        user.save()
    return user


def _accounts(*, history: bool) -> tuple[School, User, list[Classroom]]:
    """School, staff, parent, classes and students; only what is missing is created."""
    school, _created = School.objects.get_or_create(
        slug="demo", defaults={"name": "Skol Demo – École de démonstration", "time_zone": "Europe/Paris"}
    )
    _user("admin", User.Role.SCHOOL_ADMIN, school, "Morgane", "Le Gall", staff=True)
    teacher = _user("teacher", User.Role.TEACHER, school, "Yann", "Kerjean")
    parent = _user("parent", User.Role.PARENT, school, "Soazig", "Le Bihan")
    classes = []
    for spec in DEMO_CLASSES:
        classroom, _created = Classroom.objects.get_or_create(
            code=spec.code, defaults={"school": school, "name": spec.name, "school_year": SCHOOL_YEAR}
        )
        classroom.teachers.add(teacher)
        classes.append(classroom)
        for kid in spec.students:
            if Student.objects.filter(classroom=classroom, name=kid.name).exists():
                continue
            # With a history, a promoted child starts at the level they had five weeks ago.
            number_range, tier = kid.start if history and kid.start else (kid.number_range, kid.tier)
            student_create(classroom=classroom, name=kid.name, number_range=number_range, tier=tier,
                           changed_by=teacher, picture_code=kid.pictures)
    child = Student.objects.get(classroom=classes[0], name=PARENT_OF)
    ParentLink.objects.get_or_create(parent=parent, student=child)
    return school, teacher, classes


# --- playing ---------------------------------------------------------------------------------


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
    operators = [op for op in "+-*" if op in engine.RuleSet.from_dict(view["rules"]).allowed_operators]
    tries = [(i, j, k, op) for i in range(len(numbers)) for j in range(len(numbers))
             for k in range(len(numbers)) for op in operators if len({i, j, k}) == 3]
    rng.shuffle(tries)
    for i, j, k, op in tries:
        a, b, c = numbers[i], numbers[j], numbers[k]
        true = {"+": a + b, "-": a - b, "*": a * b}[op]
        if true >= 0 and 0 < abs(true - c) <= 2:
            return f"{a} {op} {b} = {c}"
    return None


def play(game_id: int, *, clock: DemoClock, players: dict[int, Player],
         stop: Callable[[Game, object, int], bool] | None = None, max_steps: int = 5000) -> int:
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
        player = players[position]
        rng = random.Random(f"{game.seed}/child/{state.version}/{position}")
        move = player.move(state, position, rng)
        outcome = None
        if move is not None:
            outcome = move_submit(game_id=game_id, seat=position, move=move,
                                  seen_version=game.version, by=player.student.user)
        if outcome is None or not outcome.applied:
            refused.add((state.version, position))  # this child lets the time run out instead
            continue
        applied += 1
        game = outcome.game  # the row as move_submit saved it
    raise RuntimeError(f"demo game {game_id} did not end within {max_steps} steps")


def _seed(*parts: object) -> int:
    return zlib.crc32("/".join(str(p) for p in parts).encode())


def _tables(spec: tuple[str, ...], students: dict[str, Student]) -> list[list[dict]]:
    tables = []
    for text in spec:
        players: list[dict] = []
        for word in text.split():
            players.append({"bot": word[1:], "name": ""} if word.startswith("+")
                           else {"student": students[word]})
        tables.append(players)
    return tables


def class_game_start(*, classroom: Classroom, tables: list[list[dict]], settings: dict, by: User,
                     seed: str) -> tuple[ClassSession, list[Game]]:
    """A class game as classrooms.services.class_session_start makes it, with fixed seeds.

    class_session_start draws every table's seed at random; the demo must be the same on every
    machine, so it creates the session the same way and gives game_create a seed per table.
    Each table plays at its weakest student's level (game_create applies R2.3).
    """
    session = ClassSession.objects.create(
        classroom=classroom, created_by=by, status=ClassSession.Status.RUNNING,
        settings={**settings, "starter": "first", "cap_range": None, "cap_tier": None},
    )
    games = []
    for number, players in enumerate(tables, start=1):
        game = game_create(school=classroom.school, players=players, settings={**settings, "starter": 0},
                           created_by=by, classroom=classroom, session=session, kind="class",
                           label=str(number), seed=_seed(seed, number))
        games.append(game_start(game=game, by=by))
    return session, games


def _players(game: Game, spec: DemoClass, week: int) -> dict[int, Player]:
    kids = {k.name: k for k in spec.students}
    return {seat.position: Player(seat.student, kids[seat.student.name].strength(week),
                                  kids[seat.student.name].slip(week))
            for seat in game.seats.select_related("student__user") if seat.student_id}


def _local(day: date, at: str, tz: ZoneInfo) -> datetime:
    return datetime.combine(day, time.fromisoformat(at), tzinfo=tz)


def history_play(*, spec: DemoClass, classroom: Classroom, teacher: User, clock: DemoClock,
                 first_monday: date, tz: ZoneInfo) -> set[date]:
    """The class's lessons of the past weeks, level changes included; the weeks played."""
    students = {s.name: s for s in Student.objects.filter(classroom=classroom).select_related("user")}
    promotions = {k.promoted_week: k for k in spec.students if k.start}
    weeks: set[date] = set()
    for lesson in spec.lessons:
        monday = first_monday + timedelta(weeks=lesson.week)
        kid = promotions.pop(lesson.week, None)
        if kid is not None:
            # The teacher raised this child's level on Monday morning, before the week's games.
            clock.set(_local(monday, "08:20", tz))
            levels_set(students=[students[kid.name]], number_range=kid.number_range, tier=kid.tier,
                       by=teacher)
            students[kid.name].refresh_from_db()
        clock.set(_local(monday + timedelta(days=lesson.weekday), lesson.at, tz))
        session, games = class_game_start(
            classroom=classroom, tables=_tables(lesson.tables, students), settings=GAME_SETTINGS,
            by=teacher, seed=f"{spec.code}/{lesson.week}/{lesson.weekday}")
        lesson_start = clock()
        for game in games:
            # The tables play side by side: each starts with the lesson.
            clock.set(lesson_start)
            play(game.pk, clock=clock, players=_players(game, spec, lesson.week))
        class_session_sync(session=session, games=list(Game.objects.filter(session=session)))
        weeks.add(monday)
    return weeks


def live_play(*, spec: DemoClass, classroom: Classroom, teacher: User, clock: DemoClock,
              now: datetime) -> ClassSession:
    """A class game started a few minutes ago, each table now waiting for a student's move."""
    students = {s.name: s for s in Student.objects.filter(classroom=classroom).select_related("user")}
    clock.set(now - timedelta(minutes=3))
    session, games = class_game_start(classroom=classroom, tables=_tables(spec.live, students),
                                      settings=LIVE_SETTINGS, by=teacher, seed=f"{spec.code}/live")
    start = clock()
    for game in games:
        clock.set(start)
        players = _players(game, spec, HISTORY_WEEKS - 1)

        def waits_for_a_child(game: Game, state, applied: int, players=players) -> bool:
            # Enough moves to look at, and never past the real present.
            enough = applied >= LIVE_MIN_MOVES or clock() >= now - timedelta(minutes=1)
            return (enough and state.phase == "turn" and game.bot_due_at is None
                    and state.active in players)

        play(game.pk, clock=clock, players=players, stop=waits_for_a_child)
    return session


def reports_build(*, classroom: Classroom, weeks: set[date]) -> None:
    """The weekly reports of those weeks, built in-process by the Celery task the beat runs."""
    from classrooms.reports.tasks import build_class_reports

    for week in sorted(weeks):  # oldest first: the level advice follows the newest week
        build_class_reports(classroom.pk, week.isoformat())


# --- all of it -------------------------------------------------------------------------------


@transaction.atomic
def demo_school_build(*, history: bool = True) -> DemoSummary:
    """Create (or complete) the demo school; a second run changes nothing.

    A class gets its history (past games, level changes, reports, and for DEMO2 a running class
    game) only while it has no game at all, so the history is made once.
    """
    now = timezone.now()
    tz = ZoneInfo("Europe/Paris")
    today = timezone.localdate(now, tz)
    # The history ends with the last school week that is over: this one from Saturday on.
    last_monday = today - timedelta(days=today.weekday(), weeks=0 if today.weekday() >= 5 else 1)
    first_monday = last_monday - timedelta(weeks=HISTORY_WEEKS - 1)
    # Accounts made with a history are dated the Monday it starts, before its first game.
    with demo_clock(_local(first_monday, "08:00", tz)) if history else nullcontext():
        school, teacher, classes = _accounts(history=history)
    tz = ZoneInfo(school.time_zone)
    summary = DemoSummary(school=school, classes=classes,
                          child=Student.objects.get(classroom=classes[0], name=PARENT_OF))
    if history:
        for spec, classroom in zip(DEMO_CLASSES, classes, strict=True):
            if Game.objects.filter(classroom=classroom).exists():
                continue
            with demo_clock(_local(first_monday, "08:00", tz)) as clock:
                weeks = history_play(spec=spec, classroom=classroom, teacher=teacher, clock=clock,
                                     first_monday=first_monday, tz=tz)
                if spec.live:
                    live_play(spec=spec, classroom=classroom, teacher=teacher, clock=clock, now=now)
            reports_build(classroom=classroom, weeks=weeks)
            summary.history_added.append(classroom.code)
            summary.weeks = sorted(set(summary.weeks) | weeks)
    summary.live = (ClassSession.objects.filter(classroom__school=school, status=ClassSession.Status.RUNNING)
                    .order_by("-created_at").first())
    return summary


def pictures_words(student: Student) -> str:
    return ", ".join(str(name) for _index, _emoji, name in pictures_of(student.picture_code))
