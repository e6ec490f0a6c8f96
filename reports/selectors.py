"""Reads for the report pages; every query starts from the students the user may see."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from classrooms import invitations, permissions
from classrooms.models import Classroom, ParentLink, Student, User
from classrooms.selectors import school_tz  # noqa: F401  (the reports read it here)
from games.models import Play

from .models import LevelRecommendation, ParentInvite, ReportJob, WeeklyReport
from .progress import (
    BAND_BY_KEY,
    MISTAKE_LABELS,
    SKILL_LABELS,
    SKILL_SHORT,
    SKILLS,
    week_bounds,
    week_start_of,
)

# --- reports ---------------------------------------------------------------------------------


def report_of_week(student: Student, week: date | None = None) -> WeeklyReport | None:
    """The report of that week, or the latest one."""
    reports = WeeklyReport.objects.filter(student=student)
    if week:
        return reports.filter(week_start=week).first()
    return reports.order_by("-week_start").first()


def report_weeks(student: Student, *, limit: int = 52) -> list[date]:
    """The weeks a student has a report for, newest first."""
    return list(
        WeeklyReport.objects.filter(student=student)
        .order_by("-week_start")
        .values_list("week_start", flat=True)[:limit]
    )


def open_recommendation(student: Student) -> LevelRecommendation | None:
    return LevelRecommendation.objects.filter(
        student=student, status=LevelRecommendation.Status.OPEN
    ).first()


def class_proposals(classroom: Classroom) -> QuerySet[LevelRecommendation]:
    return (
        LevelRecommendation.objects.filter(
            student__classroom=classroom, status=LevelRecommendation.Status.OPEN
        )
        .select_related("student")
        .order_by("student__name")
    )


def parent_access_of(student: Student) -> dict[str, Any]:
    """The parents linked to a child and the link codes not used yet, for the teacher."""
    return {
        "links": list(
            ParentLink.objects.filter(student=student, revoked_at__isnull=True)
            .select_related("parent")
            .order_by("created_at")
        ),
        "invites": list(
            invitations.pending(ParentInvite.objects.filter(student=student)).order_by(
                "-created_at"
            )
        ),
    }


def parent_children(parent: User) -> list[dict[str, Any]]:
    """Each of a parent's children with their latest report (no one else's data)."""
    newest = WeeklyReport.objects.filter(student=OuterRef("pk")).order_by("-week_start")
    children = list(
        permissions.children(parent)
        .select_related("classroom")
        .annotate(latest_id=Subquery(newest.values("pk")[:1]))
        .order_by("name")
    )
    by_id = WeeklyReport.objects.in_bulk([c.latest_id for c in children if c.latest_id])
    latest = {c.pk: by_id.get(c.latest_id) for c in children}
    return [{"student": c, "report": latest.get(c.pk)} for c in children]


# --- the parent's page: plain words --------------------------------------------------------


@dataclass
class SkillLine:
    key: str
    label: str
    band: str | None
    band_label: str
    explanation: str
    colour: str
    letter: str
    n: int
    right: int
    accuracy: float | None
    median_s: float | None
    week_n: int
    week_right: int


def skill_lines(data: dict[str, Any]) -> list[SkillLine]:
    """One line per skill the child has tried this year, with its band in words."""
    lines = []
    for key in SKILLS:
        figures = data.get("bands", {}).get(key)
        if not figures:
            continue
        band = BAND_BY_KEY.get(figures.get("band") or "")
        week = data.get("week", {}).get("skills", {}).get(key, {})
        lines.append(
            SkillLine(
                key=key,
                label=str(SKILL_LABELS[key]),
                band=band.key if band else None,
                band_label=str(band.label) if band else _("Not enough play yet"),
                explanation=str(band.explanation)
                if band
                else _("Too few tries so far to say; this will fill in as your child plays."),
                colour=band.colour if band else "#e8e8e8",
                letter=band.letter if band else "–",
                n=figures["n"],
                right=figures["right"],
                accuracy=figures["accuracy"],
                median_s=round(figures["median_ms"] / 1000, 1)
                if figures.get("median_ms")
                else None,
                week_n=week.get("n", 0),
                week_right=week.get("right", 0),
            )
        )
    return lines


def practice_at_home(data: dict[str, Any], *, limit: int = 3) -> list[dict[str, str]]:
    """What to practise: the skills still being learnt, most tried first, with examples."""
    from .progress import SKILL_AT_HOME

    order = {"practising": 0, "getting_there": 1}
    candidates = [
        (order[f["band"]], -f["n"], key)
        for key, f in data.get("bands", {}).items()
        if f.get("band") in order
    ]
    tips = [
        {"skill": str(SKILL_LABELS[key]), "tip": str(SKILL_AT_HOME[key])}
        for _o, _n, key in sorted(candidates)[:limit]
    ]
    if not tips and data.get("bands"):
        tips.append(
            {
                "skill": _("Keep playing"),
                "tip": _(
                    "Everything tried so far is going well. A game of cards at home "
                    "keeps it that way; let your child explain their operations."
                ),
            }
        )
    return tips


# --- the teachers' class report -------------------------------------------------------------


@dataclass
class GridCell:
    band: str | None
    colour: str
    letter: str
    text: str  # exactly what the screen and the CSV show
    skill: str = ""  # the skill's key: the cell opens its last tries (reports:student_moves)


def _cell(figures: dict[str, Any] | None, skill: str = "") -> GridCell:
    if not figures or not figures.get("n"):
        return GridCell(None, "#ffffff", "", "", skill)
    band = BAND_BY_KEY.get(figures.get("band") or "")
    pct = f"{round(100 * figures['accuracy'])} %" if figures.get("accuracy") is not None else ""
    return GridCell(
        band.key if band else None,
        band.colour if band else "#eeeeee",
        band.letter if band else "–",
        f"{band.letter if band else '–'} {pct}".strip(),
        skill,
    )


def class_report(
    *, classroom: Classroom, week_start: date | None = None, now: datetime | None = None
) -> dict[str, Any]:
    """The class grid (students × skills), who needs help, and the most frequent mistakes.

    Of `week_start`, else of the current week once a child has played in it, else of the latest
    week with reports. The stored reports, each as its plays are now (services.reports_fresh:
    three grouped queries, and a build only for a report whose plays changed since).
    """
    from . import services
    from .window import counted

    now = now or timezone.now()
    students = list(
        Student.objects.filter(classroom=classroom)
        .select_related("classroom__school")
        .order_by("name")
    )
    if week_start is None:
        tz = school_tz(classroom.school)
        this_week = week_start_of(now, tz)
        start, _end = week_bounds(this_week, tz)
        if counted(Play.objects.filter(student__classroom=classroom, at__gte=start)).exists():
            week_start = this_week
    if week_start is None:
        week_start = (
            WeeklyReport.objects.filter(student__classroom=classroom)
            .order_by("-week_start")
            .values_list("week_start", flat=True)
            .first()
        )
    reports = (
        services.reports_fresh(students=students, week_start=week_start, now=now)
        if week_start
        else {}
    )
    weeks = list(
        WeeklyReport.objects.filter(student__classroom=classroom)
        .values_list("week_start", flat=True)
        .distinct()
        .order_by("-week_start")
    )
    used = [k for k in SKILLS if any(k in r.data.get("bands", {}) for r in reports.values())]
    rows, needs_help = [], []
    mistakes_skill: Counter = Counter()
    mistakes_code: Counter = Counter()
    for student in students:
        report = reports.get(student.pk)
        data = report.data if report else {}
        cells = [_cell(data.get("bands", {}).get(k), k) for k in used]
        week = data.get("week", {})
        rows.append(
            {
                "student": student,
                "report": report,
                "cells": cells,
                "week_ops": week.get("announcements", 0),
                "week_accuracy": week.get("accuracy"),
            }
        )
        mistakes_skill.update(week.get("mistakes_by_skill", {}))
        mistakes_code.update(week.get("mistakes_by_code", {}))
        reasons = _help_reasons(data) if report else [_("No report for this week yet.")]
        if reasons:
            needs_help.append({"student": student, "reasons": reasons})
    return {
        "classroom": classroom,
        "week_start": week_start,
        "weeks": weeks,
        "skills": [
            {"key": k, "label": str(SKILL_LABELS[k]), "short": str(SKILL_SHORT[k])} for k in used
        ],
        "rows": rows,
        "needs_help": needs_help,
        # (label, count, figure): each count opens its moves (reports:class_moves).
        "mistakes_by_skill": [
            (str(SKILL_LABELS.get(k, k)), n, f"week:mistake_skill.{k}")
            for k, n in mistakes_skill.most_common(5)
        ],
        "mistakes_by_code": [
            (str(MISTAKE_LABELS.get(k, k)), n, f"week:mistake_code.{k}")
            for k, n in mistakes_code.most_common(5)
        ],
        "bands": list(BAND_BY_KEY.values()),
    }


def _help_reasons(data: dict[str, Any]) -> list[str]:
    reasons = []
    practising = [
        str(SKILL_SHORT[k])
        for k, f in data.get("bands", {}).items()
        if f.get("band") == "practising"
    ]
    if practising:
        reasons.append(_("Practising: %(skills)s.") % {"skills": ", ".join(practising)})
    week = data.get("week", {})
    if not week.get("announcements") and not week.get("games"):
        reasons.append(_("Did not play this week."))
    elif (
        week.get("accuracy") is not None and week["announcements"] >= 10 and week["accuracy"] < 0.5
    ):
        reasons.append(_("Fewer than half of this week's operations were right."))
    if week.get("overlooked", 0) >= 5:
        reasons.append(
            ngettext(
                "Overlooked %(n)d operation this week.",
                "Overlooked %(n)d operations this week.",
                week["overlooked"],
            )
            % {"n": week["overlooked"]}
        )
    return reasons


def class_report_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The grid as text, header and rows: the CSV export is exactly the screen."""
    header = (
        [_("Student")]
        + [s["short"] for s in report["skills"]]
        + [_("Operations this week"), _("Right this week")]
    )
    rows = []
    for row in report["rows"]:
        accuracy = row["week_accuracy"]
        rows.append(
            [row["student"].name]
            + [c.text for c in row["cells"]]
            + [str(row["week_ops"]), f"{round(100 * accuracy)} %" if accuracy is not None else ""]
        )
    return header, rows


