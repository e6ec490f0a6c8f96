"""Writes for schools, classes and students: the only code that creates or changes these rows."""

from __future__ import annotations

import random
import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import permutations

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from django.utils.translation import ngettext

from . import invitations, permissions, signals
from .models import (
    Classroom,
    LevelChange,
    NumberRange,
    School,
    Student,
    TeacherInvite,
    Tier,
    User,
)
from .names import lines_split, name_check, name_error, name_normalise
from .pictures import CODE_LENGTH, PICTURE_COUNT, encode

# The one alphabet of the codes people type: class codes, parents' link codes (no 0/O, no 1/I).
CLASS_CODE_ALPHABET = invitations.CODE_ALPHABET


def class_code_new(*, length: int = 6) -> str:
    while True:
        code = "".join(secrets.choice(CLASS_CODE_ALPHABET) for _i in range(length))
        if not Classroom.objects.filter(code=code).exists():
            return code


def picture_code_new(*, classroom: Classroom, rng: random.Random | None = None) -> str:
    """Three distinct pictures, not used by anyone else in the class (16·15·14 = 3,360 codes)."""
    rng = rng or random.SystemRandom()
    taken = set(Student.objects.filter(classroom=classroom).values_list("picture_code", flat=True))
    for _attempt in range(200):
        code = encode(rng.sample(range(PICTURE_COUNT), CODE_LENGTH))
        if code not in taken:
            return code
    free = [
        encode(p) for p in permutations(range(PICTURE_COUNT), CODE_LENGTH) if encode(p) not in taken
    ]
    if not free:
        raise ValueError("no picture code left in this class")
    return rng.choice(free)


@transaction.atomic
def student_create(
    *,
    classroom: Classroom,
    name: str,
    number_range: int = 10,
    tier: int = 1,
    changed_by: User | None = None,
    picture_code: str | None = None,
) -> Student:
    """A student and their sign-in user (no password, no e-mail), with a first level entry."""
    name = name_check(name)
    username = f"s-{classroom.code.lower()}-{secrets.token_hex(6)}"
    user = User(username=username, role=User.Role.STUDENT, school=classroom.school, first_name=name)
    user.set_unusable_password()
    user.save()
    student = Student.objects.create(
        user=user,
        classroom=classroom,
        name=name,
        number_range=number_range,
        tier=tier,
        picture_code=picture_code or picture_code_new(classroom=classroom),
    )
    LevelChange.objects.create(
        student=student, number_range=number_range, tier=tier, changed_by=changed_by
    )
    return student


# --- school years and classes ----------------------------------------------------------------

SCHOOL_YEAR_RE = re.compile(r"^(\d{4})-(\d{4})$")


def school_year_check(school_year: str) -> str:
    """'2026-2027' and nothing else: two consecutive years."""
    match = SCHOOL_YEAR_RE.match((school_year or "").strip())
    if not match or int(match[2]) != int(match[1]) + 1:
        raise ValidationError(
            _("A school year is written like 2026-2027 (two years that follow each other)."),
            code="school_year_invalid",
        )
    return match[0]


def school_year_next(school_year: str) -> str:
    start = int(school_year_check(school_year)[:4]) + 1
    return f"{start}-{start + 1}"


def school_year_current(today=None) -> str:
    """The school year a date falls in; a new year starts in August."""
    today = today or timezone.localdate()
    start = today.year if today.month >= 8 else today.year - 1
    return f"{start}-{start + 1}"


def _classroom_name_check(
    *, school: School, name: str, school_year: str, exclude_pk: int | None = None
) -> str:
    name = name_check(name)
    if not name:
        raise ValidationError(_("A class needs a name."), code="name_missing")
    if len(name) > 100:
        raise ValidationError(_("A class name has at most 100 characters."), code="name_too_long")
    clash = Classroom.objects.filter(school=school, school_year=school_year, name__iexact=name)
    if exclude_pk is not None:
        clash = clash.exclude(pk=exclude_pk)
    if clash.exists():
        raise ValidationError(
            _("The school already has a class called “%(name)s” in %(year)s.")
            % {"name": name, "year": school_year},
            code="name_taken",
        )
    return name


