"""The game state as data: configuration, JSON, replay, timers, legal moves and views."""

from __future__ import annotations

import json

import pytest

from games.engine.bots import play_bot_game
from games.engine.cards import DeckSpec
from games.engine.errors import EngineError
from games.engine.game import GameConfig, GameState, legal_moves, new_game, replay
from games.engine.narration import describe_event
from games.engine.rules import RuleSet
from games.engine.visibility import seat_view


def test_standard_config_and_its_json():
    # R1.1, R1.2 — the deck follows the number range unless set
    config = GameConfig(players=["Anna", "Brieg"], rules=RuleSet(max_number=10, tier=2))
    assert config.deck == DeckSpec(max_number=10)
    assert GameConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
    assert len(new_game(config, seed=1).cards) == 32


@pytest.mark.parametrize(
    "overrides",
    [
        {"players": ["solo"]},
        {"players": list("abcdefg")},
        {"challenge_window": -1},
        {"turn_time": "soon"},
        {"starter": 2},
        {"nothing_true_penalty": 5},
        {"deck": DeckSpec(max_number=20)},
    ],
)
def test_impossible_configs_are_refused(overrides):
    # R1.3, R4.1, R4.9, R5.1, R5.5 — settings are checked when the game is set up
    options = {"players": ["a", "b"], "rules": RuleSet(max_number=10, tier=1), **overrides}
    with pytest.raises(EngineError) as info:
        GameConfig(**options)
    assert info.value.code == "config_invalid"


def test_draw_order_must_name_real_cards_once():
    # R1.4 — an explicit draw order (tests, replays) is checked too
    config = GameConfig(players=["a", "b"], rules=RuleSet(max_number=10, tier=1))
    for order in ([1, 1], [999], [-1]):
        with pytest.raises(EngineError) as info:
            new_game(config, draw_order=order)
        assert info.value.code == "draw_order_invalid"


def test_the_seed_is_kept_so_the_game_can_be_replayed():
    # R1.4, R9.2 — a game without a given seed still gets one, stored in its state
    config = GameConfig(players=["a", "b"], rules=RuleSet(max_number=10, tier=1))
    state = new_game(config)
    assert isinstance(state.seed, int)
    again = new_game(config, seed=state.seed)
    assert again.to_dict() == state.to_dict()
    assert new_game(config, seed=state.seed + 1).draw != state.draw


def test_state_json_round_trip_mid_challenge(scene):
    # R9.2 — a state in any phase stores as JSON and comes back identical
    s = scene(table=[2, 3, 5], draw=[4, 9, 10], events={0: ["CHWECH"]}, held={2: [6]})
    s.announce(0, "2 + 5 = 3", place=None)
    s.play({"type": "challenge", "seat": 1})
    text = json.dumps(s.state.to_dict())
    restored = GameState.from_dict(json.loads(text))
    assert restored.to_dict() == s.state.to_dict()
    assert restored.timer == s.state.timer and restored.phase == "chwech_offer"


def _containers(value, found=None):
    """Every list and dict inside JSON-shaped data, by identity."""
    found = [] if found is None else found
    if isinstance(value, (list, dict)):
        found.append(value)
        for item in value.values() if isinstance(value, dict) else value:
            _containers(item, found)
    return found


def test_a_state_read_or_stored_shares_no_list_or_dict_with_its_source(scene):
    # R9.2, R9.3: the engine changes a copy; the stored JSON (read several times per move by the
    # views: games.selectors) and the state it was read into never share a list or a dict.
    s = scene(table=[2, 3, 5], draw=[4, 9, 10], events={0: ["CHWECH"]}, held={2: [6]})
    s.announce(0, "2 + 5 = 3", place=None)
    s.play({"type": "challenge", "seat": 1})
    data = json.loads(json.dumps(s.state.to_dict()))
    restored = GameState.from_dict(data)
    stored = restored.to_dict()
    assert stored == data
    source = {id(c) for c in _containers(data)}
    fields = [getattr(restored, name) for name in data if name != "config"]
    assert source.isdisjoint(id(c) for c in _containers(fields))
    assert source.isdisjoint(id(c) for c in _containers(stored))
    restored.piles[0].append(99)
    restored.pending["oks"].append(7)
    assert data == json.loads(json.dumps(s.state.to_dict()))  # the source is untouched


