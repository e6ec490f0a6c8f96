"""The end of a school year: every class moves up, leavers are archived; undone the same day.

`rollover_propose` gives each class of the year its proposed name for the next year ("CE1 A"
becomes "CE2 A", "Year 3" becomes "Year 4") or marks it as leaving (CM2; grade 5 in the United
States; Klasse 4 in Germany), from the school's programme. The admin changes what needs it;
`rollover_plan` checks the whole (a name refused, two classes with one name, a class of that
name already in the next year) without writing anything, and `rollover_apply` does it in one
transaction after planning again: refused if the plan differs from the one previewed.

A class that moves up is next year's class (classrooms.services.classroom_copy_to_next_year):
same teachers, a new tablet code, and its children *moved*, not copied, so their level history,
plays, reports, parents' links and sign-in pictures go with them. A leaving class is archived
with its children: their reports stay readable until the retention rule erases the play data
(classrooms.retention), like every archived class.

`rollover_undo` puts everything back, on the day of the rollover at the school only, as long as
no game was played in the new classes (a game there would have to be thrown away).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count
from django.utils import timezone
from django.utils.translation import gettext as _

from . import services
from .models import Classroom, Programme, Rollover, School, Student, User
from .names import name_error, name_for_display, name_normalise
from .selectors import school_tz

FRENCH_GRADES = ["TPS", "PS", "MS", "GS", "CP", "CE1", "CE2", "CM1", "CM2"]
# The last grade of a primary school, where a number names the grade ("Year 5", "Klasse 4").
LAST_NUMBERED_GRADE = {Programme.US: 5, Programme.DE: 4, Programme.FR: 5}


@dataclass
class ClassMove:
    """One class of the year and what becomes of it."""

    classroom_id: int
    old_name: str
    students: int
    new_name: str = ""
    leaves: bool = False
    errors: list[str] = field(default_factory=list)


@dataclass
class RolloverPlan:
    from_year: str
    to_year: str
    moves: list[ClassMove]

    @property
    def errors(self) -> int:
        return sum(1 for m in self.moves if m.errors)

    def digest(self) -> str:
        blob = json.dumps(
            [self.from_year, self.to_year, [asdict(m) for m in self.moves]],
            sort_keys=True,
            ensure_ascii=False,
        )
        return hashlib.sha256(blob.encode()).hexdigest()


def _next_token(token: str, programme: str) -> str | None:
    """The token one grade up, None for a last grade, or the token itself (not a grade)."""
    upper = token.upper()
    if upper in FRENCH_GRADES:
        index = FRENCH_GRADES.index(upper)
        return None if index == len(FRENCH_GRADES) - 1 else FRENCH_GRADES[index + 1]
    if token.isdigit() and len(token) <= 2:
        number, last = int(token), LAST_NUMBERED_GRADE.get(programme, 5)
        if number > last:
            return token  # not a grade ("Room 12")
        return None if number == last else str(number + 1)
    match = re.fullmatch(r"(\d)([a-zA-Z])", token)  # German "3a"
    if match:
        up = _next_token(match[1], programme)
        return None if up is None else up + match[2]
    return token


def name_proposed(name: str, programme: str) -> str | None:
    """Next year's name of a class, or None when its children leave the school."""
    tokens = re.split(r"([\s/\-–,+&]+)", name)
    grades = [(i, _next_token(t, programme)) for i, t in enumerate(tokens) if t and i % 2 == 0]
    moved = [(i, up) for i, up in grades if up != tokens[i]]
    if not moved:
        return name  # no grade in the name: the admin writes the new one
    if all(up is None for _i, up in moved):
        return None
    if any(up is None for _i, up in moved):
        # A mixed class whose older grade leaves ("CM1/CM2", "Year 4/5"): its younger children
        # stay in a class of the same shape, so it keeps its name ("CM2/CM2" was proposed).
        return name
    for i, up in moved:
        tokens[i] = up
    return "".join(tokens)


def rollover_years(school: School) -> list[str]:
    """The years with classes still open, earliest first: the earliest is the one that ends (a
    class a teacher already opened for next year is not), the admin may pick another."""
    return list(
        Classroom.objects.filter(school=school, archived_at__isnull=True)
        .values_list("school_year", flat=True)
        .order_by("school_year")
        .distinct()
    )


def rollover_from_year(school: School, wanted: str | None = None) -> str | None:
    """The year to roll over: `wanted` if it has open classes, else the earliest that has."""
    years = rollover_years(school)
    if wanted in years:
        return wanted
    return years[0] if years else None


def _classes(school: School, from_year: str) -> list[Classroom]:
    return list(
        Classroom.objects.filter(school=school, school_year=from_year, archived_at__isnull=True)
        .annotate(n_students=Count("students"))
        .order_by("name", "pk")
    )


def rollover_propose(*, school: School, from_year: str) -> RolloverPlan:
    """Every class of the year with its proposed name (or leaving), nothing checked yet."""
    to_year = services.school_year_next(from_year)
    moves = []
    for c in _classes(school, from_year):
        proposed = name_proposed(c.name, school.programme)
        moves.append(
            ClassMove(
                classroom_id=c.pk,
                old_name=c.name,
                students=c.n_students,
                new_name=proposed or "",
                leaves=proposed is None,
            )
        )
    return RolloverPlan(from_year=from_year, to_year=to_year, moves=moves)


