"""The reports' part of the retention rule (classrooms.retention): old weeks' rows erased.

Level recommendations are erased with them once made before the cut-off, whatever became of
them: their evidence (how many tries, how many right, how fast) is counted from the plays, so
it is play data too. What a teacher decided is kept where it belongs, in the level history.

A week belongs to the school year of its days; a week is erased only once it lies wholly
before the cut-off day (its Monday at least seven days earlier), so a week that straddles
1 August is kept with the later year. These rows are derived from the plays: nothing locks
them but the row itself, and nobody rebuilds a week that old.
"""

from __future__ import annotations

from datetime import date, timedelta

from classrooms.models import School
from classrooms.retention import school_cutoff

from .mail.models import WeeklyEmail
from .models import LevelRecommendation, ReportJob, WeeklyReport, WeekTally

WEEK = timedelta(days=7)


def _last_erased_monday(before: date) -> date:
    """The latest week_start whose whole week (Monday to Sunday) ends before `before`."""
    return before - WEEK


def reports_erase_before(*, school: School, before: date, dry_run: bool = False) -> dict[str, int]:
    """Erase the school's weekly reports, week tallies and build requests of weeks before
    `before`, and its level recommendations made before `before` (in the school's time zone)."""
    last = _last_erased_monday(before)
    rows = [
        WeeklyReport.objects.filter(student__classroom__school=school, week_start__lte=last),
        WeekTally.objects.filter(student__classroom__school=school, week_start__lte=last),
        ReportJob.objects.filter(school=school, week_start__lte=last),
        LevelRecommendation.objects.filter(
            student__classroom__school=school, created_at__lt=school_cutoff(school, before)
        ),
    ]
    return {queryset.model._meta.label: _erase(queryset, dry_run) for queryset in rows}


def emails_erase_before(*, before: date, dry_run: bool = False) -> dict[str, int]:
    """Erase the weekly-email log of weeks before `before` (their once-a-week guard is moot:
    no job sends the email of a week that old)."""
    emails = WeeklyEmail.objects.filter(week_start__lte=_last_erased_monday(before))
    return {WeeklyEmail._meta.label: _erase(emails, dry_run)}


def _erase(queryset, dry_run: bool) -> int:
    if dry_run:
        return queryset.count()
    _, deleted = queryset.delete()
    return deleted.get(queryset.model._meta.label, 0)