def _teachers_check(*, school: School, teachers: Iterable[User]) -> list[User]:
    teachers = list(teachers)
    for teacher in teachers:
        if teacher.school_id != school.pk or not permissions.is_staff(teacher):
            raise ValidationError(
                _("A class's teachers must work at its school."), code="teacher_foreign"
            )
    return teachers


def _read_aloud_check(value: str) -> str:
    if value not in Classroom.ReadAloud.values:
        raise ValidationError(_("Choose when the tablets read aloud."), code="read_aloud_invalid")
    return value


@transaction.atomic
def classroom_create(
    *,
    school: School,
    name: str,
    school_year: str,
    teachers: Iterable[User] = (),
    by: User | None = None,
    student_idle_minutes: int | None = None,
    read_aloud: str = "",
) -> Classroom:
    """A new class with a fresh tablet code; a teacher who creates it teaches it."""
    school_year = school_year_check(school_year)
    name = _classroom_name_check(school=school, name=name, school_year=school_year)
    teachers = _teachers_check(school=school, teachers=teachers)
    if by is not None and permissions.teaches_what_they_create(by) and by not in teachers:
        teachers.append(by)
    classroom = Classroom.objects.create(
        school=school,
        name=name,
        school_year=school_year,
        code=class_code_new(),
        read_aloud=_read_aloud_check(read_aloud or Classroom.ReadAloud.AUTO),
        **({"student_idle_minutes": student_idle_minutes} if student_idle_minutes else {}),
    )
    classroom.teachers.add(*teachers)
    return classroom


@transaction.atomic
def classroom_rename(
    *,
    classroom: Classroom,
    name: str,
    by: User | None = None,
    student_idle_minutes: int | None = None,
    teachers: Iterable[User] | None = None,
    read_aloud: str | None = None,
) -> Classroom:
    """Rename a class (and change its tablet sign-out time, read-aloud setting or teachers)."""
    # no_key=False: the name is in a unique key (PostgreSQL locks FOR UPDATE to change it).
    classroom = Classroom.objects.select_for_update(no_key=False).get(pk=classroom.pk)
    classroom.name = _classroom_name_check(
        school=classroom.school,
        name=name,
        school_year=classroom.school_year,
        exclude_pk=classroom.pk,
    )
    if student_idle_minutes is not None:
        if not 1 <= int(student_idle_minutes) <= 240:
            raise ValidationError(_("The sign-out time is 1 to 240 minutes."), code="idle_invalid")
        classroom.student_idle_minutes = int(student_idle_minutes)
    if read_aloud:
        classroom.read_aloud = _read_aloud_check(read_aloud)
    classroom.save(update_fields=["name", "student_idle_minutes", "read_aloud"])
    if teachers is not None:
        teachers = _teachers_check(school=classroom.school, teachers=teachers)
        if not teachers:
            raise ValidationError(_("A class needs at least one teacher."), code="no_teacher")
        classroom.teachers.set(teachers)
    return classroom


@transaction.atomic
def classroom_archive(
    *, classroom: Classroom, by: User | None = None, archived: bool = True
) -> Classroom:
    """Archive a class (hidden from the tablets and from the teacher's list) or bring it back."""
    classroom = Classroom.objects.select_for_update(no_key=True).get(pk=classroom.pk)
    classroom.archived_at = timezone.now() if archived else None
    classroom.save(update_fields=["archived_at"])
    return classroom


@transaction.atomic
def classroom_copy_to_next_year(
    *,
    classroom: Classroom,
    by: User | None = None,
    name: str | None = None,
    school_year: str | None = None,
    students: Iterable[Student] | None = None,
    archive_old: bool = True,
) -> Classroom:
    """Next year's class: same teachers, a new tablet code, and the chosen students moved in.

    Students are moved, not copied: their level history and their plays follow them, so the
    reports keep the whole story of each child. Students left behind stay in the old class.
    """
    school_year = school_year_check(school_year or school_year_next(classroom.school_year))
    new = classroom_create(
        school=classroom.school,
        name=name or classroom.name,
        school_year=school_year,
        teachers=classroom.teachers.all(),
        by=None,
        student_idle_minutes=classroom.student_idle_minutes,
    )
    chosen = Student.objects.filter(classroom=classroom)
    if students is not None:
        chosen = chosen.filter(pk__in=[s.pk for s in students])
    # The new class is empty, so the picture codes (unique per class) stay valid as they are.
    chosen.update(classroom=new)
    if archive_old:
        classroom_archive(classroom=classroom, by=by)
    return new


