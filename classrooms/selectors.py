"""Reads for the teachers' pages; every query starts from what the user may see (permissions)."""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.db.models import Count, QuerySet

from . import permissions
from .models import Classroom, LevelChange, School, Student, TeacherInvite, User
from .pages import TEACHER_HOME, panels_context
from .pictures import encode


def school_tz(school: School) -> ZoneInfo:
    """The school's time zone (the site's when the school's is unknown)."""
    try:
        return ZoneInfo(school.time_zone)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo(settings.TIME_ZONE)


# --- pages ---------------------------------------------------------------------------------


def teacher_home(user) -> dict:
    """The classes a teacher works with and the class games running in them."""
    classes = (
        permissions.readable(user, Classroom)
        .annotate(n_students=Count("students", distinct=True))
        .prefetch_related("teachers")
        .order_by("-school_year", "name")
    )
    active = [c for c in classes if c.archived_at is None]
    archived = [c for c in classes if c.archived_at is not None]
    # The class games running in them: classgames adds them (pages.TEACHER_HOME).
    return {"classes": active, "archived": archived, **panels_context(TEACHER_HOME, user)}


def teachers_of_school(user) -> QuerySet[User]:
    """The teachers a school admin may put on a class, by name."""
    return permissions.teachers_of_school(user).order_by("last_name", "first_name", "username")


def invites_of_school(user) -> QuerySet[TeacherInvite]:
    """The teacher invitations of a school admin's school."""
    return permissions.manageable(user, TeacherInvite).select_related("used_by")


def class_students(user, classroom: Classroom) -> QuerySet[Student]:
    """The students of a class, as far as this user teaches them."""
    return permissions.manageable(user, Student).filter(classroom=classroom)


def classroom_students(classroom: Classroom) -> list[Student]:
    return list(Student.objects.filter(classroom=classroom).order_by("name"))


def level_history(student: Student) -> list[LevelChange]:
    return list(
        LevelChange.objects.filter(student=student)
        .select_related("changed_by")
        .order_by("-changed_at", "-pk")
    )


def picture_code_lookup(*, classroom: Classroom, pictures: list[int]) -> Student | None:
    """Who signs in with these three pictures, in this order."""
    return Student.objects.filter(classroom=classroom, picture_code=encode(pictures)).first()


def classrooms_to_move_to(user, *, student: Student) -> QuerySet[Classroom]:
    return (
        permissions.manageable(user, Classroom)
        .filter(school_id=student.classroom.school_id, archived_at__isnull=True)
        .exclude(pk=student.classroom_id)
        .order_by("-school_year", "name")
    )


def signed_in_ids(user, classroom: Classroom, *, now) -> set[int]:
    """The students of a class who signed in on a tablet within its sign-out time (the class
    game setup shows them, so the teacher sees who is there)."""
    since = now - timedelta(minutes=classroom.student_idle_minutes)
    return set(
        permissions.manageable(user, Student)
        .filter(classroom=classroom, user__last_login__gte=since)
        .values_list("pk", flat=True)
    )
