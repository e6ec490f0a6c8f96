"""Writes for progress reports: building them, build requests, level advice, parent links."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy

from classrooms import invitations, permissions
from classrooms import services as classroom_services
from classrooms.models import Classroom, LevelChange, ParentLink, Student, User
from classrooms.names import name_check
from classrooms.selectors import school_tz
from games.engine import events as engine_events
from games.models import Move, Play, Seat

from . import scheduling
from .models import LevelRecommendation, ParentInvite, ReportJob, WeeklyReport, WeekTally
from .progress import (
    SETTLED,
    TALLY_VERSION,
    Summary,
    plays_by_week,
    report_from_summary,
    summary_open_games,
    week_bounds,
    week_start_of,
    week_tally,
)
from .window import counted, counted_seats

PLAY_FIELDS = (
    "id",
    "game_id",
    "kind",
    "at",
    "ok",
    "verdict_kind",
    "code",
    "skills",
    "text",
    "n_cards",
    "tier",
    "number_range",
    "reaction_ms",
    "challenge_outcome",
    "missed",
    "missed_operation",
)
DISMISSED_QUIET_DAYS = 14  # a dismissed proposal is not made again for two weeks


# --- building reports ------------------------------------------------------------------------


def report_build(
    *,
    student: Student,
    week_start: date | None = None,
    now: datetime | None = None,
    mark: str | None = None,
) -> WeeklyReport:
    """Build (or rebuild in place) one student's report for one week: idempotent.

    The same few queries and about the same work whatever the weeks before: the week's
    plays, the running totals of the weeks before (week_summary_before: the last stored
    WeekTally, checked by one aggregate), the seats of the week's games and of the games
    still open, the week's moves, level history, the upsert, and the level advice.
    """
    now = now or timezone.now()
    school = student.classroom.school
    tz = school_tz(school)
    week_start = week_start or week_start_of(now, tz)
    if week_start.weekday() != 0:
        raise ValidationError(_("A report week starts on a Monday."), code="week_not_monday")
    start, end = week_bounds(week_start, tz)
    # What the report is built from, taken before its plays are read: a play added meanwhile
    # makes the next read build it again (reports_fresh).
    mark = mark or report_marks([student], end)[student.pk]

    plays = list(
        counted(Play.objects.filter(student=student, at__gte=start, at__lt=end))
        .order_by("at", "pk")
        .values(*PLAY_FIELDS)
    )
    summary = week_summary_before(student=student, before=week_start, tz=tz, now=now)
    details = report_details(student=student, start=start, end=end, plays=plays, summary=summary)
    data = report_from_summary(
        summary=summary,
        tally=week_tally(plays, week_start),
        week_start=week_start,
        tz=tz,
        level=student.level,
        **details,
    )
    report, _created = WeeklyReport.objects.update_or_create(
        student=student,
        week_start=week_start,
        defaults={"data": data, "built_at": now, "mark": mark},
    )
    # Advice follows the newest evidence only: rebuilding an old week must not undo it.
    if not WeeklyReport.objects.filter(student=student, week_start__gt=week_start).exists():
        recommendation_refresh(student=student, proposal=data["recommendation"])
    return report


# --- reading a report: "this week" is live ----------------------------------------------------

# A report built this long after its week ended counted every play of it (a ruling comes within
# seconds of its move): it is final, and read as stored without a look at the plays.
FINAL_AFTER = timedelta(minutes=10)


def report_marks(students: list[Student], end: datetime) -> dict[int, str]:
    """What each student's report of a week ending at `end` is built from, as a short mark:
    the counted plays before `end` (how many, the last id, how many judged, how many ruled by a
    challenge), the counted games started before it (how many, how many over, the last end) and
    the level changes. A game that ended a minute ago, a move, a ruling change it. Three
    grouped queries whatever the number of students."""
    ids = [s.pk for s in students]
    plays = {
        row["student_id"]: row
        for row in counted(Play.objects.filter(student_id__in=ids, at__lt=end))
        .values("student_id")
        .annotate(
            n=Count("id"),
            last=Max("id"),
            judged=Count("id", filter=Q(ok__isnull=False)),
            ruled=Count("id", filter=~Q(challenge_outcome="")),
        )
    }
    games = {
        row["student_id"]: row
        for row in counted_seats(Seat.objects.filter(student_id__in=ids, game__started_at__lt=end))
        .values("student_id")
        .annotate(
            n=Count("id"),
            over=Count("id", filter=Q(game__status__in=SETTLED)),
            ended=Max("game__finished_at"),
        )
    }
    levels = {
        row["student_id"]: row
        for row in LevelChange.objects.filter(student_id__in=ids)
        .values("student_id")
        .annotate(n=Count("id"), last=Max("changed_at"))
    }
    marks = {}
    for pk in ids:
        p, g, lv = plays.get(pk, {}), games.get(pk, {}), levels.get(pk, {})
        marks[pk] = ":".join(
            str(x)
            for x in (
                f"v{TALLY_VERSION}",
                p.get("n", 0),
                p.get("last") or 0,
                p.get("judged", 0),
                p.get("ruled", 0),
                g.get("n", 0),
                g.get("over", 0),
                g["ended"].isoformat() if g.get("ended") else "-",
                lv.get("n", 0),
                lv["last"].isoformat() if lv.get("last") else "-",
            )
        )
    return marks


def _is_final(report: WeeklyReport, end: datetime) -> bool:
    return report.built_at >= end + FINAL_AFTER and report.mark.startswith(f"v{TALLY_VERSION}:")


def reports_fresh(
    *, students: list[Student], week_start: date, now: datetime | None = None
) -> dict[int, WeeklyReport]:
    """The students' reports of that week as their plays are now (student id -> report): a
    stored report is read as it is when it is final or when nothing it counts changed since it
    was built (its mark); otherwise, or when the week is the current one and the child played
    in it with no report yet, it is built again now. Students with no play up to the week's
    end and no report get none."""
    now = now or timezone.now()
    if not students:
        return {}
    tz = school_tz(students[0].classroom.school)
    _start, end = week_bounds(week_start, tz)
    stored = {
        r.student_id: r
        for r in WeeklyReport.objects.filter(student__in=students, week_start=week_start)
    }
    unsure = [s for s in students if s.pk not in stored or not _is_final(stored[s.pk], end)]
    if not unsure:
        return stored
    marks = report_marks(unsure, end)
    current = week_start == week_start_of(now, tz)
    for student in unsure:
        report = stored.get(student.pk)
        if report is not None and report.mark == marks[student.pk]:
            continue
        if report is None and not (current and marks[student.pk].split(":")[1] != "0"):
            continue  # a past week with no report stays without one; an empty week too
        stored[student.pk] = report_build(
            student=student, week_start=week_start, now=now, mark=marks[student.pk]
        )
    return stored


def report_read(
    *, student: Student, week: date | None = None, now: datetime | None = None
) -> WeeklyReport | None:
    """One student's report to show: of `week`, else of the current week when the child has
    played in it, else the latest; always as the plays are now (reports_fresh)."""
    now = now or timezone.now()
    if week is None:
        tz = school_tz(student.classroom.school)
        this_week = week_start_of(now, tz)
        start, _end = week_bounds(this_week, tz)
        if counted(Play.objects.filter(student=student, at__gte=start)).exists():
            week = this_week
        else:
            latest = WeeklyReport.objects.filter(student=student).order_by("-week_start").first()
            if latest is None:
                return None
            week = latest.week_start
    return reports_fresh(students=[student], week_start=week, now=now).get(student.pk)


def week_is_over(report: WeeklyReport, now: datetime | None = None) -> bool:
    """Whether the report's week has ended (in the school's time zone): else "so far"."""
    _start, end = week_bounds(report.week_start, school_tz(report.student.classroom.school))
    return (now or timezone.now()) >= end


def report_details(
    *,
    student: Student,
    start: datetime,
    end: datetime,
    plays: list[dict],
    summary: dict | None = None,
) -> dict:
    """A report's inputs besides plays: the games sat in, cards won in the week's games, levels.
    `plays`: the week's plays. Without `summary` (the running totals of the weeks before, from
    week_summary_before) every game the student sat in; with it, only the games it does not
    count yet: those started since its end, those still open then, and those of the week's
    plays."""
    if summary is None:
        games, positions = _seat_games(student)
    else:
        ids = set(summary_open_games(summary)) | {p["game_id"] for p in plays}
        since = datetime.fromisoformat(summary["until"])
        games, positions = _seat_games(
            student, Q(game_id__in=ids) | Q(game__started_at__gte=since, game__started_at__lt=end)
        )
    week_game_ids = {g["id"] for g in games if g["started_at"] and start <= g["started_at"] < end}
    week_game_ids |= {p["game_id"] for p in plays if p["at"] >= start and p["game_id"] in positions}
    cards_won = _cards_won(week_game_ids, positions)
    level_changes = list(
        LevelChange.objects.filter(student=student)
        .order_by("changed_at", "pk")
        .values("changed_at", "number_range", "tier")
    )

    return {"games": games, "cards_won": cards_won, "level_changes": level_changes}


def _seat_games(student: Student, within: Q | None = None) -> tuple[list[dict], dict[int, int]]:
    """The student's games (as report_from_summary takes them, with their status) and their
    seat positions, by game id."""
    seats = counted_seats(Seat.objects.filter(student=student))
    if within is not None:
        seats = seats.filter(within)
    seats = list(
        seats.values(
            "game_id",
            "position",
            "score",
            "game__kind",
            "game__status",
            "game__started_at",
            "game__finished_at",
            "game__last_move_at",
        )
    )
    games = [
        {
            "id": s["game_id"],
            "kind": s["game__kind"],
            "started_at": s["game__started_at"],
            "ended_at": s["game__finished_at"] or s["game__last_move_at"],
            "score": s["score"],
            "status": s["game__status"],
        }
        for s in seats
    ]
    return games, {s["game_id"]: s["position"] for s in seats}


def _stored_weeks(
    student: Student, latest: WeekTally, mark: dict, tz
) -> tuple[dict | None, tuple[int, int, int], list] | None:
    """What the stored weeks up to `latest` still say, when the plays they counted did not
    change since (`mark`, the aggregate of week_summary_before): the totals to start from
    (None: from nothing), the mark's counts (how many plays, the last id, how many ruled),
    and the stored weeks to add to those totals, as (monday, tally, row). None when every
    week must be counted again."""
    if latest.data.get("version") != TALLY_VERSION or latest.plays_mark != _plays_mark(
        mark["n"], mark["last"], mark["ruled"], tz
    ):
        return None
    counts = (mark["n"], mark["last"] or 0, mark["ruled"])
    base = latest.data.get("summary")
    if base is not None:
        return base, counts, []
    # A week stored without totals (a week before the latest of the build that stored it,
    # rebuilt later): the totals of an earlier week, and the weeks since, once.
    holder = (
        WeekTally.objects.filter(
            student=student, week_start__lt=latest.week_start, data__has_key="summary"
        )
        .order_by("-week_start")
        .first()
    )
    stored = WeekTally.objects.filter(student=student, week_start__lte=latest.week_start)
    if holder is not None:
        if holder.data.get("version") != TALLY_VERSION:
            return None
        stored = stored.filter(week_start__gt=holder.week_start)
    weeks = [(t.week_start, t.data.get("week"), t) for t in stored.order_by("week_start")]
    if not all(t.data.get("version") == TALLY_VERSION and tally for _monday, tally, t in weeks):
        return None
    return (holder.data["summary"] if holder is not None else None), counts, weeks


def _games_of_weeks(student: Student, base: dict | None, weeks: list, start: datetime) -> list:
    """The games the running totals need to add `weeks` to `base`: all the student's games
    when starting from nothing, else those still open in `base`, those the weeks' plays
    happened in, and those started since `base` ends, before `start`."""
    if base is None:
        return _seat_games(student)[0]
    ids = set(summary_open_games(base))
    ids |= {game_id for _monday, tally, _row in weeks for game_id, _a, _b in tally["spans"]}
    since = datetime.fromisoformat(base["until"])
    within = Q(game_id__in=ids) | Q(game__started_at__gte=since, game__started_at__lt=start)
    return _seat_games(student, within)[0]


def week_summary_before(
    *, student: Student, before: date, tz, now: datetime | None = None
) -> dict | None:
    """The running totals (progress.Summary) of the student's weeks before `before` (a
    Monday), as a state, or None when they played none.

    Each week with plays is stored once (WeekTally: its week_tally, and the mark of the
    plays up to its end: how many, the last id, how many ruled by a challenge, the time
    zone); the latest stored week also holds the running totals up to its end. The latest
    week before `before` is checked by one aggregate of the plays before its end: when a
    play was added, erased or ruled since, every week is counted again from the plays;
    otherwise only the plays after it are read (weeks not stored yet), and added to its
    totals. Queries: the latest week, the aggregate, and when plays follow it their plays,
    the seats of their games and the upsert. None grows with the weeks.
    """
    start, _end = week_bounds(before, tz)
    latest = (
        WeekTally.objects.filter(student=student, week_start__lt=before)
        .order_by("-week_start")
        .first()
    )
    until = week_bounds(latest.week_start, tz)[1] if latest is not None else None
    earlier = counted(Play.objects.filter(student=student, at__lt=start))
    if until is not None:
        stored_weeks = Q(at__lt=until)
        mark = earlier.aggregate(
            total=Count("id"),
            n=Count("id", filter=stored_weeks),
            last=Max("id", filter=stored_weeks),
            ruled=Count("id", filter=stored_weeks & ~Q(challenge_outcome="")),
        )
    else:
        mark = earlier.aggregate(total=Count("id"))
    stored = _stored_weeks(student, latest, mark, tz) if latest is not None else None
    if latest is not None and stored is None:
        # Plays counted in the stored weeks changed: all counted again from the plays.
        WeekTally.objects.filter(student=student, week_start__lt=before).delete()
        latest = until = None
    base, counts, weeks = stored or (None, (0, 0, 0), [])
    new_weeks = {}
    if mark["total"] > counts[0]:
        plays = earlier.filter(at__gte=until) if until is not None else earlier
        new_weeks = plays_by_week(plays.order_by("at", "pk").values(*PLAY_FIELDS), tz)
        weeks += [
            (monday, week_tally(rows, monday), None) for monday, rows in sorted(new_weeks.items())
        ]
    if not weeks:
        return base
    games = _games_of_weeks(student, base, weeks, start)
    running = Summary(base)
    for monday, tally, _row in weeks:
        running.add(tally, games, until=week_bounds(monday, tz)[1])
    summary = running.state()
    now = now or timezone.now()
    n, last, ruled = counts
    fresh = []
    for monday, tally, row in weeks:
        if row is not None:
            continue
        rows = new_weeks[monday]
        n += len(rows)
        last = max([last, *(p["id"] for p in rows)])
        ruled += sum(1 for p in rows if p["challenge_outcome"])
        fresh.append(
            WeekTally(
                student=student,
                week_start=monday,
                data={"version": TALLY_VERSION, "week": tally},
                plays_mark=_plays_mark(n, last, ruled, tz),
                built_at=now,
            )
        )
    if fresh:
        fresh[-1].data["summary"] = summary
        # Two builds of one child at once store the same figures: the later upsert wins.
        WeekTally.objects.bulk_create(
            fresh,
            update_conflicts=True,
            unique_fields=["student", "week_start"],
            update_fields=["data", "plays_mark", "built_at"],
        )
    else:
        WeekTally.objects.filter(pk=latest.pk).update(data={**latest.data, "summary": summary})
    return summary


def _plays_mark(n: int, last: int | None, ruled: int, tz) -> str:
    # The time zone is in the mark: a school that moves changes which plays fall in a week.
    return f"v{TALLY_VERSION}:{n}:{last or 0}:{ruled}:{tz.key}"


def _cards_won(game_ids: set[int], positions: dict[int, int]) -> dict[int, int]:
    """Cards won in tricks per game, as the engine counts them from its events (R4.4, R7.3)."""
    won = dict.fromkeys(game_ids, 0)
    if not game_ids:
        return won
    for game_id, events in Move.objects.filter(game_id__in=game_ids).values_list(
        "game_id", "events"
    ):
        won[game_id] += engine_events.cards_won(events, positions.get(game_id))
    return won


# --- build requests (the teacher's "build now") ----------------------------------------------


def report_job_create(
    *,
    by: User,
    student: Student | None = None,
    classroom: Classroom | None = None,
    week_start: date | None = None,
) -> ReportJob:
    """Ask the workers to build now; the page then polls the job's progress."""
    if (student is None) == (classroom is None):
        raise ValidationError(_("Choose one student or one class."), code="job_target")
    school = (student.classroom if student else classroom).school
    week_start = week_start or week_start_of(timezone.now(), school_tz(school))
    total = 1 if student else Student.objects.filter(classroom=classroom).count()
    if total == 0:
        raise ValidationError(_("This class has no students yet."), code="job_empty")
    job = ReportJob.objects.create(
        school=school,
        student=student,
        classroom=classroom,
        requested_by=by,
        week_start=week_start,
        total=total,
    )
    # Queued after commit, so that the worker finds the job row.
    scheduling.report_job_queue_on_commit(job)
    return job


