"""Writes for progress reports: building them, build requests, level advice, parent links."""
from __future__ import annotations

import hashlib
import secrets
from datetime import date, datetime, timedelta
from typing import Any

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Count, DateField, Max, Q
from django.db.models.functions import Trunc
from django.utils import timezone
from django.utils.translation import gettext as _

from classrooms import services as classroom_services
from classrooms.models import Classroom, LevelChange, ParentLink, Student, User
from games.models import Move, Play, Seat

from .models import LevelRecommendation, ParentInvite, ReportJob, WeeklyReport, WeekTally
from .progress import (
    TALLY_VERSION,
    plays_by_week,
    report_from_weeks,
    week_bounds,
    week_start_of,
    week_tally,
)
from .selectors import school_tz

PLAY_FIELDS = (
    "id", "game_id", "kind", "at", "ok", "verdict_kind", "code", "skills", "text",
    "n_cards", "tier", "number_range", "reaction_ms", "challenge_outcome", "missed",
    "missed_operation",
)
DISMISSED_QUIET_DAYS = 14  # a dismissed proposal is not made again for two weeks
INVITE_DAYS = 30
INVITE_ALPHABET = classroom_services.CLASS_CODE_ALPHABET  # no 0/O, 1/I: typed from a paper slip, like a class code
INVITE_LENGTH = 12  # 60 bits: guessing is hopeless, and the view rate-limits tries anyway


# --- building reports ------------------------------------------------------------------------


def report_build(*, student: Student, week_start: date | None = None,
                 now: datetime | None = None) -> WeeklyReport:
    """Build (or rebuild in place) one student's report for one week: idempotent.

    A constant number of queries whatever the amount of play: the week's plays, the earlier
    weeks' tallies (week_tallies), seats, the week's moves, level history, the upsert, and
    the level advice.
    """
    now = now or timezone.now()
    school = student.classroom.school
    tz = school_tz(school)
    week_start = week_start or week_start_of(now, tz)
    if week_start.weekday() != 0:
        raise ValidationError(_("A report week starts on a Monday."), code="week_not_monday")
    start, end = week_bounds(week_start, tz)

    # This week's plays, and the weeks before as stored tallies: the same few queries and
    # about the same time in week 2 and in week 72.
    plays = list(Play.objects.filter(student=student, at__gte=start, at__lt=end)
                 .order_by("at", "pk").values(*PLAY_FIELDS))
    weeks = week_tallies(student=student, before=week_start, tz=tz, now=now)
    weeks.append(week_tally(plays, week_start))
    details = report_details(student=student, start=start, end=end, plays=plays)
    data = report_from_weeks(weeks=weeks, week_start=week_start, tz=tz, level=student.level,
                             **details)
    report, _created = WeeklyReport.objects.update_or_create(
        student=student, week_start=week_start, defaults={"data": data, "built_at": now})
    # Advice follows the newest evidence only: rebuilding an old week must not undo it.
    if not WeeklyReport.objects.filter(student=student, week_start__gt=week_start).exists():
        recommendation_refresh(student=student, proposal=data["recommendation"])
    return report


def report_details(*, student: Student, start: datetime, end: datetime, plays: list[dict]) -> dict:
    """A report's inputs besides plays: the games sat in, cards won in the week's games, levels.
    `plays`: the week's plays."""
    seats = list(Seat.objects.filter(student=student).values(
        "game_id", "position", "score", "game__kind", "game__started_at", "game__finished_at",
        "game__last_move_at"))
    games = [{"id": s["game_id"], "kind": s["game__kind"], "started_at": s["game__started_at"],
              "ended_at": s["game__finished_at"] or s["game__last_move_at"], "score": s["score"]}
             for s in seats]
    positions = {s["game_id"]: s["position"] for s in seats}
    week_game_ids = {g["id"] for g in games if g["started_at"] and start <= g["started_at"] < end}
    week_game_ids |= {p["game_id"] for p in plays if p["at"] >= start and p["game_id"] in positions}
    cards_won = _cards_won(week_game_ids, positions)
    level_changes = list(LevelChange.objects.filter(student=student).order_by("changed_at", "pk")
                         .values("changed_at", "number_range", "tier"))

    return {"games": games, "cards_won": cards_won, "level_changes": level_changes}


