"""Celery jobs of the demo school: its running class game kept playing."""

from __future__ import annotations

from celery import shared_task


# The name it had before the demo was an app of its own: the beat's schedule and any message
# already queued keep working.
@shared_task(name="demo.tasks.demo_keep_alive_sweep", ignore_result=True)
def demo_keep_alive_sweep() -> int:
    """Where workers run, the beat plays the demo's running class game on (demo.alive);
    the moves applied. Idempotent: what is played is what is due, once."""
    from .alive import demo_play_on, demo_sessions

    applied, seen = 0, set()
    for session in demo_sessions():
        if session.classroom_id in seen:
            continue  # only the newest of a class: the ones before are over for good
        seen.add(session.classroom_id)
        applied += demo_play_on(session=session)
    return applied
