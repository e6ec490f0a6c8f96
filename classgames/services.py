"""Writes for class games: a ClassSession with one games.Game per table.

Games are created and run only through games.services; this code arranges the tables and acts on
all of them at once. It is the only code that writes ClassSession rows.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, F, OuterRef
from django.utils.translation import gettext as _

from classrooms.grouping import PlannedTable, table_rules, tables_check, tables_propose
from classrooms.models import Classroom, Student, User
from games.models import Game, Seat
from games.services import (
    GameError,
    game_clocks_shift,
    game_create,
    game_end,
    game_pause,
    game_resume,
    game_start,
    games_over_before,
    seat_replace_by_bot,
)

from . import selectors
from .models import ClassAttendance, ClassSession, ClassTable

OVER = (Game.Status.FINISHED, Game.Status.ABANDONED)


def _already_playing(tables: Sequence) -> list[str]:
    """A child sits at one table at a time: students of the plan seated at a class game going on."""
    students = [s for t in tables for s in t.students]
    busy = (
        Seat.objects.filter(
            student__in=students,
            game__kind=Game.Kind.CLASS,
            game__status__in=[Game.Status.SETUP, Game.Status.RUNNING, Game.Status.PAUSED],
        )
        .select_related("student")
        .order_by("student__name")
    )
    names = sorted({seat.student.name for seat in busy})
    return [
        _(
            "%(name)s is already playing at a class game that has not ended: end that game "
            "or leave %(name)s out."
        )
        % {"name": name}
        for name in names
    ]


@transaction.atomic
def class_table_start(
    *,
    session: ClassSession,
    number: int,
    players: list[dict],
    settings: dict,
    by: User | None = None,
    seed: int | None = None,
) -> Game:
    """Table `number` of a class game: its game (games.services), linked to the class game
    before its first news (the push names the class game from the link), then started."""
    classroom = session.classroom
    game = game_create(
        school=classroom.school,
        players=players,
        settings=settings,
        created_by=by,
        classroom=classroom,
        kind="class",
        # The number only: Game.display_label says "Table 3" in the reader's language.
        label=str(number),
        seed=seed,
    )
    ClassTable.objects.create(game=game, session=session)
    return game_start(game=game, by=by)


@transaction.atomic
def class_session_start(
    *,
    classroom: Classroom,
    tables: Sequence,
    settings: dict,
    by: User | None = None,
    starter: str = "first",
    cap_range: int | None = None,
    cap_tier: int | None = None,
    rng: random.Random | None = None,
):
    """Create and start a game at every table; all of them, or none with the reasons why.

    `tables` are grouping.PlannedTable rows (students in seat order, computer players after).
    Each table plays at its weakest student's level (R2.3), lowered by `cap_range`/`cap_tier`.
    """
    tables = [t for t in tables if t.students or t.bots]
    errors = tables_check(tables)
    if any(s.classroom_id != classroom.pk for t in tables for s in t.students):
        errors.append(_("Only students of this class can play in its class game."))
    if classroom.archived_at is not None:
        errors.append(_("This class is archived: restore it before starting a class game."))
    errors.extend(_already_playing(tables))
    if errors:
        raise ValidationError(errors, code="tables_invalid")
    rng = rng or random.SystemRandom()
    session = ClassSession.objects.create(
        classroom=classroom,
        created_by=by,
        status=ClassSession.Status.RUNNING,
        settings={**settings, "starter": starter, "cap_range": cap_range, "cap_tier": cap_tier},
    )
    for number, table in enumerate(tables, start=1):
        rules = table_rules(table.students, cap_range=cap_range, cap_tier=cap_tier)
        players = [{"student": s} for s in table.students]
        players += [{"bot": table.bot_strength, "name": ""} for _i in range(table.bots)]
        table_settings = {
            **settings,
            "max_number": rules.max_number,
            "tier": rules.tier,
            "starter": rng.randrange(len(players)) if starter == "random" else 0,
        }
        try:
            class_table_start(
                session=session, number=number, players=players, settings=table_settings, by=by
            )
        except GameError as exc:
            raise ValidationError(
                _("Table %(number)s: %(reason)s") % {"number": number, "reason": exc.message},
                code=exc.code,
            ) from exc
    return session


def attendance_mark(*, classroom: Classroom, student: Student, present: bool) -> None:
    """Mark one child present or absent; remembered for the class's next "Play now".

    The state asked for, not a toggle: a double tap, or two teachers' taps, end the same way.
    """
    if student.classroom_id != classroom.pk:
        raise ValidationError(_("This student is not in this class."), code="not_in_class")
    with transaction.atomic():
        row, _created = ClassAttendance.objects.select_for_update(no_key=True).get_or_create(
            classroom=classroom
        )
        absent = {int(pk) for pk in row.absent if str(pk).isdigit()}
        if present:
            absent.discard(student.pk)
        else:
            absent.add(student.pk)
        # Children who left the class are forgotten with the next tap.
        known = set(Student.objects.filter(classroom=classroom).values_list("pk", flat=True))
        row.absent = sorted(absent & known)
        row.save(update_fields=["absent", "updated_at"])


def attendance_remember(*, classroom: Classroom, present: Sequence[Student]) -> None:
    """The set-up page's ticks, once its class game started: next time's attendance."""
    ids = {s.pk for s in present}
    absent = Student.objects.filter(classroom=classroom).exclude(pk__in=ids)
    ClassAttendance.objects.update_or_create(
        classroom=classroom, defaults={"absent": sorted(absent.values_list("pk", flat=True))}
    )


def class_session_play_now(
    *, classroom: Classroom, by: User | None = None, rng: random.Random | None = None
) -> ClassSession:
    """One tap: the children marked present, tables proposed by level (a child alone gets a
    computer player), the class's usual settings; started like the set-up page starts them.

    Two taps at once (a double tap, two teachers) start one class game: the class row is locked
    first, so the second finds the children playing and is refused.
    """
    with transaction.atomic():
        Classroom.objects.select_for_update(no_key=True).filter(pk=classroom.pk).first()
        return _play_now(classroom=classroom, by=by, rng=rng)


def _play_now(*, classroom: Classroom, by: User | None, rng: random.Random | None):
    absent = selectors.attendance_absent(classroom)
    present = [
        s
        for s in Student.objects.filter(classroom=classroom).order_by("name")
        if s.pk not in absent
    ]
    if not present:
        raise ValidationError(_("Mark at least one student present."), code="nobody_present")
    tables = [
        PlannedTable(number=i, students=group, bots=1 if len(group) == 1 else 0)
        for i, group in enumerate(tables_propose(present), start=1)
    ]
    usual = selectors.usual_settings(classroom)
    return class_session_start(
        classroom=classroom,
        tables=tables,
        settings={k: usual[k] for k in selectors.USUAL_KEYS},
        by=by,
        starter=usual.get("starter") or "first",
        cap_range=usual.get("cap_range"),
        cap_tier=usual.get("cap_tier"),
        rng=rng,
    )


def _session_games(session):
    return list(session.games.order_by("pk"))


def _session_tables_apply(session, statuses: Sequence[str], action, by: User | None) -> int:
    """Apply a games service to every table of a class game in one of `statuses`; how many."""
    count = 0
    for game in _session_games(session):
        if game.status in statuses:
            action(game=game, by=by)
            count += 1
    return count


def _session_status_set(session, status: str, *, only_from: str | None = None) -> None:
    if only_from is None or session.status == only_from:
        session.status = status
        session.save(update_fields=["status"])


@transaction.atomic
def class_session_pause(*, session, by: User | None = None) -> int:
    """Pause every running table; the number paused."""
    count = _session_tables_apply(session, [Game.Status.RUNNING], game_pause, by)
    _session_status_set(session, ClassSession.Status.PAUSED, only_from=ClassSession.Status.RUNNING)
    return count


@transaction.atomic
def class_session_resume(*, session, by: User | None = None) -> int:
    """Resume every paused table; the number resumed."""
    count = _session_tables_apply(session, [Game.Status.PAUSED], game_resume, by)
    _session_status_set(session, ClassSession.Status.RUNNING, only_from=ClassSession.Status.PAUSED)
    return count


@transaction.atomic
def class_session_end(*, session, by: User | None = None) -> int:
    """End every table still going (scores as they stand); the number ended."""
    going = [Game.Status.SETUP, Game.Status.RUNNING, Game.Status.PAUSED]
    count = _session_tables_apply(session, going, game_end, by)
    _session_status_set(session, ClassSession.Status.FINISHED)
    return count


def session_after_game_change(*, session_id: int | None) -> bool:
    """Mark the class game finished once every table has ended by itself; True if it did now.

    games.services tells it (games.signals.game_over) when a table has just ended, by itself or
    ended, in that transaction; the live view only reads. Idempotent: a second call changes
    nothing.
    """
    if session_id is None:
        return False
    with transaction.atomic():
        session = ClassSession.objects.select_for_update(no_key=True).filter(pk=session_id).first()
        if session is None or session.status == ClassSession.Status.FINISHED:
            return False
        statuses = list(session.games.values_list("status", flat=True))
        if not statuses or any(s not in OVER for s in statuses):
            return False
        session.status = ClassSession.Status.FINISHED
        session.save(update_fields=["status"])
    return True


@transaction.atomic
def class_session_clocks_shift(*, session, shift) -> None:
    """Every moment of a class game's running tables moved by `shift` (games.services, each
    under its game's lock), and the class game's own start: the demo's running class game,
    looked at later than it was built (demo.simulate.live_refresh)."""
    for game in _session_games(session):
        if game.status == Game.Status.RUNNING:
            game_clocks_shift(game_id=game.pk, shift=shift)
    ClassSession.objects.filter(pk=session.pk).update(created_at=F("created_at") + shift)


def class_seat_replace(*, game, position: int, strength: str, by: User | None = None):
    """An absent student's seat is played by a computer player from now on (R8)."""
    try:
        return seat_replace_by_bot(game=game, position=position, strength=strength, by=by)
    except GameError as exc:
        raise ValidationError(exc.message, code=exc.code) from exc


def sessions_erase_before(*, before, school=None, dry_run: bool = False) -> dict[str, int]:
    """Delete the class games created before `before` that have no table left (retention, after
    games.services.games_erase_before: games.signals.games_erased); the rows deleted per label.

    dry_run counts those whose every table is erased too, and changes nothing.
    """
    over = games_over_before(before)
    sessions = ClassSession.objects.filter(created_at__lt=before).exclude(
        Exists(Game.objects.filter(class_table__session=OuterRef("pk")).exclude(over))
    )
    if school is not None:
        sessions = sessions.filter(classroom__school=school)
    label = ClassSession._meta.label
    if dry_run:
        return {label: sessions.count()}
    counts = {label: 0}
    with transaction.atomic():
        ids = list(
            sessions.select_for_update(no_key=False, of=("self",)).values_list("pk", flat=True)
        )
        # Locked now: a table added since the first read keeps its class game (and itself).
        empty = ClassSession.objects.filter(pk__in=ids).exclude(
            Exists(ClassTable.objects.filter(session=OuterRef("pk")))
        )
        _, deleted = empty.delete()
    for name, n in deleted.items():
        counts[name] = counts.get(name, 0) + n
    return counts
