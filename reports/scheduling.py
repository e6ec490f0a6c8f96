"""How the reports ask for background work: the one module services call to schedule a build.

The Celery tasks (reports.tasks) call services; a service never imports them (tasks ->
services -> scheduling, one way). A build is queued by its task's name; the reports app
registers its tasks in every process (reports.apps), so where tasks run in-process the build
runs eagerly, as a task imported by hand would.
"""

from __future__ import annotations

from celery import signature
from django.db import transaction

from kavet_site.queue import enqueue

from .models import ReportJob


def report_job_build(job: ReportJob):
    """The build a teacher's request asks for (reports.tasks.build_student_report or
    build_class_reports), as a signature."""
    if job.student_id:
        return signature(
            "reports.tasks.build_student_report",
            args=(job.student_id, job.week_start.isoformat()),
            kwargs={"job_id": job.pk},
        )
    return signature(
        "reports.tasks.build_class_reports",
        args=(job.classroom_id, job.week_start.isoformat()),
        kwargs={"job_id": job.pk, "skip_built_since": job.created_at.isoformat()},
    )


def report_job_queue(job: ReportJob) -> bool:
    """Publish the build of a request now; False if the broker cannot take it — logged, and
    reports.tasks.sweep_report_jobs queues it again from the job's row."""
    return enqueue(report_job_build(job))


def report_job_queue_on_commit(job: ReportJob) -> None:
    """Publish the build once the job's row is committed, so that the worker finds it. A broker
    that is down fails neither the request nor its commit: the sweep picks the job up."""
    transaction.on_commit(lambda: report_job_queue(job))
