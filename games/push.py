"""Push: "table N changed, version V" to everyone watching it (tablets and the teacher).

The one function the rest of the code calls is `table_changed`, after a change to a game has
been committed (games.services calls it through `transaction.on_commit`). Watchers subscribe
to a channel name (`table_channel`, `session_channel`) and wait for the next message.

This module holds the in-process fan-out (the embedded default: one process, no Redis);
a broker-backed fan-out for several web processes plugs in behind the same two calls.
"""
from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import dataclass


def table_channel(game_id: int) -> str:
    return f"kavet:table:{game_id}"


def session_channel(session_id: int) -> str:
    return f"kavet:session:{session_id}"


@dataclass(frozen=True)
class Change:
    game_id: int
    version: int
    session_id: int | None = None


class _LocalHub:
    """Latest change per channel, and a condition every waiter sleeps on."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._latest: dict[str, tuple[int, Change]] = {}
        self._counter: dict[str, int] = defaultdict(int)

    def publish(self, channel: str, change: Change) -> None:
        with self._cond:
            self._counter[channel] += 1
            self._latest[channel] = (self._counter[channel], change)
            self._cond.notify_all()

    def cursor(self, channel: str) -> int:
        with self._cond:
            return self._counter[channel]

    def wait(self, channel: str, after: int, timeout: float) -> tuple[int, Change | None]:
        """Block until the channel has a message past `after`, or the timeout."""
        with self._cond:
            self._cond.wait_for(lambda: self._counter[channel] > after, timeout=timeout)
            count = self._counter[channel]
            if count > after:
                return count, self._latest[channel][1]
            return count, None


hub = _LocalHub()


def table_changed(*, game_id: int, version: int, session_id: int | None = None) -> None:
    """Tell the game's tablets (and its class game's live view) that it is at `version` now."""
    change = Change(game_id=game_id, version=version, session_id=session_id)
    hub.publish(table_channel(game_id), change)
    if session_id is not None:
        hub.publish(session_channel(session_id), change)