# --- students ------------------------------------------------------------------------------

MAX_NAME_LENGTH = 40
MAX_BULK_NAMES = 500


def student_name_clean(name: str) -> str:
    """NFC, trimmed, runs of spaces or tabs (a spreadsheet column) folded into one space."""
    return name_normalise(name)


@dataclass
class NamesPasted:
    """A paste of names, read line by line, with everything that stops it being added."""

    names: list[str] = field(default_factory=list)
    empty_lines: int = 0
    duplicates: list[str] = field(default_factory=list)  # twice or more in the paste
    in_class: list[str] = field(default_factory=list)  # already a student of the class
    too_long: list[str] = field(default_factory=list)
    hidden_characters: list[str] = field(default_factory=list)  # classrooms.names' refusals

    def errors(self) -> list[str]:
        errors: list[str] = []
        if not self.names:
            errors.append(_("Paste at least one name, one per line."))
        if len(self.names) > MAX_BULK_NAMES:
            errors.append(
                _("That is %(count)s names; at most %(max)s can be added at once.")
                % {"count": len(self.names), "max": MAX_BULK_NAMES}
            )
        if self.duplicates:
            errors.append(
                ngettext(
                    "This name is in the list more than once: %(names)s.",
                    "These names are in the list more than once: %(names)s.",
                    len(self.duplicates),
                )
                % {"names": ", ".join(self.duplicates)}
            )
        if self.in_class:
            errors.append(
                ngettext(
                    "This name is already in the class: %(names)s.",
                    "These names are already in the class: %(names)s.",
                    len(self.in_class),
                )
                % {"names": ", ".join(self.in_class)}
                + " "
                + _("Add a letter or a number to tell them apart (e.g. “Anna B”).")
            )
        if self.too_long:
            errors.append(
                ngettext(
                    "This name is longer than %(max)s characters: %(names)s.",
                    "These names are longer than %(max)s characters: %(names)s.",
                    len(self.too_long),
                )
                % {"names": ", ".join(self.too_long), "max": MAX_NAME_LENGTH}
            )
        errors.extend(self.hidden_characters)
        return errors


def names_parse(text: str, *, classroom: Classroom) -> NamesPasted:
    """Read a paste: one name per line; empty lines skipped; duplicates compared ignoring case."""
    result = NamesPasted()
    text = (text or "").removeprefix("\ufeff")  # a file's byte-order mark, not a name's
    seen: dict[str, str] = {}
    existing = {
        n.casefold()
        for n in Student.objects.filter(classroom=classroom).values_list("name", flat=True)
    }
    for line in lines_split(text):
        name = student_name_clean(line)
        if not name:
            result.empty_lines += 1
            continue
        key = name.casefold()
        if key in seen:
            if seen[key] not in result.duplicates:
                result.duplicates.append(seen[key])
            continue
        seen[key] = name
        result.names.append(name)
        unsafe = name_error(name)
        if unsafe is not None:
            result.hidden_characters.extend(unsafe.messages)
        if key in existing:
            result.in_class.append(name)
        if len(name) > MAX_NAME_LENGTH:
            result.too_long.append(name)
    return result


def _free_picture_codes(classroom: Classroom, count: int, rng: random.Random) -> list[str]:
    taken = set(Student.objects.filter(classroom=classroom).values_list("picture_code", flat=True))
    free = [
        c
        for c in (encode(p) for p in permutations(range(PICTURE_COUNT), CODE_LENGTH))
        if c not in taken
    ]
    if len(free) < count:
        raise ValidationError(_("This class has no picture codes left."), code="codes_exhausted")
    return rng.sample(free, count)


