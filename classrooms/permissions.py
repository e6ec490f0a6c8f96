"""Who may read or change what: one queryset filter per model (after Kolibri's permissions).

`readable(user, Model)` is every row of Model this user may see; `manageable(user, Model)` every
row they may change (or act on as staff). Either takes a queryset instead of a model and narrows
it. Views, selectors, reports and the admin all start from here, so a foreign id is a 404 like a
missing one. A model without a rule is refused (LookupError): a new model is closed until it is
given one.

This module is the shared base and the rules of the people's models (schools, accounts, classes,
students, parents). Each app above declares the rules of its own models in its permissions
module with `rules(Model, read=..., manage=...)`, built from the filters here (`in_classroom`,
`of_student_readable`...), and loads it in its AppConfig.ready: games.permissions (games,
seats, moves, plays, practice goals), classgames.permissions (class games),
reports.permissions and reports.mail.permissions. So this module imports
no app above it.

The rules:
- a teacher reads and manages the classes they teach, a school admin every class of the school;
  what hangs from a class (students, class games, tables, moves, levels, reports, report
  requests, level advice, parents' links and codes) follows the class;
- a parent reads their own children (a link not revoked), those children's reports and moves,
  and manages nothing;
- a student reads their own seats and the games they sit at;
- a school admin manages the school's accounts and teacher invitations.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, Model, OuterRef, Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse

from .models import Classroom, LevelChange, ParentLink, School, Student, TeacherInvite, User

STAFF_ROLES = (User.Role.TEACHER, User.Role.SCHOOL_ADMIN)
View = Callable[..., HttpResponse]
NOTHING = Q(pk__in=[])


def _signed_in(user) -> bool:
    return bool(getattr(user, "is_authenticated", False) and user.is_active)


def _role(user, *roles: str) -> bool:
    return _signed_in(user) and getattr(user, "role", None) in roles


def is_school_admin(user) -> bool:
    return bool(_role(user, User.Role.SCHOOL_ADMIN) and user.school_id)


# --- who someone is: the one place that reads a role ------------------------------------------


def is_staff(user) -> bool:
    """A teacher or a school admin."""
    return getattr(user, "role", None) in STAFF_ROLES


def is_parent(user) -> bool:
    return getattr(user, "role", None) == User.Role.PARENT


def is_student(user) -> bool:
    """Signed in as a child (on a tablet)."""
    return bool(getattr(user, "is_authenticated", False)) and (
        getattr(user, "role", None) == User.Role.STUDENT
    )


def picks_teachers(user) -> bool:
    """A school admin puts the school's teachers on a class (a teacher may not pick colleagues)."""
    return getattr(user, "role", None) == User.Role.SCHOOL_ADMIN


def teaches_what_they_create(user) -> bool:
    """A teacher who creates a class teaches it (a school admin may create it for others)."""
    return getattr(user, "role", None) == User.Role.TEACHER


def may_reset_password(user) -> bool:
    """Teachers and parents reset their password by email; children have none, and school
    admins are reset by the site's administrators."""
    return getattr(user, "role", None) in (User.Role.TEACHER, User.Role.PARENT)


def is_admin_of_school(user, school_id: int | None) -> bool:
    """The admin of this very school (invites its teachers, erases its students)."""
    return getattr(user, "role", None) == User.Role.SCHOOL_ADMIN and user.school_id == school_id


# --- the filters, one per model ----------------------------------------------------------------


def staff_classrooms(user) -> QuerySet[Classroom]:
    """A teacher sees the classes they teach; a school admin every class of the school."""
    if not _signed_in(user) or not user.school_id:
        return Classroom.objects.none()
    if user.role == User.Role.SCHOOL_ADMIN:
        return Classroom.objects.filter(school_id=user.school_id)
    if user.role == User.Role.TEACHER:
        # The school filter also holds if a teacher was ever wrongly attached to a foreign class.
        return Classroom.objects.filter(school_id=user.school_id, teachers=user)
    return Classroom.objects.none()


def staff_students(user) -> QuerySet[Student]:
    """Teachers see the students of their classes, school admins every student of the school."""
    return Student.objects.filter(classroom__in=staff_classrooms(user))


def children(user) -> QuerySet[Student]:
    """A parent's own children: linked by a code, and the link not revoked."""
    if not _role(user, User.Role.PARENT):
        return Student.objects.none()
    return Student.objects.filter(
        parent_links__parent=user, parent_links__revoked_at__isnull=True
    ).distinct()


def report_students(user) -> QuerySet[Student]:
    """Whose reports this user may open: a parent's children, or a teacher's students."""
    if getattr(user, "role", None) == User.Role.PARENT:
        return children(user)
    return staff_students(user)


def teachers_of_school(user) -> QuerySet[User]:
    """The teachers a school admin may put on a class (a teacher may not pick colleagues)."""
    if getattr(user, "role", None) != User.Role.SCHOOL_ADMIN or not user.school_id:
        return User.objects.none()
    return User.objects.filter(school_id=user.school_id, role__in=STAFF_ROLES, is_active=True)


def accounts_of_school(school_id: int) -> QuerySet[User]:
    """The accounts a school admin may see and edit: their school's, never a superuser, never a
    parent who also follows a child of another school (their password opens that child too)."""
    elsewhere = ParentLink.objects.filter(parent=OuterRef("pk")).exclude(
        student__classroom__school_id=school_id
    )
    return User.objects.filter(school_id=school_id, is_superuser=False).exclude(Exists(elsewhere))