# --- build requests --------------------------------------------------------------------------


def job_students(job: ReportJob) -> QuerySet[Student]:
    if job.student_id:
        return Student.objects.filter(pk=job.student_id)
    return Student.objects.filter(classroom_id=job.classroom_id)


def job_progress(job: ReportJob) -> dict[str, Any]:
    """How far a build request is: counted from the reports built since it was made, so a
    retried or redelivered task can never make the bar go past the end."""
    done = WeeklyReport.objects.filter(
        student__in=job_students(job), week_start=job.week_start, built_at__gte=job.created_at
    ).count()
    total = max(job.total, 1)
    done = min(done, job.total)
    finished = job.status in (ReportJob.Status.DONE, ReportJob.Status.FAILED) or done >= job.total
    return {
        "job": job,
        "done": done,
        "total": job.total,
        "percent": int(100 * done / total),
        "finished": finished,
        "failed": job.status == ReportJob.Status.FAILED,
    }


# --- privacy ---------------------------------------------------------------------------------


def student_export(*, student: Student) -> dict[str, Any]:
    """Everything stored about one child, as JSON-ready data (a school admin's export)."""
    from classrooms.models import LevelChange
    from games.models import Play, Seat

    def dt(value):
        return value.isoformat() if value else None

    # Every column of a play, in the model's order, but the child (whom the export is about)
    # and the move it came from (a row of the game's own record).
    play_columns = [
        f.attname for f in Play._meta.concrete_fields if f.name not in ("student", "move")
    ]
    return {
        "exported_at": timezone.now().isoformat(),
        "student": {
            "id": student.pk,
            "name": student.name,
            "classroom": student.classroom.name,
            "school_year": student.classroom.school_year,
            "school": student.classroom.school.name,
            "number_range": student.number_range,
            "tier": student.tier,
            "picture_code": student.picture_code,
            "parent_email": student.parent_email,  # from the school's roster (classrooms.roster)
            "created_at": dt(student.created_at),
            "username": student.user.username,
        },
        "levels": [
            {"at": dt(c.changed_at), "number_range": c.number_range, "tier": c.tier}
            for c in LevelChange.objects.filter(student=student).order_by("changed_at", "pk")
        ],
        "plays": [
            {**p, "at": dt(p["at"])}
            for p in Play.objects.filter(student=student).order_by("at", "pk").values(*play_columns)
        ],
        "games": [
            {
                "game": s.game_id,
                "kind": s.game.kind,
                "position": s.position,
                "name": s.name,
                "score": s.score,
                "place": s.place,
                "started_at": dt(s.game.started_at),
                "finished_at": dt(s.game.finished_at),
            }
            for s in Seat.objects.filter(student=student).select_related("game").order_by("game_id")
        ],
        "weekly_reports": [
            {"week_start": r.week_start.isoformat(), "built_at": dt(r.built_at), "data": r.data}
            for r in WeeklyReport.objects.filter(student=student).order_by("week_start")
        ],
        "level_recommendations": [
            {
                "at": dt(r.created_at),
                "number_range": r.number_range,
                "tier": r.tier,
                "status": r.status,
                "evidence": r.evidence,
                "decided_at": dt(r.decided_at),
            }
            for r in LevelRecommendation.objects.filter(student=student).order_by("created_at")
        ],
        "parent_links": [
            {
                "parent": link.parent.username,
                "created_at": dt(link.created_at),
                "revoked_at": dt(link.revoked_at),
            }
            for link in ParentLink.objects.filter(student=student).select_related("parent")
        ],
        "parent_invites": [
            {
                "created_at": dt(i.created_at),
                "expires_at": dt(i.expires_at),
                "used_at": dt(i.used_at),
                "revoked_at": dt(i.revoked_at),
            }
            for i in ParentInvite.objects.filter(student=student)
        ],
    }