def _level_check(number_range: int | None, tier: int | None) -> None:
    if number_range is not None and number_range not in NumberRange.values:
        raise ValidationError(
            _("The number range is “up to 10” or “up to 20”."), code="range_invalid"
        )
    if tier is not None and tier not in Tier.values:
        raise ValidationError(_("The operations tier is 1, 2 or 3."), code="tier_invalid")


@transaction.atomic
def students_bulk_add(
    *,
    classroom: Classroom,
    text: str,
    number_range: int = 10,
    tier: int = 1,
    by: User | None = None,
    rng: random.Random | None = None,
) -> list[Student]:
    """Add every name of a paste, or none: any duplicate or bad line refuses the whole paste.

    Rows are created with bulk inserts (a few queries for 500 names, not thousands).
    """
    _level_check(number_range, tier)
    parsed = names_parse(text, classroom=classroom)
    errors = parsed.errors()
    if errors:
        raise ValidationError(errors, code="paste_refused")
    return students_create_many(
        classroom=classroom,
        rows=[(name, number_range, tier, "") for name in parsed.names],
        by=by,
        rng=rng,
    )


@transaction.atomic(savepoint=False)  # inside a paste's or a roster's transaction: no savepoint
def students_create_many(
    *,
    classroom: Classroom,
    rows: Sequence[tuple[str, int, int, str]],
    by: User | None = None,
    rng: random.Random | None = None,
) -> list[Student]:
    """Create students from checked (name, number range, tier, parent's email) rows, with bulk
    inserts (a few queries for 500 names, not thousands). The caller checked the names: a paste
    (students_bulk_add) or a roster (classrooms.roster)."""
    # Lock the class so two pastes at once cannot hand out the same picture code.
    Classroom.objects.select_for_update(no_key=True).filter(pk=classroom.pk).first()
    codes = _free_picture_codes(classroom, len(rows), rng or random.SystemRandom())
    prefix = f"s-{classroom.code.lower()}-"
    users = []
    for name, _range, _tier, _email in rows:
        user = User(
            username=prefix + secrets.token_hex(6),
            role=User.Role.STUDENT,
            school=classroom.school,
            first_name=name,
        )
        user.set_unusable_password()
        users.append(user)
    users = User.objects.bulk_create(users)
    if any(u.pk is None for u in users):  # a backend that cannot return ids from a bulk insert
        by_name = dict(
            User.objects.filter(username__in=[u.username for u in users]).values_list(
                "username", "pk"
            )
        )
        for u in users:
            u.pk = by_name[u.username]
    students = Student.objects.bulk_create(
        [
            Student(
                user=user,
                classroom=classroom,
                name=name,
                number_range=number_range,
                tier=tier,
                parent_email=email,
                picture_code=code,
            )
            for user, (name, number_range, tier, email), code in zip(
                users, rows, codes, strict=True
            )
        ]
    )
    if any(s.pk is None for s in students):
        by_user = dict(Student.objects.filter(user__in=users).values_list("user_id", "pk"))
        for s in students:
            s.pk = by_user[s.user_id]
    LevelChange.objects.bulk_create(
        [
            LevelChange(student=s, number_range=s.number_range, tier=s.tier, changed_by=by)
            for s in students
        ]
    )
    return students


@transaction.atomic
def student_update(
    *,
    student: Student,
    name: str | None = None,
    number_range: int | None = None,
    tier: int | None = None,
    untimed: bool | None = None,
    by: User | None = None,
) -> Student:
    """Rename a student and/or change their level (the change goes into the level history)
    and/or give them untimed games (no turn clock of their own, R4.9; from their next game)."""
    # no_key=False: the name is in a unique key (PostgreSQL locks FOR UPDATE to change it).
    student = Student.objects.select_for_update(no_key=False).get(pk=student.pk)
    if name is not None:
        name = name_check(name)
        if not name:
            raise ValidationError(_("A student needs a name."), code="name_missing")
        if len(name) > MAX_NAME_LENGTH:
            raise ValidationError(
                _("A name has at most %(max)s characters.") % {"max": MAX_NAME_LENGTH},
                code="name_too_long",
            )
        if (
            Student.objects.filter(classroom_id=student.classroom_id, name__iexact=name)
            .exclude(pk=student.pk)
            .exists()
        ):
            raise ValidationError(
                _("There is already a “%(name)s” in this class.") % {"name": name},
                code="name_taken",
            )
        if name != student.name:
            student.name = name
            student.save(update_fields=["name"])
            User.objects.filter(pk=student.user_id).update(first_name=name)
    if untimed is not None and untimed != student.untimed:
        student.untimed = untimed
        student.save(update_fields=["untimed"])
    if number_range is not None or tier is not None:
        levels_set(students=[student], number_range=number_range, tier=tier, by=by)
        student.refresh_from_db()
    return student


