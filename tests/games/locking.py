"""What another connection can do while a move holds a game's row lock (PostgreSQL)."""

from __future__ import annotations

import threading

from django.db import connection, transaction

from games.models import Game
from games.services.locked import locked_table


def tried_while_locked(game_id: int, **attempts) -> dict[str, str]:
    """Each attempt (a callable, by name) run on a second connection, with a 200 ms lock
    timeout, while this one holds the game's row lock as a move does (its locked read): what
    came of it, by name: "done", "none" (Game.DoesNotExist) or the error's class name (a lock
    waited for: OperationalError)."""
    held, came = threading.Event(), {}

    def second() -> None:
        held.wait(5)
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL lock_timeout = '200ms'")
                for name, attempt in attempts.items():
                    try:
                        with transaction.atomic():
                            attempt()
                        came[name] = "done"
                    except Game.DoesNotExist:
                        came[name] = "none"
                    except Exception as exc:  # noqa: BLE001 - the lock timeout, named
                        came[name] = type(exc).__name__
        finally:
            connection.close()

    thread = threading.Thread(target=second)
    thread.start()
    with transaction.atomic():
        locked_table(game_id)
        held.set()
        thread.join(5)
    return came