def report_job_mark(*, job_id: int, status: str, error: str = "") -> None:
    """Record a job's state; a finished job is never set back to running by a late retry.

    Marking it running stamps its heartbeat: the build has a worker from now on."""
    updates: dict[str, Any] = {"status": status}
    if status == ReportJob.Status.RUNNING:
        updates["heartbeat_at"] = timezone.now()
    if status in (ReportJob.Status.DONE, ReportJob.Status.FAILED):
        updates["finished_at"] = timezone.now()
        updates["error"] = error[:200]
    ReportJob.objects.filter(pk=job_id).exclude(status=ReportJob.Status.DONE).update(**updates)


def report_job_heartbeat(*, job_id: int) -> None:
    """The worker building the job is alive (called after each report it builds)."""
    ReportJob.objects.filter(pk=job_id, status=ReportJob.Status.RUNNING).update(
        heartbeat_at=timezone.now()
    )


def report_job_take_over(*, job_id: int, stale_before: datetime, now: datetime) -> bool:
    """True for the one caller that may queue a build whose worker has gone quiet.

    One conditional UPDATE: the job is still building and its heartbeat (or, never stamped,
    its creation) is older than `stale_before`; it stamps the heartbeat, so a second sweep
    (or another beat) finds it fresh and steps aside, and the new build has the stale
    period to start before anyone looks again."""
    quiet = Q(heartbeat_at__lt=stale_before) | Q(
        heartbeat_at__isnull=True, created_at__lt=stale_before
    )
    taken = (
        ReportJob.objects.filter(pk=job_id, status=ReportJob.Status.RUNNING)
        .filter(quiet)
        .update(heartbeat_at=now)
    )
    return taken == 1


