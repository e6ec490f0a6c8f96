"""Celery tasks of the games: thin and idempotent, they call games.services under its row lock."""
from __future__ import annotations

from celery import shared_task

from games import services


@shared_task(name="games.tasks.game_tick_task", ignore_result=True)
def game_tick_task(game_id: int) -> int:
    """A computer player's pause is over (R8.2): apply whatever is due now; a repeat does nothing."""
    return services.game_tick(game_id=game_id)


@shared_task(name="games.tasks.sweep_due_games", ignore_result=True)
def sweep_due_games() -> int:
    """Every few seconds (beat): expired time limits and due computer players, so no game hangs

    while every tablet sleeps.
    """
    applied = 0
    for game_id in services.due_game_ids():
        applied += services.game_tick(game_id=game_id)
    return applied
