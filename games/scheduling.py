"""How the games ask for background work: the one module services call to schedule it.

Services apply moves; the Celery tasks (games.tasks) call services. So that the arrow runs one
way only (tasks -> services -> scheduling, never services -> tasks), a service that needs a
job later asks here, and the job is named by its task's name, not imported.

How a due move gets applied:

- With workers (production): `schedule_bot` queues games.tasks.game_tick_task after commit for
  the computer player's pause, and the beat sweep (games.tasks.sweep_due_games) applies expired
  time limits and any job that could not be queued; a page showing the table applies a move
  that is still not played PAGE_DUE_GRACE after its time (services.due_moves_apply) — with
  Redis down there is no task and no sweep, and the tablets' polls keep the game going.
- In the embedded default (tasks run in-process, no worker, no beat): nothing is queued —
  a countdown task run eagerly would play at once — and the pages apply what is due as soon
  as it is due (page_due_grace() is 0). The table names that moment (the board's data-due,
  Game.next_due_at), and the tablet asks for the table then: a computer's answer is played
  on time, not at the tablet's next slow poll (static/js/table.js).
"""

from __future__ import annotations

from celery import current_app, signature
from django.conf import settings
from django.db import transaction

from kavet_site.queue import enqueue

# Seconds past its due time before a page applies a due move itself where workers run: the
# computer player's task fires 0.05 s after its time and the sweep every few seconds, so a page
# normally only shows what a worker played; a move still not played a second late means the
# workers cannot get to it (Redis down, no worker), and the page's request plays it.
PAGE_DUE_GRACE = 1.0


def runs_in_process() -> bool:
    """True when tasks run eagerly in the request (the embedded default): no worker, no beat."""
    return bool(
        current_app.conf.task_always_eager or getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False)
    )


def page_due_grace() -> float:
    """How late a due move must be before a page applies it (services.due_moves_apply)."""
    return 0.0 if runs_in_process() else PAGE_DUE_GRACE


def game_tick(game_id: int):
    """The computer player's or time limit's job for `game_id` (games.tasks.game_tick_task),
    as a signature: queued by name, so this module needs nothing of games.tasks."""
    return signature("games.tasks.game_tick_task", args=(game_id,))


def schedule_bot(*, game_id: int, pause: float | None) -> None:
    """After commit, a task for the computer player's move due in `pause` seconds.

    The move is already committed and its due time stamped (game.bot_due_at): when the broker
    cannot take the task, that is logged and the beat sweep (sweep_due_games) plays the move
    from the database instead — the request that made the move still answers normally.
    In-process, nothing is queued: the pages showing the table apply it (page_due_grace).
    """
    if pause is None or runs_in_process():
        return
    transaction.on_commit(lambda: enqueue(game_tick(game_id), countdown=pause + 0.05))