def week_tallies(*, student: Student, before: date, tz, now: datetime | None = None) -> list[dict]:
    """The tallies of the student's weeks before `before` (a Monday), oldest first.

    Stored tallies are reused while their week's plays are unchanged (plays_mark); the weeks
    whose plays are new or changed are counted again from their plays and stored. Queries:
    the marks and the stored tallies, and when some week is out of date its plays, the
    upsert and (for weeks whose plays are all gone) a delete. None grows with the weeks.
    """
    start, _end = week_bounds(before, tz)
    marks = {
        row["week"]: _plays_mark(row, tz)
        for row in Play.objects.filter(student=student, at__lt=start)
        .annotate(week=Trunc("at", "week", output_field=DateField(), tzinfo=tz))
        .values("week")
        .annotate(n=Count("id"), last=Max("id"), judged=Count("id", filter=Q(ok__isnull=False)),
                  right=Count("id", filter=Q(ok=True)),
                  ruled=Count("id", filter=~Q(challenge_outcome="")))
        .order_by("week")
    }
    stored = {t.week_start: t for t in WeekTally.objects.filter(student=student, week_start__lt=before)}
    gone = [week for week in stored if week not in marks]
    if gone:
        WeekTally.objects.filter(student=student, week_start__in=gone).delete()
    stale = sorted(week for week, mark in marks.items()
                   if week not in stored or stored[week].plays_mark != mark)
    if stale:
        now = now or timezone.now()
        fresh = []
        for week, rows in _plays_of_weeks(student, stale, tz).items():
            fresh.append(WeekTally(student=student, week_start=week, data=week_tally(rows, week),
                                   plays_mark=marks[week], built_at=now))
        # Two builds of one child at once store the same figures: the later upsert wins.
        WeekTally.objects.bulk_create(fresh, update_conflicts=True,
                                      unique_fields=["student", "week_start"],
                                      update_fields=["data", "plays_mark", "built_at"])
        stored.update((t.week_start, t) for t in fresh)
    return [stored[week].data for week in sorted(marks)]


def _plays_mark(row: dict, tz) -> str:
    # The time zone is in the mark: a school that moves changes which plays fall in a week.
    return (f"v{TALLY_VERSION}:{row['n']}:{row['last']}:{row['judged']}:{row['right']}:"
            f"{row['ruled']}:{tz.key}")


def _plays_of_weeks(student: Student, weeks: list[date], tz) -> dict[date, list[dict]]:
    """The plays of these weeks (sorted Mondays), one query: consecutive weeks are one range."""
    ranges: list[list[datetime]] = []
    for week in weeks:
        week_from, week_until = week_bounds(week, tz)
        if ranges and ranges[-1][1] == week_from:
            ranges[-1][1] = week_until
        else:
            ranges.append([week_from, week_until])
    within = Q()
    for week_from, week_until in ranges:
        within |= Q(at__gte=week_from, at__lt=week_until)
    rows = Play.objects.filter(within, student=student).order_by("at", "pk").values(*PLAY_FIELDS)
    return {week: plays for week, plays in plays_by_week(rows, tz).items() if week in set(weeks)}


def _cards_won(game_ids: set[int], positions: dict[int, int]) -> dict[int, int]:
    """Cards won in tricks per game, from the games' trick_won events (R4.4)."""
    won = dict.fromkeys(game_ids, 0)
    if not game_ids:
        return won
    for game_id, events in Move.objects.filter(game_id__in=game_ids).values_list("game_id", "events"):
        for event in events or ():
            if not isinstance(event, dict) or event.get("type") != "trick_won":
                continue
            # A trick given away with DAOU (R7.3) is won by the neighbour it went "to".
            winner = event["to"] if event.get("to") is not None else event.get("seat")
            if winner == positions.get(game_id):
                won[game_id] += len(event.get("cards") or ())
    return won


# --- build requests (the teacher's "build now") ----------------------------------------------


