"""Celery jobs for progress reports: weekly builds (Monday morning, school time) and on demand.

Tasks are thin: they take ids, load rows and call services.report_build, which rebuilds a
(student, week) report in place, so a retry or a redelivered message never doubles a report.
"""

from __future__ import annotations

import logging
import zlib
from contextlib import contextmanager
from datetime import date, datetime, timedelta

from celery import Task, shared_task
from django.conf import settings
from django.core.cache import cache
from django.db import InterfaceError, OperationalError, connection
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from classrooms.models import School, Student
from kavet_site.queue import PUBLISH_ERRORS

from . import scheduling, services
from .models import ReportJob, WeeklyReport
from .progress import week_bounds
from .selectors import school_tz

log = logging.getLogger(__name__)

# Transient database trouble (a restart, a dropped connection) is worth retrying; a bug is not.
RETRY_ON = (OperationalError, InterfaceError)
RETRY = {
    "autoretry_for": RETRY_ON,
    "retry_backoff": 2,
    "retry_backoff_max": 120,
    "retry_jitter": True,
    "max_retries": 5,
}
# Monday from 06:00 to 11:59 in the school's time zone: the hourly beat entry gets six chances.
MORNING_FROM, MORNING_UNTIL = 6, 12
# A build request still waiting this long has probably lost its message (Redis was down when
# it was queued, or forgot it): the sweep queues it again.
QUEUED_GRACE = timedelta(seconds=60)
# A build whose worker has not stamped its heartbeat for this long has lost its worker (killed,
# its host gone): the sweep (every 15 s, settings) takes it over, so a teacher's "Building…"
# bar moves on within HEARTBEAT_STALE + 15 s = 45 s. The worker stamps after every report, and
# one report takes well under a second (a class of 30 in a few seconds, bench_reports.py):
# 30 s is a wide margin. Waiting for the broker's visibility timeout instead (300 s, which must
# also cover countdowns and retry back-offs) left the bar stuck for five minutes.
HEARTBEAT_STALE = timedelta(seconds=30)
SWEEP_WINDOW = timedelta(days=2)


@contextmanager
def _building(job_id: int | None):
    """True when this task may build the job now: it is not done, and no other worker holds it.

    A redelivered message, a sweep's re-queue and the original may meet: on PostgreSQL a
    session advisory lock on the job lets one of them build and the others step aside (a
    killed worker's connection closes, which releases its lock for the redelivery). Without
    PostgreSQL (one process, tasks in-process) only the "done" check applies.
    """
    if not job_id:
        yield True
        return
    if ReportJob.objects.filter(pk=job_id, status=ReportJob.Status.DONE).exists():
        yield False
        return
    if connection.vendor != "postgresql":
        yield True
        return
    key = zlib.crc32(f"kavet:reportjob:{job_id}".encode())
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        got = cursor.fetchone()[0]
    try:
        if got and ReportJob.objects.filter(pk=job_id, status=ReportJob.Status.DONE).exists():
            yield False  # finished between the first look and the lock
        else:
            yield got
    finally:
        if got:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [key])


class ReportTask(Task):
    """Marks the build request as failed once the retries are spent, so the bar stops."""

    def on_failure(self, exc, task_id, args, kwargs, einfo) -> None:
        job_id = (kwargs or {}).get("job_id")
        if job_id:
            services.report_job_mark(
                job_id=job_id, status=ReportJob.Status.FAILED, error=type(exc).__name__
            )


@shared_task(base=ReportTask, bind=True, name="reports.tasks.build_student_report", **RETRY)
def build_student_report(
    self, student_id: int, week_start: str, job_id: int | None = None
) -> int | None:
    """Build one student's report for the week starting on `week_start` (ISO date)."""
    with _building(job_id) as mine:
        if not mine:
            log.info("report job %s: already built or being built elsewhere", job_id)
            return None
        if job_id:
            services.report_job_mark(job_id=job_id, status=ReportJob.Status.RUNNING)
        student = Student.objects.select_related("classroom__school").filter(pk=student_id).first()
        report = None
        if student is not None:  # erased since it was asked for: nothing to build
            report = services.report_build(
                student=student, week_start=date.fromisoformat(week_start)
            )
        if job_id:
            services.report_job_mark(job_id=job_id, status=ReportJob.Status.DONE)
    return report.pk if report else None