def _school(user) -> Q:
    if not _role(user, *STAFF_ROLES) or not user.school_id:
        return NOTHING
    return Q(pk=user.school_id)


def _admin_school(user) -> Q:
    return Q(pk=user.school_id) if is_school_admin(user) else NOTHING


def _accounts(user) -> Q:
    if not is_school_admin(user):
        return NOTHING
    return Q(pk__in=accounts_of_school(user.school_id).values("pk"))


def _invites(user) -> Q:
    if getattr(user, "role", None) != User.Role.SCHOOL_ADMIN or not user.school_id:
        return NOTHING
    return Q(school_id=user.school_id)


def _classroom(user) -> Q:
    return Q(pk__in=staff_classrooms(user).values("pk"))


def in_classroom(user) -> Q:
    return Q(classroom__in=staff_classrooms(user))


def _student_readable(user) -> Q:
    return Q(pk__in=report_students(user).values("pk"))


def _student_managed(user) -> Q:
    return Q(pk__in=staff_students(user).values("pk"))


def of_student_readable(user) -> Q:
    return Q(student__in=report_students(user).values("pk"))


def of_student_managed(user) -> Q:
    return Q(student__in=staff_students(user).values("pk"))


Rule = Callable[[object], Q]

# Filled by the rules() of each app (this module's at its end, the others' in their ready()).
READABLE: dict[type[Model], Rule] = {}
MANAGEABLE: dict[type[Model], Rule] = {}


def rules(model: type[Model], *, read: Rule, manage: Rule | None = None) -> None:
    """Declare who may read a model's rows and who may change them (the reading rule if none)."""
    READABLE[model] = read
    MANAGEABLE[model] = manage or read


def _narrow(rules: dict[type[Model], Rule], user, model_or_qs) -> QuerySet:
    qs = model_or_qs if isinstance(model_or_qs, QuerySet) else model_or_qs._default_manager.all()
    try:
        rule = rules[qs.model]
    except KeyError:
        raise LookupError(f"no permission rule for {qs.model.__name__}") from None
    return qs.filter(rule(user))


def readable(user, model_or_qs) -> QuerySet:
    """The rows of a model (or of a queryset) this user may see."""
    return _narrow(READABLE, user, model_or_qs)


def manageable(user, model_or_qs) -> QuerySet:
    """The rows of a model (or of a queryset) this user may change, or act on as staff."""
    return _narrow(MANAGEABLE, user, model_or_qs)


def _get_or_404(qs: QuerySet, what: str, lookup: dict):
    row = qs.filter(**lookup).first()
    if row is None:
        raise Http404(f"no such {what}")
    return row


def get_readable_or_404(user, model_or_qs, *, what: str = "", **lookup):
    """One readable row, or 404 when it does not exist or the user may not see it (no difference)."""
    qs = readable(user, model_or_qs)
    return _get_or_404(qs, what or qs.model._meta.model_name, lookup)


def get_manageable_or_404(user, model_or_qs, *, what: str = "", **lookup):
    """One manageable row, or 404 (never 403: no hint that it exists)."""
    qs = manageable(user, model_or_qs)
    return _get_or_404(qs, what or qs.model._meta.model_name, lookup)


# --- one row, or 404 -----------------------------------------------------------------------------


def classroom_get(user, pk: int) -> Classroom:
    """The class, or 404 when it does not exist or the user may not see it (no difference)."""
    return get_readable_or_404(
        user, Classroom.objects.select_related("school"), what="class", pk=pk
    )


def student_get(user, *, classroom: Classroom, pk: int) -> Student:
    """A student of this class whom the user teaches (the class pages)."""
    return get_manageable_or_404(
        user,
        Student.objects.select_related("classroom"),
        what="student",
        classroom=classroom,
        pk=pk,
    )


def staff_student_get(user, pk: int) -> Student:
    """A student the user teaches, any class (the teacher's report pages)."""
    return get_manageable_or_404(
        user, Student.objects.select_related("classroom__school"), what="student", pk=pk
    )


def child_get(user, pk: int) -> Student:
    """A student whose parent-facing report this user may read, or 404 (never 403: no hints)."""
    return get_readable_or_404(
        user, Student.objects.select_related("classroom__school"), what="child", pk=pk
    )


def parent_link_get(user, pk: int) -> ParentLink:
    return get_manageable_or_404(
        user, ParentLink.objects.select_related("student", "parent"), what="link", pk=pk
    )


def teacher_invite_get(user, pk: int) -> TeacherInvite:
    return get_manageable_or_404(user, TeacherInvite, what="invitation", pk=pk)


# --- who may open a page at all --------------------------------------------------------------


def staff_required(view: View) -> View:
    """Signed in as a teacher or a school admin; anyone else is turned away."""

    @login_required
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not is_staff(request.user):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return wrapper


def admin_required(view: View) -> View:
    """Signed in as a school admin."""

    @login_required
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if getattr(request.user, "role", None) != User.Role.SCHOOL_ADMIN:
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return wrapper


# --- the rules of the people's models ----------------------------------------------------------

rules(School, read=_school, manage=_admin_school)
rules(User, read=_accounts)
rules(TeacherInvite, read=_invites)
rules(Classroom, read=_classroom)
rules(Student, read=_student_readable, manage=_student_managed)
rules(LevelChange, read=of_student_managed)
rules(ParentLink, read=of_student_managed)
