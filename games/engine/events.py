"""The catalogue of the engine's events: each kind, its fields, and its stored JSON form.

`apply_move` tells what a move caused as a list of plain dicts (stored as they are in
Move.events). This module is the one place that names every kind and what it carries: the
engine writes each event as `Kind(...).to_dict()`, and `event_from_dict` reads a stored dict
back into its typed event. Every projection (the CLI's narration, the child's words in games.wording, the ruling
panel, the plays of the reports, the cards won) reads events through it, never by raw keys.

Events stored before a field existed read with that field's default; a kind this catalogue
does not know reads as `Unknown`, which every projection passes over.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

Card = dict[str, Any]  # games.engine.game.card_dict: id, kind, value, label, event
OperationFacts = dict[str, Any]  # games.engine.game.operation_dict

# Stored keys that are no Python name, or whose meaning the code names otherwise.
_KEYS = {"from_": "from", "ranks": "places"}
_FIELDS: dict[type, tuple[tuple[str, str], ...]] = {}  # (attribute, stored key) per kind


def _fields_of(cls: type) -> tuple[tuple[str, str], ...]:
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = tuple((f.name, _KEYS.get(f.name, f.name)) for f in fields(cls))
    return found


@dataclass(frozen=True)
class Event:
    """One thing that happened; `type` is the stored "type" key."""

    type: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        """The stored form: "type" first, then the fields in the catalogue's order."""
        data: dict[str, Any] = {"type": self.type}
        for name, key in _fields_of(type(self)):
            data[key] = getattr(self, name)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        return cls(**{name: data[key] for name, key in _fields_of(cls) if key in data})


@dataclass(frozen=True)
class Unknown(Event):
    """A stored dict of no kind in this catalogue: kept as it was, told by no projection."""

    data: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.data)


# --- the start and the turns (R4) ------------------------------------------------------------


@dataclass(frozen=True)
class GameStarted(Event):
    type: ClassVar[str] = "game_started"
    players: list[str] = field(default_factory=list)
    starter: int = 0
    rules: dict[str, Any] = field(default_factory=dict)
    cards: int = 0  # the deck's size


@dataclass(frozen=True)
class Turn(Event):
    type: ClassVar[str] = "turn"
    seat: int | None = None


@dataclass(frozen=True)
class TurnedUp(Event):
    """A card turned up from the draw pile (R4.1, R4.5); an event card is then taken (R4.2)."""

    type: ClassVar[str] = "turned_up"
    seat: int | None = None
    card: Card = field(default_factory=dict)


@dataclass(frozen=True)
class EventCard(Event):
    """An event card taken into the seat's row, or TRI played at once (R7.1, R7.4)."""

    type: ClassVar[str] = "event_card"
    seat: int | None = None
    card: int | None = None  # the card's id
    event: str = ""  # its name: PEVAR, PEMP, DAOU, TRI, UNAN, CHWECH


@dataclass(frozen=True)
class TriTook(Event):
    """TRI: one random card taken from another player's pile (R7.4)."""

    type: ClassVar[str] = "tri_took"
    seat: int | None = None
    from_: int | None = None
    card: Card = field(default_factory=dict)


@dataclass(frozen=True)
class Skipped(Event):
    type: ClassVar[str] = "skipped"
    seat: int | None = None


@dataclass(frozen=True)
class Replaced(Event):
    """A seat now played by a computer player (`bot` its strength) or by a person (None)."""

    type: ClassVar[str] = "replaced"
    seat: int | None = None
    bot: str | None = None


@dataclass(frozen=True)
class Timeout(Event):
    type: ClassVar[str] = "timeout"
    kind: str = ""  # the time limit: turn, window, challenge, chwech
    seat: int | None = None


# --- what a player says, and the referee's rulings (R3, R4.3) --------------------------------


@dataclass(frozen=True)
class Announced(Event):
    """An operation announced: on one's turn, to back a challenge, or with C'HWEC'H."""

    type: ClassVar[str] = "announced"
    seat: int | None = None
    role: str = "turn"  # turn, challenge, chwech
    text: str = ""
    cards: list[int] = field(default_factory=list)
    place: str | None = None  # the event card the trick is laid on: pevar, pemp, daou


@dataclass(frozen=True)
class SaidNothing(Event):
    type: ClassVar[str] = "said_nothing"
    seat: int | None = None
    role: str = "turn"
    timeout: bool = False


@dataclass(frozen=True)
class Verdict(Event):
    """The referee's ruling on an announcement, once it may be shown (R3.5)."""

    type: ClassVar[str] = "verdict"
    seat: int | None = None
    role: str = "turn"
    text: str = ""
    ok: bool = False
    kind: str | None = None  # None when ok, else "wrong" (an invalid one is refused)
    code: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    operation: OperationFacts | None = None
    cards: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class NothingRuled(Event):
    """The ruling on a "nothing to do": true, or an operation was possible (R4.3, R5.6)."""

    type: ClassVar[str] = "nothing_ruled"
    seat: int | None = None
    role: str = "turn"
    was_true: bool = True
    possible: OperationFacts | None = None


