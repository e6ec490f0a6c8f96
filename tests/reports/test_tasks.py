"""Celery jobs: idempotent builds, retries, the Monday-morning schedule, a real worker."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from unittest import mock

import pytest
from django.db import OperationalError
from django.utils import timezone

from reports import services, tasks
from reports.models import ReportJob, WeeklyReport
from reports.selectors import job_progress
from tests import factories
from tests.reports.plays import one_move, paris

WEEK = date(2026, 11, 16)


@pytest.fixture(autouse=True)
def _fresh_cache():
    from django.core.cache import cache

    cache.clear()  # the weekly schedule's once-an-hour marks live in the cache


@pytest.fixture
def played(classroom, students):
    # Student i makes 3 + i operations (a real game each), the first one wrong.
    for i, student in enumerate(students):
        for k in range(3 + i):
            one_move(
                classroom=classroom,
                student=student,
                at=paris(2026, 11, 17, 9, k),
                move="2 + 3 = 5" if k else "2 + 5 = 3",
            )
    return students


def test_building_twice_keeps_one_row_with_the_same_data(played):
    anna = played[0]
    first = tasks.build_student_report.delay(anna.pk, WEEK.isoformat()).get()
    data = WeeklyReport.objects.get(pk=first).data
    second = tasks.build_student_report.delay(anna.pk, WEEK.isoformat()).get()
    assert first == second
    assert WeeklyReport.objects.filter(student=anna).count() == 1
    assert WeeklyReport.objects.get(pk=second).data == data
    assert data["week"]["announcements"] == 3


def test_a_transient_database_error_is_retried(played):
    anna = played[0]
    real = services.report_build
    calls = []

    def flaky(**kwargs):
        calls.append(kwargs)
        if len(calls) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return real(**kwargs)

    # apply(throw=False) is how an eager run lets Celery's own retry happen.
    with mock.patch.object(services, "report_build", side_effect=flaky):
        result = tasks.build_student_report.apply((anna.pk, WEEK.isoformat()), throw=False)
    assert result.successful()
    assert len(calls) == 2
    assert WeeklyReport.objects.filter(student=anna, week_start=WEEK).count() == 1


@pytest.fixture
def eager_retries():
    """Eager retries re-apply with the app's default `propagate`: let them run as a worker would."""
    from kavet_site.celery import app

    before = app.conf.task_eager_propagates
    app.conf.task_eager_propagates = False
    yield
    app.conf.task_eager_propagates = before


def test_a_job_that_keeps_failing_is_marked_failed(
    played, teacher, eager_retries, django_capture_on_commit_callbacks
):
    anna = played[0]
    with django_capture_on_commit_callbacks(execute=False):
        job = services.report_job_create(by=teacher, student=anna, week_start=WEEK)
    failing = mock.patch.object(services, "report_build", side_effect=OperationalError("down"))
    with failing as build, mock.patch.object(tasks.build_student_report, "max_retries", 2):
        result = tasks.build_student_report.apply(
            (anna.pk, WEEK.isoformat()), {"job_id": job.pk}, throw=False
        )
    assert result.failed()
    assert build.call_count == 3  # the first try and two retries
    job.refresh_from_db()
    assert job.status == ReportJob.Status.FAILED
    assert job_progress(job)["failed"] and job_progress(job)["finished"]


