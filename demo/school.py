"""The demo school: accounts, two classes, and weeks of play made through the platform's own services.

The school's data is in data.py, the clock that dates what the demo writes in clock.py, and the
children playing (the engine's computer player at each child's strength) in simulate.py.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.db import transaction
from django.utils import timezone

from classgames.models import ClassSession
from classrooms.models import Classroom, ParentLink, School, Student, User
from classrooms.pictures import pictures_of
from classrooms.services import student_create
from games.models import Game
from reports.tasks import build_class_reports

from .alive import DEMO_FLAG, DEMO_SCHOOL_SLUG, demo_restart_if_over
from .clock import demo_clock, local_time
from .data import DEMO_CLASSES, DEMO_PASSWORD, HISTORY_WEEKS, PARENT_OF, SCHOOL_YEAR
from .simulate import history_play, live_play, live_refresh

__all__ = ["DEMO_PASSWORD", "DemoSummary", "demo_school_build", "pictures_words"]


@dataclass
class DemoSummary:
    """What the demo contains, for the command to print."""

    school: School
    classes: list[Classroom] = field(default_factory=list)
    child: Student | None = None
    live: ClassSession | None = None
    history_added: list[str] = field(default_factory=list)  # class codes given play this run
    weeks: list[date] = field(default_factory=list)


# --- the school ------------------------------------------------------------------------------


def _password_hash() -> str:
    # Hashed once for the three staff accounts: each hash takes a noticeable part of a second.
    # Once per list of hashers: a hash made under another list may not be checkable under this.
    return _password_hash_with(tuple(settings.PASSWORD_HASHERS))


@lru_cache(maxsize=4)
def _password_hash_with(hashers: tuple[str, ...]) -> str:
    return make_password(DEMO_PASSWORD)


def _user(
    username: str, role: str, school: School, first: str, last: str, staff: bool = False
) -> User:
    user = User.objects.filter(username=username).first()
    if user is None:
        user = User(
            username=username,
            role=role,
            school=school,
            first_name=first,
            last_name=last,
            is_staff=staff,
            email=f"{username}@demo.invalid",
            password=_password_hash(),
        )
        user.save()
    return user


def _accounts(*, history: bool) -> tuple[School, User, list[Classroom]]:
    """School, staff, parent, classes and students; only what is missing is created."""
    school, _created = School.objects.get_or_create(
        slug=DEMO_SCHOOL_SLUG,
        defaults={
            "name": "Skol Demo – École de démonstration",
            "time_zone": "Europe/Paris",
            "programme": "fr",  # a school in Brittany: the French programme
        },
    )
    _user("admin", User.Role.SCHOOL_ADMIN, school, "Morgane", "Le Gall", staff=True)
    teacher = _user("teacher", User.Role.TEACHER, school, "Yann", "Kerjean")
    parent = _user("parent", User.Role.PARENT, school, "Soazig", "Le Bihan")
    classes = []
    for spec in DEMO_CLASSES:
        classroom, _created = Classroom.objects.get_or_create(
            code=spec.code,
            defaults={"school": school, "name": spec.name, "school_year": SCHOOL_YEAR},
        )
        classroom.teachers.add(teacher)
        classes.append(classroom)
        for kid in spec.students:
            if Student.objects.filter(classroom=classroom, name=kid.name).exists():
                continue
            # With a history, a promoted child starts at the level they had five weeks ago.
            number_range, tier = (
                kid.start if history and kid.start else (kid.number_range, kid.tier)
            )
            student_create(
                classroom=classroom,
                name=kid.name,
                number_range=number_range,
                tier=tier,
                changed_by=teacher,
                picture_code=kid.pictures,
            )
    child = Student.objects.get(classroom=classes[0], name=PARENT_OF)
    ParentLink.objects.get_or_create(parent=parent, student=child)
    return school, teacher, classes


def reports_build(*, classroom: Classroom, weeks: set[date]) -> None:
    """The weekly reports of those weeks, built in-process by the Celery task the beat runs."""
    for week in sorted(weeks):  # oldest first: the level advice follows the newest week
        build_class_reports(classroom.pk, week.isoformat())


# --- all of it -------------------------------------------------------------------------------


@transaction.atomic
def demo_school_build(*, history: bool = True) -> DemoSummary:
    """Create (or complete) the demo school; a second run changes nothing.

    A class gets its history (past games, level changes, reports, and for the second class a running
    class game) only while it has no game at all, so the history is made once.
    """
    now = timezone.now()
    tz = ZoneInfo("Europe/Paris")
    today = timezone.localdate(now, tz)
    # The history ends with the last school week that is over: this one from Saturday on.
    last_monday = today - timedelta(days=today.weekday(), weeks=0 if today.weekday() >= 5 else 1)
    first_monday = last_monday - timedelta(weeks=HISTORY_WEEKS - 1)
    # Accounts made with a history are dated the Monday it starts, before its first game.
    with demo_clock(local_time(first_monday, "08:00", tz)) if history else nullcontext():
        school, teacher, classes = _accounts(history=history)
    tz = ZoneInfo(school.time_zone)
    summary = DemoSummary(
        school=school,
        classes=classes,
        child=Student.objects.get(classroom=classes[0], name=PARENT_OF),
    )
    if history:
        for spec, classroom in zip(DEMO_CLASSES, classes, strict=True):
            if Game.objects.filter(classroom=classroom).exists():
                continue
            with demo_clock(local_time(first_monday, "08:00", tz)) as clock:
                weeks = history_play(
                    spec=spec,
                    classroom=classroom,
                    teacher=teacher,
                    clock=clock,
                    first_monday=first_monday,
                    tz=tz,
                )
                if spec.live:
                    live_play(spec=spec, classroom=classroom, teacher=teacher, clock=clock, now=now)
            reports_build(classroom=classroom, weeks=weeks)
            summary.history_added.append(classroom.code)
            summary.weeks = sorted(set(summary.weeks) | weeks)
    summary.live = (
        ClassSession.objects.filter(classroom__school=school, status=ClassSession.Status.RUNNING)
        .order_by("-created_at")
        .first()
    )
    if summary.live is None:
        # The demo's class game ended while the demo ran: the next one starts (demo/alive.py).
        summary.live = demo_restart_if_over()
    if summary.live is not None:
        live_refresh(session=summary.live, now=now)  # looked at today, not when it was built
        if not summary.live.settings.get(DEMO_FLAG):  # a demo built before it played on
            summary.live.settings = {**summary.live.settings, DEMO_FLAG: True}
            summary.live.save(update_fields=["settings"])
    return summary


def pictures_words(student: Student) -> str:
    return ", ".join(str(name) for _index, _emoji, name in pictures_of(student.picture_code))