def report_job_create(*, by: User, student: Student | None = None,
                      classroom: Classroom | None = None, week_start: date | None = None) -> ReportJob:
    """Ask the workers to build now; the page then polls the job's progress."""
    from . import tasks

    if (student is None) == (classroom is None):
        raise ValidationError(_("Choose one student or one class."), code="job_target")
    school = (student.classroom if student else classroom).school
    week_start = week_start or week_start_of(timezone.now(), school_tz(school))
    total = 1 if student else Student.objects.filter(classroom=classroom).count()
    if total == 0:
        raise ValidationError(_("This class has no students yet."), code="job_empty")
    job = ReportJob.objects.create(school=school, student=student, classroom=classroom,
                                   requested_by=by, week_start=week_start, total=total)
    # Enqueued after commit, so that the worker finds the job row.
    if student:
        transaction.on_commit(lambda: tasks.build_student_report.delay(
            student.pk, week_start.isoformat(), job_id=job.pk))
    else:
        transaction.on_commit(lambda: tasks.build_class_reports.delay(
            classroom.pk, week_start.isoformat(), job_id=job.pk,
            skip_built_since=job.created_at.isoformat()))
    return job


def report_job_mark(*, job_id: int, status: str, error: str = "") -> None:
    """Record a job's state; a finished job is never set back to running by a late retry."""
    updates: dict[str, Any] = {"status": status}
    if status in (ReportJob.Status.DONE, ReportJob.Status.FAILED):
        updates["finished_at"] = timezone.now()
        updates["error"] = error[:200]
    ReportJob.objects.filter(pk=job_id).exclude(status=ReportJob.Status.DONE).update(**updates)


# --- level recommendations -----------------------------------------------------------------


@transaction.atomic
def recommendation_refresh(*, student: Student, proposal: dict | None) -> LevelRecommendation | None:
    """Keep the open proposal in step with the evidence: create, update or withdraw it."""
    # The student row lock serialises two builds of the same child (one open proposal at most).
    student = Student.objects.select_for_update().get(pk=student.pk)
    current = LevelRecommendation.objects.filter(
        student=student, status=LevelRecommendation.Status.OPEN).first()
    target = (proposal["number_range"], proposal["tier"]) if proposal else None
    if current and (target != (current.number_range, current.tier)
                    or student.level != (current.from_number_range, current.from_tier)):
        current.status = LevelRecommendation.Status.WITHDRAWN
        current.save(update_fields=["status"])
        current = None
    if target is None:
        return None
    if current:
        current.evidence = proposal
        current.save(update_fields=["evidence"])
        return current
    quiet = timezone.now() - timedelta(days=DISMISSED_QUIET_DAYS)
    if LevelRecommendation.objects.filter(
        student=student, status=LevelRecommendation.Status.DISMISSED, decided_at__gte=quiet,
        number_range=target[0], tier=target[1], from_number_range=student.number_range,
        from_tier=student.tier,
    ).exists():
        return None
    return LevelRecommendation.objects.create(
        student=student, from_number_range=student.number_range, from_tier=student.tier,
        number_range=target[0], tier=target[1], evidence=proposal)


@transaction.atomic
def recommendation_decide(*, recommendation: LevelRecommendation, accept: bool,
                          by: User) -> LevelRecommendation:
    """The teacher's one tap: accept (the level changes, with its history) or dismiss."""
    rec = LevelRecommendation.objects.select_for_update().get(pk=recommendation.pk)
    if rec.status != LevelRecommendation.Status.OPEN:
        raise ValidationError(_("This proposal was already decided."), code="decided")
    student = Student.objects.select_for_update().get(pk=rec.student_id)
    if accept and student.level != (rec.from_number_range, rec.from_tier):
        rec.status = LevelRecommendation.Status.WITHDRAWN
        rec.save(update_fields=["status"])
        raise ValidationError(_("The level was changed in the meantime; this proposal no longer "
                                "applies."), code="level_changed")
    if accept:
        classroom_services.levels_set(students=[student], number_range=rec.number_range,
                                      tier=rec.tier, by=by)
    rec.status = (LevelRecommendation.Status.ACCEPTED if accept
                  else LevelRecommendation.Status.DISMISSED)
    rec.decided_by, rec.decided_at = by, timezone.now()
    rec.save(update_fields=["status", "decided_by", "decided_at"])
    return rec


# --- parents --------------------------------------------------------------------------------


def invite_code_normalise(code: str) -> str:
    return "".join(ch for ch in (code or "").upper() if ch.isalnum())


