"""Reads for the weekly email: which parents are due, and what their email says."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from django.db.models import Q

from classrooms import permissions
from classrooms.models import ParentLink, School, Student, User
from reports import selectors as report_selectors
from reports.models import WeeklyReport
from reports.progress import week_bounds, week_start_of
from reports.tasks import MORNING_UNTIL

from .models import EmailPreference, SchoolEmailSchedule, WeeklyEmail


@dataclass
class SchoolWeek:
    """The report week a school's parents are told about now: the last whole week there."""

    week_start: date
    end: datetime  # a report built at or after this moment counts the whole week
    building: bool  # Monday morning there: the weekly build may still be running


def last_week(school: School, now: datetime) -> SchoolWeek:
    tz = report_selectors.school_tz(school)
    week_start = week_start_of(now, tz) - timedelta(days=7)
    _start, end = week_bounds(week_start, tz)
    return SchoolWeek(week_start, end, now < end + timedelta(hours=MORNING_UNTIL))


def scheduled_at(week: SchoolWeek, weekday: int, hour: int) -> datetime:
    """The moment a school's email of `week` goes: its weekday and hour (school time) in the
    week after the report week."""
    day = week.end.date() + timedelta(days=weekday)
    return datetime.combine(day, time(hour), tzinfo=week.end.tzinfo)


def school_schedule(school: School) -> SchoolEmailSchedule:
    """The school's email schedule (unsaved defaults when it never chose one)."""
    return SchoolEmailSchedule.objects.filter(school=school).first() or SchoolEmailSchedule(
        school=school
    )


def weekly_email_wanted(parent: User) -> bool:
    return not EmailPreference.objects.filter(parent=parent, weekly=False).exists()


def parents_due(*, now: datetime) -> list[tuple[int, date]]:
    """(parent id, week) for every parent who should get last week's email and has not yet.

    A parent is due once every linked child's report of last week is built (after the week
    ended), or once the Monday-morning build is over with at least one of them built (a class
    archived or a build that failed must not hold back the others). Parents who switched the
    email off, and weeks already sent (or given up), are left out. A parent with children in
    schools of different time zones is told about the latest of their weeks.
    """
    links = (
        ParentLink.objects.filter(
            revoked_at__isnull=True, parent__is_active=True, parent__role=User.Role.PARENT
        )
        .exclude(parent__report_email_preference__weekly=False)
        .values_list("parent_id", "student_id", "student__classroom__school_id")
    )
    kids: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for parent_id, student_id, school_id in links:
        kids[parent_id].append((student_id, school_id))
    if not kids:
        return []
    school_ids = {school_id for pairs in kids.values() for _s, school_id in pairs}
    weeks = {
        school.pk: last_week(school, now) for school in School.objects.filter(pk__in=school_ids)
    }
    # Each school's day and hour (SchoolEmailSchedule): its parents wait until then.
    waiting = {
        school_id
        for school_id, weekday, hour in SchoolEmailSchedule.objects.filter(
            school_id__in=school_ids
        ).values_list("school_id", "weekday", "hour")
        if now < scheduled_at(weeks[school_id], weekday, hour)
    }
    built = set()
    for school_id, week in weeks.items():
        built.update(
            WeeklyReport.objects.filter(
                student__classroom__school_id=school_id,
                week_start=week.week_start,
                built_at__gte=week.end,
            ).values_list("student_id", flat=True)
        )
    done = set(
        WeeklyEmail.objects.filter(
            parent_id__in=kids,
            status__in=[WeeklyEmail.Status.SENT, WeeklyEmail.Status.FAILED],
            week_start__in={w.week_start for w in weeks.values()},
        ).values_list("parent_id", "week_start")
    )
    due = []
    for parent_id, pairs in sorted(kids.items()):
        week_start = max(weeks[school_id].week_start for _s, school_id in pairs)
        ours = [
            (student_id, weeks[school_id])
            for student_id, school_id in pairs
            if weeks[school_id].week_start == week_start
        ]
        if (parent_id, week_start) in done or not any(s in built for s, _w in ours):
            continue
        if any(school_id in waiting for _s, school_id in pairs):
            continue
        if any(s not in built and w.building for s, w in ours):
            continue
        due.append((parent_id, week_start))
    return due


@dataclass
class ChildWeek:
    """One child's part of the email: the figures the report page shows first, in words."""

    student: Student
    report: WeeklyReport
    week: dict[str, Any]
    lines: list[report_selectors.SkillLine]
    tips: list[dict[str, str]]
    path: str  # the report page of that week, site-relative


def email_children(*, parent: User, week_start: date, within: Any = None) -> list[ChildWeek]:
    """The parent's own children (active links only) whose report of that week is complete;
    `within`, a queryset of students, narrows them (a teacher's preview: their own classes)."""
    from django.urls import reverse

    students = permissions.children(parent).select_related("classroom__school").order_by("name")
    if within is not None:
        students = students.filter(pk__in=within.values("pk"))
    reports = {
        r.student_id: r
        for r in WeeklyReport.objects.filter(Q(student__in=students), week_start=week_start)
    }
    out = []
    for student in students:
        report = reports.get(student.pk)
        if report is None:
            continue
        _start, end = week_bounds(week_start, report_selectors.school_tz(student.classroom.school))
        if report.built_at < end:
            continue  # built during the week: its figures are not the whole week's
        out.append(
            ChildWeek(
                student=student,
                report=report,
                week=report.data.get("week", {}),
                lines=report_selectors.skill_lines(report.data),
                tips=report_selectors.practice_at_home(report.data),
                path=f"{reverse('reports:child', args=[student.pk])}?week={week_start.isoformat()}",
            )
        )
    return out