def rollover_plan(
    *, school: School, from_year: str, choices: dict[int, tuple[str, bool]]
) -> RolloverPlan:
    """The admin's choices (class id → new name, leaves) checked against the school."""
    plan = rollover_propose(school=school, from_year=from_year)
    taken = {
        name_normalise(n).casefold()
        for n in Classroom.objects.filter(school=school, school_year=plan.to_year).values_list(
            "name", flat=True
        )
    }
    names: dict[str, str] = {}
    for move in plan.moves:
        new_name, leaves = choices.get(move.classroom_id, (move.new_name, move.leaves))
        move.leaves = bool(leaves)
        move.new_name = "" if move.leaves else name_normalise(new_name)
        if move.leaves:
            continue
        refused = name_error(move.new_name)
        key = move.new_name.casefold()
        if refused is not None:
            move.errors.extend(refused.messages)
            move.new_name = name_for_display(move.new_name)
        elif not move.new_name:
            move.errors.append(_("Give the class its name for next year, or mark it as leaving."))
        elif len(move.new_name) > 100:
            move.errors.append(_("A class name has at most 100 characters."))
        elif key in taken:
            move.errors.append(
                _("The school already has a class called “%(name)s” in %(year)s.")
                % {"name": move.new_name, "year": plan.to_year}
            )
        elif key in names:
            move.errors.append(
                _("“%(name)s” is also the new name of %(other)s: give each class its own.")
                % {"name": move.new_name, "other": names[key]}
            )
        names.setdefault(key, move.old_name)
    return plan


class RolloverStale(ValidationError):
    """The classes changed between the preview and the confirm."""


@transaction.atomic
def rollover_apply(
    *,
    school: School,
    from_year: str,
    choices: dict[int, tuple[str, bool]],
    digest: str,
    by: User | None = None,
) -> Rollover:
    """Move every class up (or archive it) as previewed, in one transaction."""
    ids = list(
        Classroom.objects.select_for_update(no_key=True)
        .filter(school=school, school_year=from_year, archived_at__isnull=True)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    plan = rollover_plan(school=school, from_year=from_year, choices=choices)
    if plan.digest() != digest:
        raise RolloverStale(
            _(
                "The classes changed since this preview. Nothing was done: look at the new "
                "preview and confirm again."
            ),
            code="rollover_stale",
        )
    if plan.errors or not ids:
        raise ValidationError(
            _("Correct the classes marked in red first: nothing was done."), code="rollover_errors"
        )
    classes = Classroom.objects.in_bulk(ids)
    done = []
    for move in plan.moves:
        old = classes[move.classroom_id]
        if move.leaves:
            services.classroom_archive(classroom=old, by=by)
            done.append({"from": old.pk, "to": None})
            continue
        new = services.classroom_copy_to_next_year(
            classroom=old, by=by, name=move.new_name, school_year=plan.to_year
        )
        new.read_aloud = old.read_aloud
        new.save(update_fields=["read_aloud"])
        done.append({"from": old.pk, "to": new.pk})
    return Rollover.objects.create(
        school=school, from_year=from_year, to_year=plan.to_year, moves=done, done_by=by
    )


def rollover_undoable(school: School) -> Rollover | None:
    """The rollover that can still be undone: the school's last one, done today at the school."""
    last = Rollover.objects.filter(school=school).first()
    if last is None or last.undone_at is not None:
        return None
    tz = school_tz(school)
    if last.done_at.astimezone(tz).date() != timezone.now().astimezone(tz).date():
        return None
    return last


def _played_in(classroom: Classroom) -> bool:
    """Whether anything but the children and teachers hangs from the class (a game, a class
    game, a practice goal...), read through the relations the apps above declare."""
    for relation in Classroom._meta.related_objects:
        if relation.related_model in (Student, Rollover) or relation.many_to_many:
            continue
        accessor = relation.related_model._default_manager.filter(
            **{relation.field.name: classroom}
        )
        if accessor.exists():
            return True
    return False


@transaction.atomic
def rollover_undo(*, school: School, by: User | None = None) -> Rollover:
    """Put every class back as it was before today's rollover."""
    rollover = rollover_undoable(school)
    if rollover is None:
        raise ValidationError(
            _("Only a rollover done today can be undone."), code="rollover_not_undoable"
        )
    rollover = Rollover.objects.select_for_update(no_key=True).get(pk=rollover.pk)
    ids = sorted({m["from"] for m in rollover.moves} | {m["to"] for m in rollover.moves if m["to"]})
    classes = Classroom.objects.select_for_update(no_key=True).in_bulk(ids)
    for move in rollover.moves:
        new = classes.get(move["to"]) if move["to"] else None
        if new is not None and _played_in(new):
            raise ValidationError(
                _(
                    "%(class)s has already played: undoing would lose that game. Move its "
                    "children back by hand if needed."
                )
                % {"class": new.name},
                code="rollover_played",
            )
    for move in rollover.moves:
        old = classes[move["from"]]
        new = classes.get(move["to"]) if move["to"] else None
        if new is not None:
            if Student.objects.filter(classroom=old).exists():
                raise ValidationError(
                    _("%(class)s has children again: undo it by hand.") % {"class": old.name},
                    code="rollover_refilled",
                )
            Student.objects.filter(classroom=new).update(classroom=old)
            new.delete()
        services.classroom_archive(classroom=old, by=by, archived=False)
    rollover.undone_at = timezone.now()
    rollover.save(update_fields=["undone_at"])
    return rollover