def _code_hash(code: str) -> str:
    return hashlib.sha256(invite_code_normalise(code).encode()).hexdigest()


def invite_code_format(code: str) -> str:
    code = invite_code_normalise(code)
    return "-".join(code[i:i + 4] for i in range(0, len(code), 4))


@transaction.atomic
def parent_invite_create(*, student: Student, by: User) -> tuple[ParentInvite, str]:
    """A one-time code for one child; the code is returned once (for the slip) and not kept."""
    while True:
        code = "".join(secrets.choice(INVITE_ALPHABET) for _i in range(INVITE_LENGTH))
        try:
            with transaction.atomic():
                invite = ParentInvite.objects.create(
                    student=student, code_hash=_code_hash(code), created_by=by,
                    expires_at=timezone.now() + timedelta(days=INVITE_DAYS))
            return invite, invite_code_format(code)
        except IntegrityError:  # a 60-bit clash: astronomically rare, but never a crash
            continue


def _invite_open(code: str) -> ParentInvite:
    """The unused invitation for this code, locked; a clear message otherwise."""
    normalised = invite_code_normalise(code)
    if len(normalised) != INVITE_LENGTH:
        raise ValidationError(_("A link code has 12 letters and digits, like ABCD-EFGH-JK23."),
                              code="invite_format")
    invite = (ParentInvite.objects.select_for_update().select_related("student")
              .filter(code_hash=_code_hash(normalised)).first())
    if invite is None or invite.revoked_at is not None:
        raise ValidationError(_("This code is not valid. Check it, or ask the teacher for a new one."),
                              code="invite_unknown")
    if invite.used_at is not None:
        raise ValidationError(_("This code was already used. Ask the teacher for a new one."),
                              code="invite_used")
    if invite.expires_at <= timezone.now():
        raise ValidationError(_("This code has expired. Ask the teacher for a new one."),
                              code="invite_expired")
    return invite


@transaction.atomic
def parent_invite_redeem(*, code: str, parent: User) -> ParentLink:
    """Link a parent's account to the child of a code; the code is then spent."""
    if parent.role != User.Role.PARENT:
        raise ValidationError(_("Only a parent account can be linked to a child."), code="not_parent")
    invite = _invite_open(code)
    link, created = ParentLink.objects.get_or_create(parent=parent, student=invite.student)
    if not created and link.revoked_at is not None:
        link.revoked_at = None  # the teacher gave a new code after revoking: welcome back
        link.save(update_fields=["revoked_at"])
    invite.used_by, invite.used_at = parent, timezone.now()
    invite.save(update_fields=["used_by", "used_at"])
    return link


@transaction.atomic
def parent_signup(*, code: str, username: str, password: str, first_name: str = "",
                  email: str = "") -> User:
    """A new parent account made with a child's code (the code is checked first)."""
    _invite_open(code)
    username = (username or "").strip()
    if not username:
        raise ValidationError(_("Choose a user name."), code="username_missing")
    if len(username) > 150:
        raise ValidationError(_("A user name has at most 150 characters."), code="username_long")
    if User.objects.filter(username__iexact=username).exists():
        raise ValidationError(_("This user name is taken; choose another."), code="username_taken")
    user = User(username=username, role=User.Role.PARENT, first_name=(first_name or "").strip()[:150],
                email=(email or "").strip()[:254])
    validate_password(password, user)
    user.set_password(password)
    user.save()
    parent_invite_redeem(code=code, parent=user)
    return user


@transaction.atomic
def parent_invite_revoke(*, invite: ParentInvite, by: User) -> None:
    ParentInvite.objects.filter(pk=invite.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())


@transaction.atomic
def parent_link_revoke(*, link: ParentLink, by: User) -> None:
    """The parent no longer sees this child, from their next request on."""
    ParentLink.objects.filter(pk=link.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())


# --- privacy ---------------------------------------------------------------------------------


def student_erase(*, student: Student, by: User) -> None:
    """Erase a child everywhere; their reports, advice and parent codes go with them (CASCADE)."""
    if by.role != User.Role.SCHOOL_ADMIN or by.school_id != student.classroom.school_id:
        raise ValidationError(_("Only the school's admin can erase a student."), code="not_admin")
    classroom_services.student_erase(student=student, by=by)
