"""Celery tasks of the games: thin and idempotent, they call games.services under its row lock."""
from __future__ import annotations

import logging

from celery import shared_task

from games import services

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