@transaction.atomic
def student_move(*, student: Student, to_classroom: Classroom, by: User | None = None) -> Student:
    """Move a student to another class of the same school, keeping their levels and plays.

    A picture code already used in the new class is replaced (the teacher reprints the card).
    """
    # no_key=False: the class and the picture code are in unique keys.
    student = Student.objects.select_for_update(no_key=False).get(pk=student.pk)
    if to_classroom.school_id != student.classroom.school_id:
        raise ValidationError(
            _("A student can only move to a class of the same school."), code="school_foreign"
        )
    if to_classroom.pk == student.classroom_id:
        raise ValidationError(_("The student is already in this class."), code="same_class")
    if Student.objects.filter(classroom=to_classroom, name__iexact=student.name).exists():
        raise ValidationError(
            _("There is already a “%(name)s” in %(class)s: rename one of them first.")
            % {"name": student.name, "class": to_classroom.name},
            code="name_taken",
        )
    Classroom.objects.select_for_update(no_key=True).filter(pk=to_classroom.pk).first()
    fields = ["classroom"]
    if Student.objects.filter(classroom=to_classroom, picture_code=student.picture_code).exists():
        student.picture_code = picture_code_new(classroom=to_classroom)
        fields.append("picture_code")
    student.classroom = to_classroom
    student.save(update_fields=fields)
    return student


ERASED_NAME = "—"


@transaction.atomic
def student_erase(*, student: Student, by: User | None = None) -> None:
    """Delete a student, their sign-in user and every row about them; scrub their name from games.

    The games they played stay (the other children's scores are theirs), but the seat shows
    "—" and the player name is removed from each game's stored configuration and state
    (games.services.student_games_erase, told by signals.student_erasing, locks those games
    first: the lock order of every move, game before student). Their plays, level history and
    parent links go with the student row (CASCADE).
    """
    signals.student_erasing.send(sender=Student, student=student, by=by)
    student = Student.objects.select_for_update(no_key=False).get(pk=student.pk)
    user_id = student.user_id
    student.delete()
    User.objects.filter(pk=user_id).delete()


@transaction.atomic
def picture_code_reset(*, student: Student, by: User | None = None) -> str:
    """A new picture code (a child told theirs to others, or forgot it); returns it."""
    Classroom.objects.select_for_update(no_key=True).filter(pk=student.classroom_id).first()
    # no_key=False: the picture code is in a unique key.
    student = Student.objects.select_for_update(no_key=False).get(pk=student.pk)
    code = student.picture_code
    while code == student.picture_code:
        code = picture_code_new(classroom=student.classroom)
    student.picture_code = code
    student.save(update_fields=["picture_code"])
    return code


@transaction.atomic
def levels_set(
    *,
    students: Sequence[Student],
    number_range: int | None = None,
    tier: int | None = None,
    by: User | None = None,
) -> int:
    """Set the level of one or many students; every actual change is kept in LevelChange (R2).

    Either axis may be left as it is (None). Returns how many students changed level.
    """
    _level_check(number_range, tier)
    if number_range is None and tier is None:
        raise ValidationError(
            _("Choose a number range or an operations tier to set."), code="level_missing"
        )
    rows = list(
        Student.objects.select_for_update(no_key=True).filter(pk__in=[s.pk for s in students])
    )
    changed: list[Student] = []
    for row in rows:
        new_range = row.number_range if number_range is None else number_range
        new_tier = row.tier if tier is None else tier
        if (new_range, new_tier) != (row.number_range, row.tier):
            row.number_range, row.tier = new_range, new_tier
            changed.append(row)
    if changed:
        Student.objects.bulk_update(changed, ["number_range", "tier"])
        LevelChange.objects.bulk_create(
            [
                LevelChange(student=s, number_range=s.number_range, tier=s.tier, changed_by=by)
                for s in changed
            ]
        )
    return len(changed)


