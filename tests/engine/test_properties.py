"""Property tests of the invariants of R9: card conservation, determinism, refusals change nothing."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine.bots import bot_move, play_bot_game
from games.engine.cards import DeckSpec
from games.engine.errors import INVALID_CODES, MOVE_REFUSAL_CODES, Refusal
from games.engine.game import (
    MOVE_TYPES,
    GameConfig,
    GameState,
    apply_move,
    check_invariants,
    new_game,
    replay,
)
from games.engine.rules import RuleSet
from games.engine.visibility import seat_view
from tests.conftest import examples

PROPERTY_SETTINGS = settings(
    max_examples=examples(0.4), derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)

configs = st.builds(
    lambda seats, max_number, tier, window, events, x_cards: GameConfig(
        players=[f"p{i}" for i in range(seats)],
        rules=RuleSet(max_number=max_number, tier=tier),
        deck=DeckSpec(max_number=max_number, x_cards=x_cards, events=events),
        challenge_window=window,
    ),
    seats=st.integers(2, 5),
    max_number=st.sampled_from([10, 10, 20]),
    tier=st.sampled_from([1, 2, 2, 3]),
    window=st.sampled_from([0, 10]),
    events=st.booleans(),
    x_cards=st.sampled_from([0, 2, 4]),
)

texts = st.one_of(
    st.text(max_size=25),
    st.sampled_from(
        [
            "1 + 2 = 3",
            "2 + 3 = 5",
            "X + 1 = 2 (X=1)",
            "10 - 4 = 6",
            "(8-5)*6=18",
            "0 + 0 = 0",
            "2^99999=8",
            "1/0=1",
            "((((",
            "",
            "7 = 7",
        ]
    ),
)


def _nested(depth: int) -> list:
    junk: list = []
    for _ in range(depth):
        junk = [junk]
    return junk


# Too big for str() or JSON, too deep for repr() or deepcopy(): still only a typed refusal.
oddities = st.one_of(
    st.none(),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
    st.text(max_size=3),
    st.just(10**5000),
    st.just(_nested(100_000)),
    st.floats(),
)


junk_moves = st.fixed_dictionaries(
    {
        "type": st.one_of(st.sampled_from([*MOVE_TYPES, "shout"]), oddities),
        "seat": st.one_of(st.integers(-1, 6), oddities),
    },
    optional={
        "text": st.one_of(texts, oddities),
        "tokens": st.lists(
            st.one_of(
                st.fixed_dictionaries({"card": st.one_of(st.integers(-2, 60), oddities)}),
                st.fixed_dictionaries({"op": st.sampled_from(["+", "-", "=", "(", "%"])}),
                oddities,
            ),
            max_size=5,
        ),
        "x_values": st.one_of(
            st.dictionaries(st.text(max_size=3), st.one_of(st.integers(), oddities)), oddities
        ),
        "place": st.one_of(st.sampled_from([None, "pevar", "pemp", "daou", "floor"]), oddities),
        "use": st.sampled_from([True, False, "yes"]),
        "kind": st.sampled_from(["turn", "window", "challenge", "chwech", "later"]),
        "bot": st.sampled_from([None, "easy", "genius"]),
    },
)


def _frozen(state: GameState) -> str:
    return json.dumps(state.to_dict(), sort_keys=True)


def _bot_step(state: GameState, strengths: list[str], rng: random.Random) -> dict:
    for seat in range(state.n_seats):
        move = bot_move(seat_view(state, seat), strengths[seat], rng)
        if move is not None:
            return move
    return {"type": "timeout", "kind": state.timer["kind"]}


@PROPERTY_SETTINGS
@given(config=configs, seed=st.integers(0, 2**32), data=st.data())
def test_cards_are_conserved_and_refusals_change_nothing(config, seed, data):
    # R9.1 — every card in exactly one place at every step; R9.3 — a refused move changes nothing
    state = new_game(config, seed=seed)
    check_invariants(state)
    strengths = [data.draw(st.sampled_from(["easy", "medium", "hard"])) for _ in config.players]
    rng = random.Random(seed)
    steps = 0
    while state.phase != "over":
        steps += 1
        assert steps < 5000, "the game does not end"
        if data.draw(st.booleans()):
            move = data.draw(junk_moves)
        else:
            move = _bot_step(state, strengths, rng)
        before = _frozen(state)
        try:
            new, events = apply_move(state, move)
        except Refusal as refusal:
            # R3.5, R9.3: every refusal carries a code the engine publishes
            assert refusal.code in MOVE_REFUSAL_CODES | INVALID_CODES, refusal
            assert isinstance(refusal.params, dict)
            assert _frozen(state) == before
            continue
        assert _frozen(state) == before  # the input is never changed, even when accepted
        json.dumps(events)  # events are plain data
        check_invariants(new)
        state = new


@PROPERTY_SETTINGS
@given(config=configs, seed=st.integers(0, 2**32))
def test_a_game_replays_exactly_from_its_seed_and_moves(config, seed):
    # R9.2 — the same seed and the same moves give the same game, step for step
    strengths = ["easy", "hard", "medium", "easy", "hard"][: len(config.players)]
    game = play_bot_game(config, strengths, seed=seed)
    assert _frozen(replay(config, seed, game.moves)) == _frozen(game.state)
    # And from the JSON of any state the rest of the game plays out the same (storage).
    state = new_game(config, seed=seed)
    events = []
    for move in game.moves:
        restored = GameState.from_dict(json.loads(json.dumps(state.to_dict())))
        assert _frozen(restored) == _frozen(state)
        state, new_events = apply_move(restored, move)
        events.extend(new_events)
    assert _frozen(state) == _frozen(game.state)
    assert events == game.events[len(game.events) - len(events) :]


@settings(max_examples=examples(0.25), derandomize=True)
@given(seed=st.integers(0, 2**32), seats=st.integers(2, 5))
def test_views_never_show_the_draw_pile(seed, seats):
    # R1.5 — no view holds the draw pile's order or the seed that makes it
    config = GameConfig(
        players=[f"p{i}" for i in range(seats)], rules=RuleSet(max_number=10, tier=1)
    )
    game = play_bot_game(
        config,
        ["hard"] * seats,
        seed=seed,
        after_move=lambda state, move, events: _no_draw_in_views(state),
    )
    assert game.state.phase == "over"


def _no_draw_in_views(state: GameState) -> None:
    if not state.draw:
        return
    hidden = state.draw
    for seat in [None, *range(state.n_seats)]:
        view = seat_view(state, seat)
        assert "draw" not in view and "seed" not in view and "rng_draws" not in view
        assert view["draw_count"] == len(hidden)
        shown = {c["id"] for c in view["table"]}
        for row in view["seats"]:
            shown |= {c["id"] for c in row["held"] + row["events"]}
        assert not shown & set(hidden)
