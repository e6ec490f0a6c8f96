"""Hooks the games app offers the apps above it, so it never imports them."""

from __future__ import annotations

from collections.abc import Callable

from django.dispatch import Signal

# A page showing a class game is being served (the class board, the class game's live view):
# where no worker runs, an app above may move the game on here, as the page applies due moves
# (demo: the demo's game), and answers how many moves it played. Sent with
# session=the app's class game (classgames.ClassSession), now=the moment (None: now).
class_game_shown = Signal()

# A table of a class game has just ended (finished or abandoned), inside the transaction that
# ended it, the game row locked: the app above updates its class game in the same transaction
# (classgames: the class game is over once every table is). Sent with game_id, and group (the
# game's table_group, None for a table of no group).
game_over = Signal()

# games_erase_before has erased the games over before `before` (retention): the app above
# erases what hung from them, and answers the rows it erased (or, with dry_run, would erase)
# per model label (classgames: the class games left without a table). Sent with before,
# school (None for every school), dry_run.
games_erased = Signal()


class TableGroup:
    """Tables watched together: the games floor knows no class game, the app above names the group.

    One app above declares it once (classgames: the tables of a class game, the group its
    ClassSession's id): `related`, a relation the game row is read with under its lock, in the
    same statement (games.services), so that `of(game)` answers the game's group with no query
    of its own. The group is an opaque number to this floor: the push carries it (one PUBLISH per
    change, heard by the table's watchers and by the group's: games.push.group_channel,
    games.stream.group_stream), and game_over is sent with it.
    """

    def __init__(self) -> None:
        self.related: tuple[str, ...] = ()
        self._of: Callable[[object], int | None] | None = None

    def declare(self, *, related: str, of: Callable[[object], int | None]) -> None:
        self.related = (related,)
        self._of = of

    def of(self, game) -> int | None:
        """The game's group, None when it is in none (or no app declared groups)."""
        return None if self._of is None else self._of(game)


table_group = TableGroup()
