"""The cards of Kavet 'm eus and the decks built from them (RULES.md R0, R1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import EngineError

EVENT_NAMES: tuple[str, ...] = ("UNAN", "DAOU", "TRI", "PEVAR", "PEMP", "CHWECH")
# The apostrophes of C'HWEC'H are kept out of the identifier so it is safe in JSON keys and URLs.
EVENT_LABELS: dict[str, str] = {name: name for name in EVENT_NAMES} | {"CHWECH": "C'HWEC'H"}

NUMBER_RANGES: tuple[int, ...] = (10, 20)
MAX_COPIES = 4
MAX_X_CARDS = 8


@dataclass(frozen=True)
class Card:
    """One physical card; `id` is its position in the unshuffled deck."""

    id: int
    kind: str  # "number" | "x" | "event"
    value: int | None = None
    event: str | None = None

    @property
    def label(self) -> str:
        if self.kind == "number":
            return str(self.value)
        if self.kind == "x":
            return "X"
        return EVENT_LABELS.get(self.event or "", self.event or "?")

    @property
    def is_event(self) -> bool:
        return self.kind == "event"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "value": self.value, "event": self.event}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Card:
        return cls(
            id=data["id"], kind=data["kind"], value=data.get("value"), event=data.get("event")
        )


@dataclass(frozen=True)
class DeckSpec:
    """What goes into a deck (R1.1-R1.3); the defaults give the standard 52-card deck."""

    max_number: int = 20
    copies: int = 2
    x_cards: int = 4
    events: bool = True

    def validate(self) -> None:
        def refuse(reason: str) -> EngineError:
            return EngineError("deck_invalid", reason=reason)

        if self.max_number not in NUMBER_RANGES:
            raise refuse(f"the number range must be 10 or 20, not {self.max_number!r}")
        if type(self.copies) is not int or not 1 <= self.copies <= MAX_COPIES:
            raise refuse(f"copies of each number must be 1 to {MAX_COPIES}, not {self.copies!r}")
        if type(self.x_cards) is not int or not 0 <= self.x_cards <= MAX_X_CARDS:
            raise refuse(f"the number of X cards must be 0 to {MAX_X_CARDS}, not {self.x_cards!r}")
        if type(self.events) is not bool:
            raise refuse("events must be on or off")

    def to_dict(self) -> dict[str, Any]:
        return {
            "max_number": self.max_number,
            "copies": self.copies,
            "x_cards": self.x_cards,
            "events": self.events,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DeckSpec:
        return cls(
            **{k: data[k] for k in ("max_number", "copies", "x_cards", "events") if k in data}
        )


def build_deck(spec: DeckSpec | None = None) -> list[Card]:
    """The unshuffled deck: numbers 0..max (each copy in turn), then X cards, then events."""
    spec = spec or DeckSpec()
    spec.validate()
    cards: list[Card] = []
    for value in range(spec.max_number + 1):
        for _ in range(spec.copies):
            cards.append(Card(id=len(cards), kind="number", value=value))
    for _ in range(spec.x_cards):
        cards.append(Card(id=len(cards), kind="x"))
    if spec.events:
        for name in EVENT_NAMES:
            cards.append(Card(id=len(cards), kind="event", event=name))
    return cards