# --- level recommendations -----------------------------------------------------------------


@transaction.atomic
def recommendation_refresh(
    *, student: Student, proposal: dict | None
) -> LevelRecommendation | None:
    """Keep the open proposal in step with the evidence: create, update or withdraw it."""
    # The student row lock serialises two builds of the same child (one open proposal at most).
    student = Student.objects.select_for_update(no_key=True).get(pk=student.pk)
    current = LevelRecommendation.objects.filter(
        student=student, status=LevelRecommendation.Status.OPEN
    ).first()
    target = (proposal["number_range"], proposal["tier"]) if proposal else None
    if current and (
        target != (current.number_range, current.tier)
        or student.level != (current.from_number_range, current.from_tier)
    ):
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
        student=student,
        status=LevelRecommendation.Status.DISMISSED,
        decided_at__gte=quiet,
        number_range=target[0],
        tier=target[1],
        from_number_range=student.number_range,
        from_tier=student.tier,
    ).exists():
        return None
    return LevelRecommendation.objects.create(
        student=student,
        from_number_range=student.number_range,
        from_tier=student.tier,
        number_range=target[0],
        tier=target[1],
        evidence=proposal,
    )


@transaction.atomic
def recommendation_decide(
    *, recommendation: LevelRecommendation, accept: bool, by: User
) -> LevelRecommendation:
    """The teacher's one tap: accept (the level changes, with its history) or dismiss."""
    rec = LevelRecommendation.objects.select_for_update(no_key=True).get(pk=recommendation.pk)
    if rec.status != LevelRecommendation.Status.OPEN:
        raise ValidationError(_("This proposal was already decided."), code="decided")
    student = Student.objects.select_for_update(no_key=True).get(pk=rec.student_id)
    if accept and student.level != (rec.from_number_range, rec.from_tier):
        rec.status = LevelRecommendation.Status.WITHDRAWN
        rec.save(update_fields=["status"])
        raise ValidationError(
            _("The level was changed in the meantime; this proposal no longer applies."),
            code="level_changed",
        )
    if accept:
        classroom_services.levels_set(
            students=[student], number_range=rec.number_range, tier=rec.tier, by=by
        )
    rec.status = (
        LevelRecommendation.Status.ACCEPTED if accept else LevelRecommendation.Status.DISMISSED
    )
    rec.decided_by, rec.decided_at = by, timezone.now()
    rec.save(update_fields=["status", "decided_by", "decided_at"])
    return rec


