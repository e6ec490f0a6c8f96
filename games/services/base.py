"""What every writer of a game shares: the refusal, the outcome of a move, the game row's lock
(the game row first, then its seats), and the news after commit (games.push, signals.game_over).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings as django_settings

from games import engine, permissions, push, signals

from ..models import Game, Seat

log = logging.getLogger("games.services")

# Moves a person may send from a tablet; timeouts and replacements come from the server only.
PLAYER_MOVES = frozenset({"announce", "nothing", "challenge", "ok", "chwech"})
# A tick never applies more than this many moves at once (a safety net against a loop).
MAX_TICK_MOVES = 30
# R4.9: seconds the first player's turn clock waits for their tablet to open the table.
FIRST_TURN_GRACE = 60


def first_turn_grace() -> int:
    """Settings KAVET_FIRST_TURN_GRACE (seconds), FIRST_TURN_GRACE when not set."""
    return int(getattr(django_settings, "KAVET_FIRST_TURN_GRACE", FIRST_TURN_GRACE))


class GameError(Exception):
    """A request the game refuses, with a stable code and a translated message for the page."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        self.code = code
        self.message = message
        self.params = params
        super().__init__(f"{code}: {message}")


@dataclass
class MoveOutcome:
    """What came of a move: applied or not, the fresh game, the events, and what to tell the player."""

    applied: bool
    game: Game
    events: list[dict] = field(default_factory=list)
    refusal_code: str | None = None
    message: str = ""
    # The table as read under the lock and as the move left it (scores and places at the end):
    # the board the answer shows needs no second read. None where the seats were not read.
    seats: list[Seat] | None = None
    # The player's own seat, as the locked read found it (move_submit given a player).
    seat: Seat | None = None


def _locked(game: Game | int) -> Game:
    pk = game.pk if isinstance(game, Game) else game
    # no_key: a move never changes the game's key, so seats and moves may still reference it.
    # The class comes in the same statement (the board's reading-aloud setting), unlocked, and
    # so does what names the game's group (signals.table_group: the push needs no query).
    return (
        Game.objects.select_related("classroom", *signals.table_group.related)
        .select_for_update(no_key=True, of=("self",))
        .get(pk=pk)
    )


def _locked_in(game: Game, status: str, code: str, message: str) -> Game:
    """The game, locked, if it is in `status`; else a GameError with the code and message."""
    game = _locked(game)
    if game.status != status:
        raise GameError(code, message)
    return game


def _locked_table(
    game_id: int, player: tuple[int, int] | None = None
) -> tuple[Game, dict[int, Seat]]:
    """`_locked` and `_seats` in one statement (games.services.locked): the game row locked
    first, its class, its group and its seats with their students read beside it. A move's
    one locked read. Given a player (games.permissions.player), only a game they sit at:
    Game.DoesNotExist for any other, as for no game."""
    from .locked import locked_table

    made = locked_table(game_id, player)
    if made is not None:
        return made
    game = _locked(game_id)
    seats = _seats(game)
    if player is not None and (
        game.school_id != player[0] or permissions.own_seat(seats.values(), player[1]) is None
    ):
        raise Game.DoesNotExist(f"no game {game_id} for this player")
    return game, seats


def _seats(game: Game) -> dict[int, Seat]:
    """The table's seats by position, read once per change (the game row is locked first)."""
    return {s.position: s for s in Seat.objects.filter(game=game).select_related("student")}


def _bots(seats: dict[int, Seat]) -> dict[int, str]:
    return {p: s.bot for p, s in seats.items() if s.bot}


def _changed(game: Game) -> None:
    """After commit, tell the table's tablets and the watchers of its group (games.push).

    A table of a group (signals.table_group: a class game's) that has just ended tells the app
    above too (signals.game_over), in the same transaction (the game row locked first): the
    class game is over once every table is.
    """
    game_id, version, group = game.pk, game.version, signals.table_group.of(game)
    if group is not None and game.status in (Game.Status.FINISHED, Game.Status.ABANDONED):
        signals.game_over.send(sender=Game, game_id=game_id, group=group)
    push.send_on_commit(push.Change(game_id=game_id, version=version, group=group))


def _config(game: Game):
    return engine.GameConfig.from_dict(game.config)


def _state(game: Game):
    return engine.GameState.from_dict(game.state)


# Seconds a computer player takes to answer OK or "Kavet 'm eus!" in a challenge window.