@dataclass(frozen=True)
class Lesson(Event):
    """R5.6: the operation that was possible after a false "nothing to do"."""

    type: ClassVar[str] = "lesson"
    seat: int | None = None
    operation: OperationFacts | None = None


# --- the challenge window (R5) and C'HWEC'H (R7.7) -------------------------------------------


@dataclass(frozen=True)
class WindowOpened(Event):
    type: ClassVar[str] = "window_opened"
    seat: int | None = None
    kind: str = ""  # announce, nothing
    seconds: int = 0


@dataclass(frozen=True)
class WindowClosed(Event):
    type: ClassVar[str] = "window_closed"
    reason: str = ""  # all_ok, timeout


@dataclass(frozen=True)
class Ok(Event):
    type: ClassVar[str] = "ok"
    seat: int | None = None


@dataclass(frozen=True)
class ChallengeCalled(Event):
    type: ClassVar[str] = "challenge_called"
    seat: int | None = None
    against: int | None = None
    kind: str = ""  # what is challenged: announce, nothing


@dataclass(frozen=True)
class ChwechOffered(Event):
    type: ClassVar[str] = "chwech_offered"
    seat: int | None = None


@dataclass(frozen=True)
class ChwechDecided(Event):
    type: ClassVar[str] = "chwech_decided"
    seat: int | None = None
    use: bool = False


@dataclass(frozen=True)
class ChallengeRuled(Event):
    type: ClassVar[str] = "challenge_ruled"
    outcome: str = ""  # right, false, called_off
    challenger: int | None = None
    challenged: int | None = None
    reason: str = ""
    immediate: bool = False


@dataclass(frozen=True)
class SkipDue(Event):
    type: ClassVar[str] = "skip_due"
    seat: int | None = None


# --- where the cards go (R4.4, R5, R7) and the end (R6) --------------------------------------


@dataclass(frozen=True)
class TrickWon(Event):
    """A trick won by `seat`; laid on PEVAR/PEMP (`placed`), or given with DAOU `to` (R7.3)."""

    type: ClassVar[str] = "trick_won"
    seat: int | None = None
    cards: list[int] = field(default_factory=list)
    size: int = 0
    placed: str | None = None
    to: int | None = None

    @property
    def owner(self) -> int | None:
        """Whose pile the cards joined: the neighbour for DAOU (R7.3), else the winner."""
        return self.to if self.to is not None else self.seat


@dataclass(frozen=True)
class CardsGiven(Event):
    type: ClassVar[str] = "cards_given"
    from_: int | None = None
    to: int | None = None
    cards: list[int] = field(default_factory=list)
    count: int = 0
    reason: str = ""  # false_challenge, chwech_wrong


@dataclass(frozen=True)
class GameOver(Event):
    """The end (R6): settlements in their order, scores and finishing ranks (R6.3)."""

    type: ClassVar[str] = "game_over"
    reason: str = ""
    scores: list[int] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)  # stored as "places": 1 for the best
    settlements: list[dict[str, Any]] = field(default_factory=list)
    cards: list[int] = field(default_factory=list)


KINDS: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        GameStarted,
        Turn,
        TurnedUp,
        EventCard,
        TriTook,
        Skipped,
        Replaced,
        Timeout,
        Announced,
        SaidNothing,
        Verdict,
        NothingRuled,
        Lesson,
        WindowOpened,
        WindowClosed,
        Ok,
        ChallengeCalled,
        ChwechOffered,
        ChwechDecided,
        ChallengeRuled,
        SkipDue,
        TrickWon,
        CardsGiven,
        GameOver,
    )
}


def event_from_dict(data: Any) -> Event:
    """The typed event of a stored dict (Unknown for anything else)."""
    if isinstance(data, Event):
        return data
    if not isinstance(data, Mapping):
        return Unknown({})
    cls = KINDS.get(data.get("type"))  # type: ignore[arg-type]
    if cls is None:
        return Unknown(dict(data))
    try:
        return cls.from_dict(data)
    except TypeError:  # pragma: no cover - from_dict only passes the class's own fields
        return Unknown(dict(data))


def read_events(stored: Iterable[Any] | None) -> list[Event]:
    """A move's stored events, typed."""
    return [event_from_dict(e) for e in stored or ()]


def cards_won(stored: Iterable[Any] | None, seat: int | None) -> int:
    """Cards `seat` won in tricks in these events (R4.4): a trick given away with DAOU counts
    for the neighbour whose pile it joined (R7.3)."""
    return sum(
        len(e.cards)
        for e in read_events(stored)
        if isinstance(e, TrickWon) and seat is not None and e.owner == seat
    )
