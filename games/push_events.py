"""Every event a page can receive on its push stream, one typed kind each, with its wire format.

This is the one list: a tablet's table (static/js/table.js through static/js/live.js) and the
teacher's live view and class board (static/js/live.js) listen for exactly these server-sent
events, and tests/games/test_push_events.py checks each kind's schema and that the pages listen
for no other name.

    hello   first thing on every stream: the reconnect delay; a page that never gets it is
            behind a buffering proxy and goes back to polling. `watched`: the server keeps
            watch over this stream (a seat's, under ASGI: games.stream's keeper checks its
            table and stamps its presence), so the tablet needs no safety-net poll
    hb      every HEARTBEAT seconds while nothing else is sent: the page knows its stream is
            alive (a stream silent for longer has stalled: the page opens another)
    table   a table (`TableAt`) or a group of tables (`GroupAt`) is at a new version; on a
            seat's stream, for a move made from a tablet, with that seat's new board (HTML)
    bye     this stream was replaced by a newer one of the same tablet or address: poll, do
            not reconnect

What travels between the processes (games.push.Change, games.push.StreamsReplaced) is not an
event of a page: each stream turns it into these, for its own viewer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True)
class Hello:
    """Opens every stream."""

    retry_ms: int
    watched: bool = False
    name: ClassVar[str] = "hello"

    def data(self) -> dict:
        return {"watched": True} if self.watched else {}

    def encode(self) -> bytes:
        return f"retry: {self.retry_ms}\n".encode() + _encode(self.name, self.data())


@dataclass(frozen=True)
class Heartbeat:
    """The stream is alive (sent while nothing else is). An event rather than an SSE comment:
    a page's EventSource never sees comments, and must tell a live stream from a stalled one."""

    name: ClassVar[str] = "hb"

    def data(self) -> dict:
        return {}

    def encode(self) -> bytes:
        return _encode(self.name, self.data())


@dataclass(frozen=True)
class TableAt:
    """A seat's table is at `version` (the number of its moves); `board`: the seat's new board,
    the HTML its fetch would answer (only with a move made from a tablet)."""

    version: int
    board: str | None = None
    name: ClassVar[str] = "table"

    def data(self) -> dict:
        data: dict = {"version": self.version}
        if self.board is not None:
            data["board"] = self.board
        return data

    def encode(self) -> bytes:
        return _encode(self.name, self.data(), event_id=self.version)


@dataclass(frozen=True)
class GroupAt:
    """One table of a group watched together (a class game's) moved: `version` is the sum of the
    group's versions (it only grows), `game` and `game_version` the table that moved."""

    version: int
    game: int
    game_version: int
    name: ClassVar[str] = "table"

    def data(self) -> dict:
        return {"version": self.version, "game": self.game, "game_version": self.game_version}

    def encode(self) -> bytes:
        return _encode(self.name, self.data(), event_id=self.version)


@dataclass(frozen=True)
class Bye:
    """The stream is closed because a newer one of the same tablet (or address) took its place."""

    reason: str = "replaced"
    name: ClassVar[str] = "bye"

    def data(self) -> dict:
        return {"reason": self.reason}

    def encode(self) -> bytes:
        return _encode(self.name, self.data())


# Every kind a page can receive; the names a page listens for (tests check the JavaScript).
STREAM_EVENTS: tuple[type, ...] = (Hello, Heartbeat, TableAt, GroupAt, Bye)
EVENT_NAMES: frozenset[str] = frozenset(kind.name for kind in STREAM_EVENTS)


def _encode(name: str, data: dict, *, event_id: int | None = None) -> bytes:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {name}\ndata: {json.dumps(data)}\n\n".encode()