def test_class_job_builds_every_student_and_reports_progress(
    played, teacher, classroom, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        job = services.report_job_create(by=teacher, classroom=classroom, week_start=WEEK)
    assert job_progress(job) | {"job": None} == {
        "job": None,
        "done": 0,
        "total": 3,
        "percent": 0,
        "finished": False,
        "failed": False,
    }
    for callback in callbacks:  # the worker picks it up once the request has committed
        callback()
    job.refresh_from_db()
    progress = job_progress(job)
    assert (progress["done"], progress["percent"], progress["finished"]) == (3, 100, True)
    assert job.status == ReportJob.Status.DONE
    assert WeeklyReport.objects.filter(week_start=WEEK).count() == 3


def test_a_retried_class_build_resumes_after_the_built_students(played, classroom):
    since = timezone.now()
    services.report_build(student=played[0], week_start=WEEK)
    with mock.patch.object(services, "report_build", wraps=services.report_build) as build:
        built = tasks.build_class_reports.delay(
            classroom.pk, WEEK.isoformat(), skip_built_since=since.isoformat()
        ).get()
    assert built == 2
    assert {c.kwargs["student"].pk for c in build.call_args_list} == {played[1].pk, played[2].pk}


def test_a_report_for_an_erased_student_is_skipped(played):
    assert tasks.build_student_report.delay(999_999, WEEK.isoformat()).get() is None


def test_weekly_schedule_runs_on_monday_morning_in_the_school_time_zone(played, classroom, school):
    tokyo = factories.school(slug="tokyo", name="Tokyo school")
    tokyo.time_zone = "Asia/Tokyo"
    tokyo.save()
    factories.student(classroom=factories.classroom(school=tokyo), name="Yuki")
    # Monday 07:05 in Paris is 15:05 in Tokyo: only the Paris school's classes are queued.
    monday_morning = paris(2026, 11, 23, 7, 5)
    with mock.patch.object(tasks.build_class_reports, "delay") as delay:
        assert tasks.schedule_weekly_reports(now=monday_morning.isoformat()) == 1
    args, kwargs = delay.call_args
    assert args == (classroom.pk, "2026-11-16")
    assert datetime.fromisoformat(kwargs["skip_built_since"]) == paris(2026, 11, 23, 0, 0)
    # Sunday evening and Monday afternoon: nothing.
    with mock.patch.object(tasks.build_class_reports, "delay") as delay:
        assert tasks.schedule_weekly_reports(now=paris(2026, 11, 22, 20, 5).isoformat()) == 0
        assert tasks.schedule_weekly_reports(now=paris(2026, 11, 23, 14, 5).isoformat()) == 0
    delay.assert_not_called()


def test_weekly_schedule_builds_then_leaves_complete_classes_alone(played, classroom):
    from django.core.cache import cache

    monday_morning = paris(2026, 11, 23, 6, 5)
    assert tasks.schedule_weekly_reports(now=monday_morning.isoformat()) == 1  # eager: built now
    assert WeeklyReport.objects.filter(week_start=WEEK).count() == 3
    cache.clear()
    assert tasks.schedule_weekly_reports(now=(monday_morning + timedelta(hours=1)).isoformat()) == 0


@pytest.mark.django_db(transaction=True)
def test_a_real_worker_builds_a_report_from_the_redis_queue(celery_worker):
    school = factories.school()
    teacher = factories.teacher(school=school)
    classroom = factories.classroom(school=school, teachers=[teacher])
    anna = factories.student(classroom=classroom, name="Anna")
    for k in range(4):
        one_move(
            classroom=classroom,
            student=anna,
            at=paris(2026, 11, 17, 9, k),
            move="2 + 3 = 5" if k < 3 else "2 + 5 = 3",
            react_seconds=4,
        )

    result = tasks.build_student_report.delay(anna.pk, WEEK.isoformat())
    report_id = result.get(timeout=30)
    report = WeeklyReport.objects.get(pk=report_id)
    assert report.student_id == anna.pk
    assert report.data["week"]["skills"]["addsub_10"] == {
        "n": 4,
        "right": 3,
        "accuracy": 0.75,
        "median_ms": 4000,
    }


def _building_job(teacher, classroom, django_capture_on_commit_callbacks, *, quiet: float):
    """A class build whose worker died after the first report, its heartbeat `quiet` s old."""
    with django_capture_on_commit_callbacks(execute=False):  # its message went with the worker
        job = services.report_job_create(by=teacher, classroom=classroom, week_start=WEEK)
    services.report_job_mark(job_id=job.pk, status=ReportJob.Status.RUNNING)
    first = services.report_build(student=job_students_sorted(classroom)[0], week_start=WEEK)
    ReportJob.objects.filter(pk=job.pk).update(
        heartbeat_at=timezone.now() - timedelta(seconds=quiet)
    )
    return job, first


def job_students_sorted(classroom):
    from classrooms.models import Student

    return list(Student.objects.filter(classroom=classroom).order_by("pk"))


def test_a_build_whose_worker_went_quiet_is_taken_over_and_each_report_built_once(
    played, teacher, classroom, django_capture_on_commit_callbacks
):
    stale = tasks.HEARTBEAT_STALE.total_seconds()
    job, first = _building_job(
        teacher, classroom, django_capture_on_commit_callbacks, quiet=stale + 1
    )
    with mock.patch.object(services, "report_build", wraps=services.report_build) as build:
        assert tasks.sweep_report_jobs() == 1  # queued again (run in-process here)
    job.refresh_from_db()
    assert job.status == ReportJob.Status.DONE
    assert job_progress(job)["done"] == 3
    # The report built before the worker died is not built again; the two others once each.
    assert {c.kwargs["student"].pk for c in build.call_args_list} == {played[1].pk, played[2].pk}
    assert WeeklyReport.objects.get(pk=first.pk).built_at == first.built_at
    assert tasks.sweep_report_jobs() == 0  # done: nothing more to take over


def test_a_build_with_a_fresh_heartbeat_is_left_to_its_worker(
    played, teacher, classroom, django_capture_on_commit_callbacks
):
    stale = tasks.HEARTBEAT_STALE.total_seconds()
    job, _first = _building_job(
        teacher, classroom, django_capture_on_commit_callbacks, quiet=stale / 3
    )
    assert tasks.sweep_report_jobs() == 0
    assert ReportJob.objects.get(pk=job.pk).status == ReportJob.Status.RUNNING


def test_of_two_sweeps_one_takes_a_quiet_build_over(
    played, teacher, classroom, django_capture_on_commit_callbacks
):
    stale = tasks.HEARTBEAT_STALE.total_seconds()
    job, _first = _building_job(
        teacher, classroom, django_capture_on_commit_callbacks, quiet=stale + 1
    )
    now = timezone.now()
    takes = [
        services.report_job_take_over(
            job_id=job.pk, stale_before=now - tasks.HEARTBEAT_STALE, now=now
        )
        for _ in range(2)
    ]
    assert takes == [True, False]


def test_a_building_worker_stamps_its_heartbeat_after_each_report(played, classroom, teacher):
    job = ReportJob.objects.create(
        school=classroom.school, classroom=classroom, requested_by=teacher, week_start=WEEK, total=3
    )
    with mock.patch.object(
        services, "report_job_heartbeat", wraps=services.report_job_heartbeat
    ) as beat:
        tasks.build_class_reports.delay(classroom.pk, WEEK.isoformat(), job_id=job.pk).get()
    assert beat.call_count == 3
    job.refresh_from_db()
    assert job.status == ReportJob.Status.DONE and job.heartbeat_at is not None
