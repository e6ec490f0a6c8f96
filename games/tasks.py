"""Celery tasks of the games: thin and idempotent, they call games.services under its row lock.

Also where the games decide how a due move gets applied (services never look at Celery):

- With workers (production): `schedule_bot` queues game_tick_task after commit for the
  computer player's pause, and the beat sweep (sweep_due_games) applies expired time limits
  and any job that could not be queued; a page showing the table applies a move that is
  still not played PAGE_DUE_GRACE after its time (services.due_moves_apply) — with Redis
  down there is no task and no sweep, and the tablets' polls keep the game going.
- In the embedded default (tasks run in-process, no worker, no beat): nothing is queued —
  a countdown task run eagerly would play at once — and the pages apply what is due as soon
  as it is due (page_due_grace() is 0). The table names that moment (the board's data-due,
  Game.next_due_at), and the tablet asks for the table then: a computer's answer is played
  on time, not at the tablet's next slow poll (static/js/table.js).
"""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import current_app, shared_task
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import services
from kavet_site.queue import enqueue

log = logging.getLogger(__name__)


def runs_in_process() -> bool:
    """True when tasks run eagerly in the request (the embedded default): no worker, no beat."""
    return bool(
        current_app.conf.task_always_eager or getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False)
    )


# Seconds past its due time before a page applies a due move itself where workers run: the
# computer player's task fires 0.05 s after its time and the sweep every few seconds, so a page
# normally only shows what a worker played; a move still not played a second late means the
# workers cannot get to it (Redis down, no worker), and the page's request plays it.
PAGE_DUE_GRACE = 1.0


def page_due_grace() -> float:
    """How late a due move must be before a page applies it (services.due_moves_apply)."""
    return 0.0 if runs_in_process() else PAGE_DUE_GRACE


def schedule_bot(*, game_id: int, pause: float | None) -> None:
    """After commit, a task for the computer player's move due in `pause` seconds.

    The move is already committed and its due time stamped (game.bot_due_at): when the broker
    cannot take the task, that is logged and the beat sweep (sweep_due_games) plays the move
    from the database instead — the request that made the move still answers normally.
    In-process, nothing is queued: the pages showing the table apply it (page_due_grace).
    """
    if pause is None or runs_in_process():
        return
    transaction.on_commit(lambda: enqueue(game_tick_task, (game_id,), countdown=pause + 0.05))


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