@shared_task(base=ReportTask, bind=True, name="reports.tasks.build_class_reports", **RETRY)
def build_class_reports(
    self,
    classroom_id: int,
    week_start: str,
    job_id: int | None = None,
    skip_built_since: str | None = None,
) -> int:
    """Build the week's report of every student in a class, one after the other.

    skip_built_since: students whose report for that week was built at or after this moment
    are skipped, so a retry resumes where the failure happened.
    """
    with _building(job_id) as mine:
        if not mine:
            log.info("report job %s: already built or being built elsewhere", job_id)
            return 0
        if job_id:
            services.report_job_mark(job_id=job_id, status=ReportJob.Status.RUNNING)
        week = date.fromisoformat(week_start)
        students = Student.objects.filter(classroom_id=classroom_id).select_related(
            "classroom__school"
        )
        if skip_built_since:
            built = WeeklyReport.objects.filter(
                student=OuterRef("pk"),
                week_start=week,
                built_at__gte=datetime.fromisoformat(skip_built_since),
            )
            students = students.exclude(Exists(built))
        count = 0
        for student in students.order_by("pk"):
            services.report_build(student=student, week_start=week)
            count += 1
            if job_id:
                services.report_job_heartbeat(job_id=job_id)
        if job_id:
            services.report_job_mark(job_id=job_id, status=ReportJob.Status.DONE)
    return count


@shared_task(name="reports.tasks.sweep_report_jobs", ignore_result=True)
def sweep_report_jobs(now: str | None = None) -> int:
    """Every 15 s (beat): build requests whose message or worker is gone are queued again.

    Found from the database only:
    - a request still "waiting" a minute after it was made (its message was never published —
      Redis was down — or Redis lost it), re-queued at most once per visibility timeout;
    - one "building" whose heartbeat is HEARTBEAT_STALE old (its worker died mid-build): taken
      over by one conditional UPDATE (services.report_job_take_over), so of two sweeps only one
      queues it. The new build skips the reports built since the request (skip_built_since)
      and the build's guard (_building: the job's advisory lock, which a dead worker's closed
      connection has let go) keeps a late duplicate — the dead worker's message handed out
      again after the visibility timeout, a worker that was only slow — from building twice.
    Returns the requests queued.
    """
    moment = datetime.fromisoformat(now) if now else timezone.now()
    visibility = timedelta(seconds=getattr(settings, "CELERY_VISIBILITY_TIMEOUT", 300))
    recent = ReportJob.objects.filter(created_at__gte=moment - SWEEP_WINDOW)
    queued = 0
    for job in recent.filter(status=ReportJob.Status.QUEUED, created_at__lte=moment - QUEUED_GRACE):
        if not cache.add(f"reports:sweep:{job.pk}", 1, timeout=int(visibility.total_seconds())):
            continue
        if scheduling.report_job_queue(job):
            queued += 1
        else:
            cache.delete(f"reports:sweep:{job.pk}")
    stale = moment - HEARTBEAT_STALE
    quiet = Q(heartbeat_at__lt=stale) | Q(heartbeat_at__isnull=True, created_at__lt=stale)
    for job in recent.filter(status=ReportJob.Status.RUNNING).filter(quiet):
        if not services.report_job_take_over(job_id=job.pk, stale_before=stale, now=moment):
            continue  # another sweep took it, or its worker stamped meanwhile
        log.warning("report job %s: its worker went quiet; the build is taken over", job.pk)
        # Not queued (the broker is down): its heartbeat is fresh again, so the sweep after
        # HEARTBEAT_STALE tries again.
        queued += bool(scheduling.report_job_queue(job))
    if queued:
        log.warning("report sweep: %d build requests queued again", queued)
    return queued


@shared_task(name="reports.tasks.schedule_weekly_reports", **RETRY)
def schedule_weekly_reports(now: str | None = None) -> int:
    """Hourly: where it is Monday morning, queue last week's reports of every class.

    Classes whose reports for last week are all complete (built after the week ended) are
    left alone, and a class is queued at most once an hour, so the six morning runs only
    catch up what an outage or a slow queue left undone. Returns the classes queued.
    """
    moment = datetime.fromisoformat(now) if now else timezone.now()
    queued = 0
    for school in School.objects.all():
        tz = school_tz(school)
        local = moment.astimezone(tz)
        if local.weekday() != 0 or not (MORNING_FROM <= local.hour < MORNING_UNTIL):
            continue
        week_start = local.date() - timedelta(days=7)
        _start, end = week_bounds(week_start, tz)
        complete = WeeklyReport.objects.filter(
            student=OuterRef("pk"), week_start=week_start, built_at__gte=end
        )
        missing = Student.objects.filter(classroom=OuterRef("pk")).exclude(Exists(complete))
        classrooms = school.classrooms.filter(archived_at__isnull=True).filter(Exists(missing))
        for classroom_id in classrooms.values_list("pk", flat=True):
            if not cache.add(f"reports:weekly:{classroom_id}:{week_start}", 1, timeout=55 * 60):
                continue
            try:
                build_class_reports.delay(
                    classroom_id, week_start.isoformat(), skip_built_since=end.isoformat()
                )
            except PUBLISH_ERRORS as exc:
                # The broker is down: forget the "queued" mark, the next hourly run tries again.
                log.warning(
                    "weekly reports of class %s not queued (%s)", classroom_id, type(exc).__name__
                )
                cache.delete(f"reports:weekly:{classroom_id}:{week_start}")
                continue
            queued += 1
    if queued:
        log.info("weekly reports queued for %d classes", queued)
    return queued
