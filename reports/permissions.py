"""Who may read or change the reports' rows (the rules of classrooms.permissions, for this app).

- a weekly report follows its student: staff manage those of the students they teach, and a
  parent reads their own child's;
- week tallies, level proposals and parents' invitations follow the student, for staff;
- a build request is seen only by someone who may still see its student and its class.
"""

from __future__ import annotations

from django.db.models import Q

from classrooms.permissions import (
    get_manageable_or_404,
    get_readable_or_404,
    of_student_managed,
    of_student_readable,
    rules,
    staff_classrooms,
    staff_students,
)

from .models import LevelRecommendation, ParentInvite, ReportJob, WeeklyReport, WeekTally


def _job(user) -> Q:
    """A build request, seen only by someone who may still see its student and its class."""
    return (Q(student__isnull=True) | Q(student__in=staff_students(user).values("pk"))) & (
        Q(classroom__isnull=True) | Q(classroom__in=staff_classrooms(user).values("pk"))
    )


def job_get(user, pk: int) -> ReportJob:
    """A build request, seen only by someone who may still see its student or class."""
    return get_readable_or_404(
        user, ReportJob.objects.select_related("classroom", "student"), what="job", pk=pk
    )


def recommendation_get(user, pk: int) -> LevelRecommendation:
    return get_manageable_or_404(
        user, LevelRecommendation.objects.select_related("student"), what="recommendation", pk=pk
    )


def parent_invite_get(user, pk: int) -> ParentInvite:
    return get_manageable_or_404(
        user, ParentInvite.objects.select_related("student"), what="invitation", pk=pk
    )


rules(WeeklyReport, read=of_student_readable, manage=of_student_managed)
rules(WeekTally, read=of_student_managed)
rules(ReportJob, read=_job)
rules(LevelRecommendation, read=of_student_managed)
rules(ParentInvite, read=of_student_managed)
