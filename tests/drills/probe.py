"""Imported by drill workers only (celery -I tests.drills.probe): a task that records each run.

`record` appends its token to a file, so a drill counts how many times a worker really ran a
task. With DRILL_SLOW_REPORTS set, every report the worker saves takes that many seconds longer,
so a drill can kill the worker in the middle of a class's build.
"""

from __future__ import annotations

import os
import time

from celery import shared_task


@shared_task(name="drills.record", ignore_result=True)
def record(path: str, token: str) -> None:
    with open(path, "a") as f:
        f.write(f"{token}\n")


if os.environ.get("DRILL_SLOW_REPORTS"):
    from django.db.models.signals import post_save

    def _slow(sender, **kwargs) -> None:
        time.sleep(float(os.environ["DRILL_SLOW_REPORTS"]))

    post_save.connect(_slow, sender="reports.WeeklyReport", weak=False)
