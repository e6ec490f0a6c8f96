"""A task goes through Redis to a real Celery worker process and its answer comes back."""

from __future__ import annotations

from kavet_site.celery import ping


def test_task_round_trip_through_a_real_worker(celery_worker):
    result = ping.delay(41)
    answer = result.get(timeout=20)
    assert answer["pong"] == 41
    assert answer["worker"]
