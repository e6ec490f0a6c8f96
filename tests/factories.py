"""Small factories for rows (plain functions: readable, and enough for these tests)."""

from __future__ import annotations

import itertools

from classgames.models import ClassSession, ClassTable
from classrooms.models import Classroom, School, Student, User
from classrooms.services import class_code_new, student_create
from games import services as game_services
from games.models import Game

_counter = itertools.count(1)


def school(*, slug: str = "test", name: str = "Test school") -> School:
    return School.objects.get_or_create(slug=slug, defaults={"name": name})[0]


def user(
    *,
    role: str,
    school: School | None,
    username: str | None = None,
    password: str = "correct horse battery",
    **extra,
) -> User:
    username = username or f"{role}{next(_counter)}"
    u = User(username=username, role=role, school=school, **extra)
    u.set_password(password)
    u.save()
    return u


def teacher(*, school: School, username: str | None = None, **extra) -> User:
    return user(role=User.Role.TEACHER, school=school, username=username, **extra)


def parent(*, school: School | None = None, username: str | None = None, **extra) -> User:
    return user(role=User.Role.PARENT, school=school, username=username, **extra)


def school_admin(*, school: School, username: str | None = None) -> User:
    return user(role=User.Role.SCHOOL_ADMIN, school=school, username=username, is_staff=True)


def classroom(
    *, school: School, teachers=(), name: str | None = None, school_year: str = "2026-2027"
) -> Classroom:
    c = Classroom.objects.create(
        school=school,
        name=name or f"Class {next(_counter)}",
        school_year=school_year,
        code=class_code_new(),
    )
    c.teachers.add(*teachers)
    return c


def student(
    *,
    classroom: Classroom,
    name: str | None = None,
    number_range: int = 10,
    tier: int = 1,
    picture_code: str | None = None,
) -> Student:
    return student_create(
        classroom=classroom,
        name=name or f"Kid{next(_counter)}",
        number_range=number_range,
        tier=tier,
        picture_code=picture_code,
    )


def class_table(
    *,
    classroom: Classroom,
    students,
    teacher: User | None = None,
    label: str = "1",
    draw_order=None,
    session: ClassSession | None = None,
) -> Game:
    """A started table of a running class game (of `session`, else of a new one the teacher
    started): the students' seats in order, 120 s a turn and no challenge window, so the engine rules at once (R5.6)."""
    if session is None:
        session = ClassSession.objects.create(
            classroom=classroom, created_by=teacher, status=ClassSession.Status.RUNNING
        )
    game = game_services.game_create(
        school=classroom.school,
        classroom=classroom,
        label=label,
        players=[{"student": s} for s in students],
        settings={"turn_time": 120, "challenge_window": 0},
        draw_order=list(draw_order) if draw_order is not None else None,
    )
    ClassTable.objects.create(game=game, session=session)  # as classgames.services links it
    return game_services.game_start(game=game)


def tick_to_end(game: Game, now, *, step_seconds: int = 6, most: int = 2000) -> Game:
    """Let the clock run on a started game, `step_seconds` at a time from `now`, applying what
    falls due at each step (game_tick: time limits, computer players), until it is no longer
    running; `game` refreshed. AssertionError if it still runs after `most` steps."""
    from datetime import timedelta

    for _ in range(most):
        now += timedelta(seconds=step_seconds)
        game_services.game_tick(game_id=game.pk, now=now)
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            return game
    raise AssertionError(f"game {game.pk} still runs after {most} steps")
