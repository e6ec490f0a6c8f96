"""Reads for the teachers' pages; every query starts from what the user may see."""
from __future__ import annotations

from django.db.models import Count, Prefetch, Q, QuerySet
from django.http import Http404

from .models import Classroom, LevelChange, Student, TeacherInvite, User
from .pictures import encode

STAFF_ROLES = (User.Role.TEACHER, User.Role.SCHOOL_ADMIN)


# --- permissions as queryset filters ---------------------------------------------------------


def classrooms_visible_to(user) -> QuerySet[Classroom]:
    """A teacher sees the classes they teach; a school admin every class of the school."""
    if not getattr(user, "is_authenticated", False) or not user.is_active or not user.school_id:
        return Classroom.objects.none()
    if user.role == User.Role.SCHOOL_ADMIN:
        return Classroom.objects.filter(school_id=user.school_id)
    if user.role == User.Role.TEACHER:
        # The school filter also holds if a teacher was ever wrongly attached to a foreign class.
        return Classroom.objects.filter(school_id=user.school_id, teachers=user)
    return Classroom.objects.none()


def students_visible_to(user) -> QuerySet[Student]:
    return Student.objects.filter(classroom__in=classrooms_visible_to(user))


def class_sessions_visible_to(user):
    from games.models import ClassSession

    return ClassSession.objects.filter(classroom__in=classrooms_visible_to(user))


def games_visible_to(user):
    from games.models import Game

    return Game.objects.filter(classroom__in=classrooms_visible_to(user))


def classroom_get(user, pk: int) -> Classroom:
    """The class, or 404 when it does not exist or the user may not see it (no difference)."""
    classroom = classrooms_visible_to(user).select_related("school").filter(pk=pk).first()
    if classroom is None:
        raise Http404("no such class")
    return classroom


def student_get(user, *, classroom: Classroom, pk: int) -> Student:
    student = (students_visible_to(user).filter(classroom=classroom, pk=pk)
               .select_related("classroom").first())
    if student is None:
        raise Http404("no such student")
    return student


def teachers_of_school(user) -> QuerySet[User]:
    """The teachers a school admin may put on a class (a teacher may not pick colleagues)."""
    if getattr(user, "role", None) != User.Role.SCHOOL_ADMIN or not user.school_id:
        return User.objects.none()
    return User.objects.filter(
        school_id=user.school_id, role__in=STAFF_ROLES, is_active=True
    ).order_by("last_name", "first_name", "username")


def invites_visible_to(user) -> QuerySet[TeacherInvite]:
    if getattr(user, "role", None) != User.Role.SCHOOL_ADMIN or not user.school_id:
        return TeacherInvite.objects.none()
    return TeacherInvite.objects.filter(school_id=user.school_id).select_related("user")


# --- pages ---------------------------------------------------------------------------------


def teacher_home(user) -> dict:
    """The classes a teacher works with and the class games running in them."""
    from games.models import ClassSession

    classes = (classrooms_visible_to(user)
               .annotate(n_students=Count("students", distinct=True))
               .prefetch_related("teachers").order_by("-school_year", "name"))
    active = [c for c in classes if c.archived_at is None]
    archived = [c for c in classes if c.archived_at is not None]
    sessions = (class_sessions_visible_to(user)
                .filter(status__in=[ClassSession.Status.RUNNING, ClassSession.Status.PAUSED])
                .select_related("classroom")
                .annotate(n_games=Count("games", distinct=True))
                .order_by("-created_at"))
    return {"classes": active, "archived": archived, "sessions": list(sessions)}


def classroom_students(classroom: Classroom) -> list[Student]:
    return list(Student.objects.filter(classroom=classroom).order_by("name"))


def level_history(student: Student) -> list[LevelChange]:
    return list(LevelChange.objects.filter(student=student).select_related("changed_by")
                .order_by("-changed_at", "-pk"))


def picture_code_lookup(*, classroom: Classroom, pictures: list[int]) -> Student | None:
    """Who signs in with these three pictures, in this order."""
    return Student.objects.filter(classroom=classroom, picture_code=encode(pictures)).first()


def classrooms_to_move_to(user, *, student: Student) -> QuerySet[Classroom]:
    return (classrooms_visible_to(user)
            .filter(school_id=student.classroom.school_id, archived_at__isnull=True)
            .exclude(pk=student.classroom_id).order_by("-school_year", "name"))


def class_sessions_of(classroom: Classroom):
    from games.models import ClassSession, Game

    return (ClassSession.objects.filter(classroom=classroom)
            .prefetch_related(Prefetch("games", queryset=Game.objects.order_by("label", "pk")))
            .order_by("-created_at"))


def students_search(queryset: QuerySet[Student], text: str) -> QuerySet[Student]:
    text = (text or "").strip()
    return queryset.filter(Q(name__icontains=text)) if text else queryset
