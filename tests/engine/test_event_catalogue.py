"""The catalogue of events (games.engine.events): every event the engine emits has its kind there,
reads into its typed event and writes back the very dict stored in Move.events."""

from __future__ import annotations

import collections

from games.engine import events as ev
from games.engine.bots import play_bot_game
from games.engine.cards import DeckSpec
from games.engine.game import GameConfig, apply_move, start_game
from games.engine.rules import RuleSet


def _games():
    for seed in range(60):
        config = GameConfig(
            players=["a", "b", "c"],
            rules=RuleSet(max_number=10, tier=1 + seed % 3),
            deck=DeckSpec(max_number=10, copies=1 + seed % 2, x_cards=(4, 2, 0)[seed % 3]),
            challenge_window=0 if seed % 7 == 6 else 10,
            starter=seed % 3,
        )
        yield play_bot_game(config, ["easy", "easy", "hard"], seed=seed).events
    # A seat handed to a computer player, and a turn's time running out (R4.9, R8).
    state, events = start_game(GameConfig(players=["a", "b"], rules=RuleSet(10, 1)), seed=1)
    for move in (
        {"type": "replace", "seat": 1, "bot": "easy"},
        {"type": "timeout", "kind": "turn"},
    ):
        state, more = apply_move(state, move)
        events += more
    yield events


def test_every_emitted_event_round_trips_through_the_catalogue():
    # R9.2 — what is stored is what the catalogue writes: same keys, same values
    seen = collections.Counter()
    for events in _games():
        for event in events:
            typed = ev.event_from_dict(event)
            assert not isinstance(typed, ev.Unknown), event["type"]
            assert typed.to_dict() == event
            assert list(typed.to_dict()) == list(event)  # the same keys, in the same order
            seen[event["type"]] += 1
    # Bots between them meet every kind the engine has (R5, R7, R8): none is left untested.
    assert set(seen) == set(ev.KINDS)


def test_cards_won_counts_a_daou_trick_for_the_neighbour():
    # R4.4, R7.3 — a trick given away with DAOU is won by the seat whose pile it joined
    stored = [
        {"type": "trick_won", "seat": 0, "cards": [1, 2, 3], "size": 3, "placed": "daou", "to": 2},
        {"type": "trick_won", "seat": 2, "cards": [4, 5], "size": 2, "placed": None, "to": 2},
        {"type": "trick_won", "seat": 1, "cards": [6, 7], "size": 2, "placed": "pevar", "to": 1},
        {"type": "verdict", "seat": 0, "ok": True, "cards": [9, 10]},
    ]
    assert [ev.cards_won(stored, seat) for seat in range(3)] == [0, 2, 5]


def test_an_event_stored_before_a_field_existed_reads_with_its_default():
    # An older trick_won without "to" is the winner's own (R4.4); an unknown kind is passed over.
    old = ev.event_from_dict({"type": "trick_won", "seat": 1, "cards": [3, 4], "size": 2})
    assert isinstance(old, ev.TrickWon) and old.owner == 1 and old.placed is None
    assert isinstance(ev.event_from_dict({"type": "later_kind", "x": 1}), ev.Unknown)
    assert isinstance(ev.event_from_dict("garbage"), ev.Unknown)


# The stored form of each kind, as Move.events has held it since the first games: a change
# here is a change to every stored game, and needs a migration of Move.events.
STORED_KEYS = {
    "game_started": "players starter rules cards",
    "turn": "seat",
    "turned_up": "seat card",
    "event_card": "seat card event",
    "tri_took": "seat from card",
    "skipped": "seat",
    "replaced": "seat bot",
    "timeout": "kind seat",
    "announced": "seat role text cards place",
    "said_nothing": "seat role timeout",
    "verdict": "seat role text ok kind code params operation cards",
    "nothing_ruled": "seat role was_true possible",
    "lesson": "seat operation",
    "window_opened": "seat kind seconds",
    "window_closed": "reason",
    "ok": "seat",
    "challenge_called": "seat against kind",
    "chwech_offered": "seat",
    "chwech_decided": "seat use",
    "challenge_ruled": "outcome challenger challenged reason immediate",
    "skip_due": "seat",
    "trick_won": "seat cards size placed to",
    "cards_given": "from to cards count reason",
    "game_over": "reason scores places settlements cards",
}


def test_the_stored_form_of_every_kind_is_unchanged():
    # R9.2 — a stored game replays from its moves and reads back its events: keys never drift
    assert {kind: " ".join(list(cls().to_dict())[1:]) for kind, cls in ev.KINDS.items()} == (
        STORED_KEYS
    )