def test_replay_from_a_draw_order(config, card_ids):
    # R9.2 — replays work from an explicit draw order too
    cfg = config()
    order = card_ids(cfg, [2, 3, 5, 4, 9, 10])
    moves = [
        {"type": "announce", "seat": 0, "text": "2 + 3 = 5"},
        {"type": "ok", "seat": 1},
        {"type": "ok", "seat": 2},
    ]
    state = replay(cfg, None, moves, draw_order=order)
    assert state.version == 3 and sorted(state.piles[0]) == card_ids(cfg, [2, 3, 5])


def test_timers_follow_the_phase(scene):
    # R4.9, R5.1, R5.3 — which time limit runs, for whom, and for how long
    s = scene(
        table=[2, 3, 5],
        draw=[4],
        events={0: ["CHWECH"]},
        turn_time=100,
        challenge_window=8,
        challenge_time=45,
    )
    assert s.state.timer == {"kind": "turn", "seconds": 100, "seat": 0, "id": 0}
    s.announce(0, "2 + 5 = 3")
    assert s.state.timer == {"kind": "window", "seconds": 8, "seat": None, "id": 1}
    s.play({"type": "ok", "seat": 2})
    assert s.state.timer["id"] == 1  # an OK does not restart the window
    s.play({"type": "challenge", "seat": 1})
    assert s.state.timer == {"kind": "chwech", "seconds": 45, "seat": 0, "id": 3}
    s.play({"type": "chwech", "seat": 0, "use": False})
    assert s.state.timer == {"kind": "challenge", "seconds": 45, "seat": 1, "id": 4}


def test_legal_moves_per_phase(scene):
    # R4.3, R5.1, R5.3, R7.7 — what each seat may send now
    s = scene(table=[2, 3, 5], draw=[4], events={0: ["CHWECH"]})
    assert [legal_moves(s.state, seat) for seat in range(3)] == [["announce", "nothing"], [], []]
    s.announce(0, "2 + 5 = 3")
    assert [legal_moves(s.state, seat) for seat in range(3)] == [
        [],
        ["challenge", "ok"],
        ["challenge", "ok"],
    ]
    s.play({"type": "ok", "seat": 1})
    assert legal_moves(s.state, 1) == []
    s.play({"type": "challenge", "seat": 2})
    assert [legal_moves(s.state, seat) for seat in range(3)] == [["chwech"], [], []]
    s.play({"type": "chwech", "seat": 0, "use": False})
    assert [legal_moves(s.state, seat) for seat in range(3)] == [[], [], ["announce", "nothing"]]
    assert legal_moves(s.state, None) == []


def test_seat_view_shows_what_the_table_shows(scene):
    # R0, R1.5, R7.1, R7.4 — table, piles as counts, held and event cards face up
    s = scene(table=[2, 3, 5], draw=[4, 9], piles={1: [6, 7]}, held={2: [8]}, events={0: ["PEVAR"]})
    view = seat_view(s.state, 1)
    assert [c["label"] for c in view["table"]] == ["2", "3", "5"]
    assert view["draw_count"] == len(s.state.draw)
    assert [row["pile_count"] for row in view["seats"]][1] == 2
    assert view["seats"][2]["held"][0]["value"] == 8
    assert view["seats"][0]["events"][0]["label"] == "PEVAR"
    assert view["legal"] == [] and view["players"] == ["A", "B", "C"]
    json.dumps(view)


def test_chwech_label_is_spelled_with_apostrophes(scene):
    # R0 — the card's name is C'HWEC'H
    s = scene(table=[2, 3, 5], events={0: ["CHWECH"]})
    assert seat_view(s.state, 0)["seats"][0]["events"][0]["label"] == "C'HWEC'H"


def test_every_event_can_be_told_in_words():
    # The CLI tells a whole game; every event of a long game has a line or is skipped on purpose.
    config = GameConfig(players=["a", "b", "c"], rules=RuleSet(max_number=10, tier=1))
    kinds = set()
    for seed in range(30):
        game = play_bot_game(config, ["easy", "easy", "hard"], seed=seed)
        for event in game.events:
            kinds.add(event["type"])
            line = describe_event(event, list(config.players))
            assert line is None or isinstance(line, str)
    assert {"turn", "announced", "verdict", "trick_won", "challenge_ruled", "game_over"} <= kinds