# --- accounts, teacher invitations ------------------------------------------------------------


def account_create(*, username: str, password: str, role: str, **fields) -> User:
    """A teacher's or a parent's account, made by its owner: a free user name (case aside, at
    most 150 characters) and a password Django's validators accept; `fields` are the rest."""
    username = (username or "").strip()
    if not username:
        raise ValidationError(_("Choose a user name."), code="username_missing")
    if len(username) > 150:
        raise ValidationError(_("A user name has at most 150 characters."), code="username_long")
    if User.objects.filter(username__iexact=username).exists():
        raise ValidationError(_("This user name is taken; choose another."), code="username_taken")
    user = User(username=username, role=role, **fields)
    validate_password(password, user)
    user.set_password(password)
    user.save()
    return user


def _teacher_invite_build(*, target: School, by: User, **fields) -> TeacherInvite:
    return TeacherInvite(
        school=target,
        email=(fields.get("email") or "").strip(),
        first_name=name_check(fields.get("first_name") or ""),
        last_name=name_check(fields.get("last_name") or ""),
    )


def _teacher_joins(
    invite: TeacherInvite,
    *,
    username: str,
    password: str,
    first_name: str = "",
    last_name: str = "",
) -> tuple[User, User]:
    """What a teacher's link does: their account, in the invitation's school."""
    user = account_create(
        username=username,
        password=password,
        role=User.Role.TEACHER,
        school=invite.school,
        email=invite.email,
        first_name=name_check(first_name or invite.first_name),
        last_name=name_check(last_name or invite.last_name),
    )
    return user, user


# A school admin's one-time link for a new teacher of the school (the lifecycle:
# classrooms/invitations.py): invitations.create(TEACHER_LINK, by=admin, target=school, email=...,
# first_name=..., last_name=...), then invitations.redeem(TEACHER_LINK, token, username=...,
# password=..., first_name=..., last_name=...) makes the account.
TEACHER_LINK = invitations.Kind(
    name="teacher",
    model=TeacherInvite,
    secret=invitations.link_token(24),
    days=14,
    build=_teacher_invite_build,
    may_make=lambda by, school: permissions.is_admin_of_school(by, school.pk),
    redeem=_teacher_joins,
    refusals={
        invitations.MALFORMED: _lazy(
            "This invitation link is not complete. Copy the whole link, or ask your school "
            "admin for a new one."
        ),
        invitations.UNKNOWN: _lazy(
            "This invitation link does not exist. Copy the whole link, or ask your school admin "
            "for a new one."
        ),
        invitations.EXPIRED: _lazy(
            "This invitation link has expired. Ask your school admin for a new one."
        ),
        invitations.USED: _lazy(
            "This invitation link was already used. Ask your school admin for a new one."
        ),
        invitations.WITHDRAWN: _lazy(
            "This invitation link was withdrawn. Ask your school admin for a new one."
        ),
        invitations.THROTTLED: _lazy(
            "Too many tries with a wrong link. Please wait a quarter of an hour."
        ),
        "forbidden": _lazy("Only the school's admin can invite teachers."),
    },
)


@transaction.atomic
def levels_set_each(*, changes: Sequence[tuple[Student, int, int]], by: User | None = None) -> int:
    """Set each student's own level (a table of levels saved at once); one transaction."""
    for _student, number_range, tier in changes:
        _level_check(number_range, tier)
    groups: dict[tuple[int, int], list[Student]] = {}
    for student, number_range, tier in changes:
        groups.setdefault((number_range, tier), []).append(student)
    return sum(
        levels_set(students=group, number_range=r, tier=t, by=by)
        for (r, t), group in groups.items()
    )