# --- parents --------------------------------------------------------------------------------


def _parent_invite_build(*, target: Student, by: User) -> ParentInvite:
    return ParentInvite(student=target)


def _parent_linked(invite: ParentInvite, *, parent: User) -> tuple[ParentLink, User]:
    """What a parent's code does: the parent's account follows the child."""
    if not permissions.is_parent(parent):
        raise ValidationError(
            _("Only a parent account can be linked to a child."), code="not_parent"
        )
    link, created = ParentLink.objects.get_or_create(parent=parent, student=invite.student)
    if not created and link.revoked_at is not None:
        link.revoked_at = None  # the teacher gave a new code after revoking: welcome back
        link.save(update_fields=["revoked_at"])
    return link, parent


# A teacher's one-time code for one child's parent, printed on a slip (the lifecycle:
# classrooms/invitations.py): invitations.create(PARENT_CODE, by=teacher, target=student), then
# invitations.redeem(PARENT_CODE, code, parent=account) links the parent to the child.
# 12 characters of 32: 60 bits, guessing is hopeless, and the pages count wrong tries anyway.
PARENT_CODE = invitations.Kind(
    name="parent",
    model=ParentInvite,
    secret=invitations.slip_code(12),
    days=30,
    build=_parent_invite_build,
    may_make=lambda by, student: permissions.manageable(by, Student).filter(pk=student.pk).exists(),
    redeem=_parent_linked,
    refusals={
        invitations.MALFORMED: _lazy("A link code has 12 letters and digits, like ABCD-EFGH-JK23."),
        invitations.UNKNOWN: _lazy(
            "This code is not valid. Check it, or ask the teacher for a new one."
        ),
        invitations.EXPIRED: _lazy("This code has expired. Ask the teacher for a new one."),
        invitations.USED: _lazy("This code was already used. Ask the teacher for a new one."),
        invitations.WITHDRAWN: _lazy(
            "This code was cancelled by the teacher. Ask the teacher for a new one."
        ),
        invitations.THROTTLED: _lazy(
            "Too many tries with a wrong code. Please wait a quarter of an hour."
        ),
        "forbidden": _lazy("Only a teacher of this child can make a code for a parent."),
    },
)


@transaction.atomic
def parent_signup(
    *, code: str, username: str, password: str, first_name: str = "", email: str = ""
) -> User:
    """A new parent account made with a child's code (the code is checked first)."""
    invitations.open_secret(PARENT_CODE, code)
    user = classroom_services.account_create(
        username=username,
        password=password,
        role=User.Role.PARENT,
        first_name=name_check(first_name)[:150],
        email=(email or "").strip()[:254],
    )
    invitations.redeem(PARENT_CODE, code, parent=user)
    return user


@transaction.atomic
def parent_link_revoke(*, link: ParentLink, by: User) -> None:
    """The parent no longer sees this child, from their next request on."""
    ParentLink.objects.filter(pk=link.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())


# --- privacy ---------------------------------------------------------------------------------


def student_erase(*, student: Student, by: User) -> None:
    """Erase a child everywhere; their reports, advice and parent codes go with them (CASCADE)."""
    if not permissions.is_admin_of_school(by, student.classroom.school_id):
        raise ValidationError(_("Only the school's admin can erase a student."), code="not_admin")
    classroom_services.student_erase(student=student, by=by)
