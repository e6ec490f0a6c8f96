"""Tests for the cards and decks (RULES.md R0, R1)."""

from __future__ import annotations

from collections import Counter

import pytest

from games.engine import EVENT_NAMES, Card, DeckSpec, EngineError, build_deck


def test_standard_deck_has_52_cards() -> None:
    # R1.1: two of each number 0-20, four X cards, the six event cards.
    deck = build_deck(DeckSpec())
    assert len(deck) == 52
    numbers = Counter(c.value for c in deck if c.kind == "number")
    assert numbers == {v: 2 for v in range(21)}
    assert sum(c.kind == "x" for c in deck) == 4
    assert sorted(c.event for c in deck if c.kind == "event") == sorted(EVENT_NAMES)


def test_up_to_10_deck_has_32_cards() -> None:
    # R1.2: 11-20 removed; 0, X and the events stay.
    deck = build_deck(DeckSpec(max_number=10))
    assert len(deck) == 32
    assert max(c.value for c in deck if c.kind == "number") == 10
    assert any(c.value == 0 for c in deck) and sum(c.kind == "x" for c in deck) == 4


def test_ids_are_positions_in_the_unshuffled_deck() -> None:
    # R1.4: a replay names cards by id, so ids must be stable and dense.
    deck = build_deck(DeckSpec())
    assert [c.id for c in deck] == list(range(52))
    assert build_deck(DeckSpec()) == deck


@pytest.mark.parametrize(
    ("spec", "size"),
    [
        (DeckSpec(copies=1), 21 + 4 + 6),
        (DeckSpec(copies=3, x_cards=0), 63 + 6),
        (DeckSpec(max_number=10, events=False), 22 + 4),
        (DeckSpec(x_cards=8), 42 + 8 + 6),
    ],
)
def test_custom_decks(spec: DeckSpec, size: int) -> None:
    # R1.3: copies of each number, number of X cards, events on or off.
    assert len(build_deck(spec)) == size


@pytest.mark.parametrize(
    "spec",
    [
        DeckSpec(max_number=15),
        DeckSpec(copies=0),
        DeckSpec(copies=5),
        DeckSpec(x_cards=-1),
        DeckSpec(x_cards=9),
        DeckSpec(events="yes"),  # type: ignore[arg-type]
    ],
)
def test_impossible_decks_are_refused_with_a_reason(spec: DeckSpec) -> None:
    # R1.3: a custom deck is validated with a clear error.
    with pytest.raises(EngineError) as caught:
        build_deck(spec)
    assert caught.value.code == "deck_invalid"
    assert caught.value.params["reason"]


def test_labels_and_round_trip() -> None:
    # R0: number cards show their value, X shows X, events their Breton name.
    deck = build_deck(DeckSpec())
    labels = {c.label for c in deck}
    assert {"0", "20", "X", "UNAN", "C'HWEC'H"} <= labels
    assert all(Card.from_dict(c.to_dict()) == c for c in deck)
    assert DeckSpec.from_dict(DeckSpec(copies=3).to_dict()) == DeckSpec(copies=3)
