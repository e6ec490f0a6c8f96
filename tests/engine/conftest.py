"""Helpers for the game tests: scripted positions on a small deck, and moves that must be refused."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from games.engine.cards import DeckSpec
from games.engine.errors import Refusal
from games.engine.game import (
    GameConfig,
    GameState,
    apply_move,
    check_invariants,
    deck_of,
    new_game,
)
from games.engine.rules import RuleSet

# One card of each number 0..10, one X, the six event cards: 18 cards whose number cards have
# id == value, so a scripted position reads like the table it describes.
SMALL_DECK = DeckSpec(max_number=10, copies=1, x_cards=1, events=True)
Label = int | str


def ids_for(state_or_config: GameState | GameConfig, labels: Iterable[Label]) -> list[int]:
    """Card ids for labels ("8", 8, "X", "TRI"), taking a fresh copy for each repeat."""
    config = state_or_config.config if isinstance(state_or_config, GameState) else state_or_config
    cards = deck_of(config.deck)
    used: set[int] = set()
    out: list[int] = []
    for label in labels:
        want = str(label).upper().replace("'", "")
        for card in cards:
            name = card.event if card.kind == "event" else card.label
            if card.id not in used and name == want:
                used.add(card.id)
                out.append(card.id)
                break
        else:
            raise LookupError(f"no card {label!r} left in the deck")
    return out


def labels_of(state: GameState, ids: Iterable[int]) -> list[Label]:
    out: list[Label] = []
    for cid in ids:
        card = state.cards[cid]
        out.append(card.value if card.kind == "number" else (card.event or "X"))
    return out


class Script:
    """A game played move by move, checking the invariants after every step (R9.1)."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.events: list[dict[str, Any]] = []
        check_invariants(state)

    def play(self, move: dict[str, Any]) -> list[dict[str, Any]]:
        before = json.dumps(self.state.to_dict(), sort_keys=True)
        new, events = apply_move(self.state, move)
        # apply_move must never change the state it was given.
        assert json.dumps(self.state.to_dict(), sort_keys=True) == before
        check_invariants(new)
        self.state = new
        self.events.extend(events)
        return events

    def announce(self, seat: int, text: str, place: str | None = None) -> list[dict[str, Any]]:
        return self.play({"type": "announce", "seat": seat, "text": text, "place": place})

    def nothing(self, seat: int) -> list[dict[str, Any]]:
        return self.play({"type": "nothing", "seat": seat})

    def ok_all(self) -> list[dict[str, Any]]:
        """Every other player presses OK: the window closes (R5.1)."""
        events: list[dict[str, Any]] = []
        pending = self.state.pending
        for seat in range(self.state.n_seats):
            if seat != pending["seat"] and seat not in pending["oks"]:
                events += self.play({"type": "ok", "seat": seat})
        return events

    def refuse(self, move: dict[str, Any], code: str) -> Refusal:
        before = json.dumps(self.state.to_dict(), sort_keys=True)
        with pytest.raises(Refusal) as info:
            apply_move(self.state, move)
        assert info.value.code == code, info.value
        assert json.dumps(self.state.to_dict(), sort_keys=True) == before  # R9.3
        return info.value

    @staticmethod
    def types(events: Iterable[dict[str, Any]]) -> list[str]:
        return [e["type"] for e in events]

    @staticmethod
    def first(events: Iterable[dict[str, Any]], kind: str) -> dict[str, Any]:
        for event in events:
            if event["type"] == kind:
                return event
        raise AssertionError(f"no {kind} event in {[e['type'] for e in events]}")

    # Reading the position in the game's own words.
    @property
    def table(self) -> list[Label]:
        return labels_of(self.state, self.state.table)

    def pile(self, seat: int) -> list[Label]:
        return labels_of(self.state, self.state.piles[seat])

    def held(self, seat: int) -> list[Label]:
        return labels_of(self.state, self.state.held[seat])

    def events_row(self, seat: int) -> list[Label]:
        return labels_of(self.state, self.state.events_row[seat])


def make_config(
    players: int = 3, *, tier: int = 1, deck: DeckSpec = SMALL_DECK, **settings: Any
) -> GameConfig:
    return GameConfig(
        players=[chr(ord("A") + i) for i in range(players)],
        rules=RuleSet(max_number=deck.max_number, tier=tier),
        deck=deck,
        **settings,
    )


def build_scene(
    *,
    table: Sequence[Label] = (),
    draw: Sequence[Label] = (),
    piles: dict[int, Sequence[Label]] | None = None,
    held: dict[int, Sequence[Label]] | None = None,
    events: dict[int, Sequence[Label]] | None = None,
    active: int = 0,
    rest: str | int = "draw",
    config: GameConfig | None = None,
    **settings: Any,
) -> Script:
    """A position in the middle of a game: `active` to play with this table and these piles.

    The cards not named go after `draw` in the draw pile (rest="draw"), or into a seat's pile
    (rest=seat) when the test needs an empty draw pile.
    """
    config = config or make_config(**settings)
    state = new_game(config, draw_order=[])
    places: dict[str, Any] = {"table": table, "draw": draw}
    named = list(table) + list(draw)
    for group in (piles or {}, held or {}, events or {}):
        for labels in group.values():
            named += list(labels)
    all_ids = ids_for(config, named)
    taken = iter(all_ids)

    def take(labels: Sequence[Label]) -> list[int]:
        return [next(taken) for _ in labels]

    state.table = take(places["table"])
    state.draw = take(places["draw"])
    seats = range(state.n_seats)
    state.piles = [take((piles or {}).get(s, ())) for s in seats]
    state.held = [take((held or {}).get(s, ())) for s in seats]
    state.events_row = [take((events or {}).get(s, ())) for s in seats]
    state.laid = [{} for _ in seats]
    leftover = [c for c in range(len(state.cards)) if c not in set(all_ids)]
    if rest == "draw":
        state.draw += leftover
    else:
        state.piles[int(rest)] = leftover + state.piles[int(rest)]
    state.active = active
    state.phase = "turn"
    return Script(state)


@pytest.fixture
def scene():
    """Build a scripted position: see build_scene."""
    return build_scene


@pytest.fixture
def config():
    """Make a game config on the small deck: see make_config."""
    return make_config


@pytest.fixture
def card_ids():
    """Card ids for labels: see ids_for."""
    return ids_for


@pytest.fixture
def started():
    """Start a game on a config whose draw pile begins with these labels (R4.1)."""

    def start(config: GameConfig, labels: Sequence[Label]) -> Script:
        return Script(new_game(config, draw_order=ids_for(config, labels)))

    return start
