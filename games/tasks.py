"""Celery tasks of the games: thin and idempotent, they call games.services under its row lock.

How and when a due move gets applied (a computer player's pause, a time limit, a page that
shows the table) is decided in games.scheduling, which services call; nothing here is imported
by a service (tasks -> services -> scheduling, one way).
"""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from games import services
from kavet_site.queue import enqueue

log = logging.getLogger(__name__)


@shared_task(name="games.tasks.game_tick_task", ignore_result=True)
def game_tick_task(game_id: int) -> int:
    """A computer player's pause is over (R8.2): apply whatever is due now; a repeat does nothing."""
    return services.game_tick(game_id=game_id)


@shared_task(name="games.tasks.sweep_due_games", ignore_result=True)
def sweep_due_games() -> int:
    """Every few seconds (beat): expired time limits and due computer players, so no game hangs

    while every tablet sleeps.

    Everything it needs is in the database (timer_deadline, bot_due_at), never in a message:
    a computer player's task lost with Redis, or never queued because Redis was down, is played
    here within one beat period. A game_tick already applied by its own task applies nothing.
    """
    applied = 0
    for game_id in services.due_game_ids():
        try:
            applied += services.game_tick(game_id=game_id)
        except Exception:  # one broken game must not stop the others' moves
            log.exception("sweep: game %s could not be ticked", game_id)
    return applied


# How far ahead arm_due_games queues the ticks of what falls due (longer than any time limit).
ARM_HORIZON = timedelta(minutes=10)


@shared_task(name="games.tasks.arm_due_games", ignore_result=True)
def arm_due_games() -> int:
    """When a worker (re)connects to the broker (KAVET_SWEEPS_ON_CONNECT): a tick at the moment
    of every time limit and computer player that falls due soon; how many were queued.

    A deadline stamped while Redis was down has no task of its own (schedule_bot could not
    queue one, and a turn's time limit never had one): without this it waits for the next beat
    sweep, up to a period late. A tick that finds nothing due changes nothing (game_tick).
    """
    now = timezone.now()
    queued = 0
    for game_id, due in services.upcoming_game_deadlines(within=ARM_HORIZON, now=now):
        eta = due + timedelta(seconds=0.05)
        queued += enqueue(game_tick_task, (game_id,), eta=eta)
    return queued


@shared_task(name="games.tasks.sweep_tablets", ignore_result=True)
def sweep_tablets() -> int:
    """Daily (beat): tablet ids not seen for games.tablets.TABLET_DAYS are forgotten.

    Reads already treat them as new tablets; this keeps the registry small and drops which
    children a long-gone tablet once signed in.
    """
    from games.tablets import tablets_sweep

    return tablets_sweep()
