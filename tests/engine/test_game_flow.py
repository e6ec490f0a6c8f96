"""The flow of a turn (R4): turning up, tricks and refills, passing, skipping, time-outs."""

from __future__ import annotations

import json

import pytest

from games.engine.errors import Refusal
from games.engine.game import apply_move, check_invariants, new_game


def test_first_player_turns_up_three_cards(config, card_ids):
    # R4.1 — the starter (a setting) turns up three cards
    cfg = config(starter=1)
    state = new_game(cfg, draw_order=card_ids(cfg, [4, 9, 10]))
    check_invariants(state)
    assert state.phase == "turn" and state.active == 1
    assert state.table == card_ids(cfg, [4, 9, 10])
    assert len(state.draw) == 18 - 3


def test_event_card_turned_up_is_taken_and_replaced(config, started):
    # R4.2, R7.1 — an event card goes in front of the player, another card takes its place
    script = started(config(), [4, "PEVAR", 9, "UNAN", 10])
    assert script.table == [4, 9, 10]
    assert script.events_row(0) == ["PEVAR", "UNAN"]


def test_correct_operation_wins_the_trick_and_the_table_refills(scene):
    # R4.3, R4.4 — the trick is won once the window closes; an empty table gets three cards
    s = scene(table=[2, 3, 5], draw=[4, 9, 10])
    s.announce(0, "2 + 3 = 5")
    assert s.state.phase == "window" and s.pile(0) == []  # nothing is won during the window
    s.ok_all()
    assert sorted(s.pile(0)) == [2, 3, 5]
    assert s.table == [4, 9, 10]
    assert s.state.phase == "turn" and s.state.active == 0  # the winner stays active


def test_one_card_left_turns_up_two(scene):
    # R4.4 — one card left on the table: turn up two
    s = scene(table=[2, 3, 5, 10], draw=[4, 9])
    s.announce(0, "2 + 3 = 5")
    s.ok_all()
    assert s.table == [10, 4, 9]


def test_two_cards_left_turns_up_one(scene):
    # R4.4 — two or more left: turn up one
    s = scene(table=[2, 3, 5, 9, 10], draw=[4])
    s.announce(0, "2 + 3 = 5")
    s.ok_all()
    assert s.table == [9, 10, 4]


def test_nothing_to_do_passes_to_the_next_player_who_turns_up_one(scene):
    # R4.5 — the next player turns up one card and looks again
    s = scene(table=[4, 9, 10], draw=[7])
    s.nothing(0)
    events = s.ok_all()
    ruled = s.first(events, "nothing_ruled")
    assert ruled["was_true"] is True
    assert s.state.active == 1 and s.table == [4, 9, 10, 7]


def test_wrong_operation_nobody_challenges_wins_nothing(scene):
    # R4.6 — the referee shows why it is wrong, and the turn passes
    s = scene(table=[2, 3, 5], draw=[8])
    s.announce(0, "2 + 5 = 3")
    events = s.ok_all()
    verdict = s.first(events, "verdict")
    assert (
        verdict["ok"] is False and verdict["kind"] == "wrong" and verdict["code"] == "wrong_result"
    )
    assert s.pile(0) == [] and s.state.active == 1
    assert s.table == [2, 3, 5, 8]


def test_a_skipped_player_is_passed_over_once(scene):
    # R4.7 — a seat that must skip is passed over once, then plays again
    s = scene(table=[4, 9, 10], draw=[0, 8, 7])
    s.state.skips[1] = 1
    s.nothing(0)
    events = s.ok_all()
    assert {"type": "skipped", "seat": 1} in events
    assert s.state.active == 2 and s.state.skips[1] == 0
    s.nothing(2)
    s.ok_all()
    assert s.state.active == 0
    s.nothing(0)
    s.ok_all()
    assert s.state.active == 1  # the skip was used up


def test_empty_draw_pile_turns_up_nothing_and_play_goes_on(scene):
    # R4.8 — nothing is turned up, play goes on with the table
    s = scene(table=[1, 2, 3, 4, 5, 9], draw=[], rest=1)
    events = s.announce(0, "1 + 2 = 3") + s.ok_all()
    assert "turned_up" not in s.types(events)
    assert s.table == [4, 5, 9] and s.state.phase == "turn" and s.state.active == 0


def test_turn_time_out_counts_as_nothing_to_do(scene):
    # R4.9 — the time limit ran out: "nothing to do", and R5 applies as usual
    s = scene(table=[2, 3, 5], draw=[7], turn_time=90)
    assert s.state.timer["kind"] == "turn" and s.state.timer["seconds"] == 90
    events = s.play({"type": "timeout", "kind": "turn"})
    said = s.first(events, "said_nothing")
    assert said["seat"] == 0 and said["timeout"] is True
    assert s.state.phase == "window" and s.state.timer["kind"] == "window"
    s.play({"type": "challenge", "seat": 1})
    s.announce(1, "2 + 3 = 5")
    assert sorted(s.pile(1)) == [2, 3, 5]  # R5.4: the false "nothing" was open to challenge


def test_no_turn_timer_when_the_limit_is_off(scene):
    # R4.9 — the time limit is a setting; 0 means none
    s = scene(table=[2, 3, 5], turn_time=0)
    assert s.state.timer is None
    s.refuse({"type": "timeout", "kind": "turn"}, "stale_timeout")


def test_window_time_out_closes_the_window(scene):
    # R5.1 — the window closes when it runs out
    s = scene(table=[2, 3, 5], draw=[4, 9, 10])
    s.announce(0, "2 + 3 = 5")
    s.play({"type": "ok", "seat": 1})
    timer = s.state.timer
    assert timer["kind"] == "window"
    events = s.play({"type": "timeout", "kind": "window", "timer": timer["id"]})
    assert s.first(events, "window_closed")["reason"] == "timeout"
    assert sorted(s.pile(0)) == [2, 3, 5]


def test_stale_time_outs_are_refused(scene):
    # R4.9, R5.1 — a time limit that is not running (any more) cannot run out
    s = scene(table=[2, 3, 5], draw=[4, 9, 10])
    old = s.state.timer
    s.refuse({"type": "timeout", "kind": "window"}, "stale_timeout")
    s.announce(0, "2 + 3 = 5")
    s.refuse({"type": "timeout", "kind": "turn"}, "stale_timeout")
    s.ok_all()
    # A new turn timer is running; the deadline stamped for the old one is stale.
    assert s.state.timer["kind"] == "turn" and s.state.timer["id"] != old["id"]
    s.refuse({"type": "timeout", "kind": "turn", "timer": old["id"]}, "stale_timeout")
    s.refuse({"type": "timeout", "kind": "soon"}, "bad_move")


def test_refused_moves_say_why_and_change_nothing(scene):
    # R3.5, R9.3 — invalid moves are refused with a stable code; the state stays as it was
    s = scene(table=[2, 3, 5], draw=[4])
    s.refuse({"type": "announce", "seat": 1, "text": "2 + 3 = 5"}, "not_your_turn")
    s.refuse({"type": "announce", "seat": 0, "text": "7 + 1 = 8"}, "card_unavailable")
    s.refuse({"type": "announce", "seat": 0, "text": "2 + 2 = 5"}, "card_reused")
    s.refuse({"type": "announce", "seat": 0, "text": "2 +"}, "parse_error")
    s.refuse({"type": "announce", "seat": 0, "text": "2 * 3 = 6"}, "operator_not_allowed")
    s.refuse({"type": "announce", "seat": 0}, "bad_move")
    s.refuse({"type": "ok", "seat": 1}, "wrong_phase")
    s.refuse({"type": "challenge", "seat": 1}, "wrong_phase")
    s.refuse({"type": "chwech", "seat": 0, "use": True}, "wrong_phase")
    s.refuse({"type": "nothing", "seat": 2}, "not_your_turn")
    s.refuse({"type": "nothing", "seat": 7}, "unknown_seat")
    s.refuse({"type": "nothing", "seat": "0"}, "unknown_seat")
    s.refuse({"type": "shout"}, "unknown_move")
    s.refuse(["nothing"], "bad_move")  # type: ignore[arg-type]


def test_structured_announcement_by_card_ids(scene, card_ids):
    # R3.1 — a tablet sends card ids and operator keys; the trick is exactly those cards
    s = scene(table=[2, 3, 5], draw=[4, 9, 10])
    two, three, five = s.state.table
    tokens = [{"card": two}, {"op": "+"}, {"card": three}, {"op": "="}, {"card": five}]
    events = s.play({"type": "announce", "seat": 0, "tokens": tokens})
    assert s.first(events, "announced")["text"] == "2 + 3 = 5"
    s.ok_all()
    assert sorted(s.state.piles[0]) == sorted([two, three, five])
    s.refuse({"type": "announce", "seat": 0, "tokens": [{"card": 999}]}, "card_unavailable")


def test_x_card_takes_a_value(scene):
    # R3.4 — X stands for a named whole number, as operand or result
    s = scene(table=["X", 4, 9], draw=[10, 7, 6])
    s.refuse({"type": "announce", "seat": 0, "text": "X + 4 = 9"}, "x_value_missing")
    s.announce(0, "X + 4 = 9 (X=5)")
    s.ok_all()
    assert sorted(map(str, s.pile(0))) == ["4", "9", "X"]


def test_x_value_outside_the_tier_is_a_wrong_announcement(scene):
    # R3.4, R3.5, R4.6 — X = 101 at tier 1 is a real mistake: open to challenge, then shown
    s = scene(table=["X", 4, 9], draw=[10, 7, 6])
    s.announce(0, "X + 4 = 9 (X=101)")
    assert s.state.phase == "window"
    events = s.ok_all()
    verdict = s.first(events, "verdict")
    assert (verdict["kind"], verdict["code"]) == ("wrong", "x_value_out_of_range")
    assert s.pile(0) == [] and s.state.active == 1


def test_replace_is_metadata_only(scene):
    # R8 — a bot may take over a seat; the game itself does not change
    s = scene(table=[2, 3, 5])
    before = (s.state.table, s.state.phase, s.state.active)
    s.play({"type": "replace", "seat": 1, "bot": "hard"})
    assert s.state.bots[1] == "hard" and (s.state.table, s.state.phase, s.state.active) == before
    s.refuse({"type": "replace", "seat": 1, "bot": "genius"}, "bad_move")


def test_game_over_refuses_every_move(scene):
    # R6.1 — once over, nothing more can be played
    s = scene(table=[4, 9, 10], draw=[], rest=1)
    s.nothing(0)
    s.ok_all()
    assert s.state.phase == "over"
    s.refuse({"type": "nothing", "seat": 1}, "game_over")


def _nested(depth: int) -> list:
    junk: list = []
    for _ in range(depth):
        junk = [junk]
    return junk


HUGE = 10**5000  # str() of it raises ValueError; JSON cannot carry it either
DEEP = _nested(100_000)  # str() or deepcopy() of it raises RecursionError
TOKENS_2_3_5 = [{"card": 2}, {"op": "+"}, {"card": 3}, {"op": "="}, {"card": 5}]


def test_junk_moves_get_a_typed_refusal(scene):
    # R3.5, R9.3 — whatever a client sends, the answer is a Refusal that changes nothing
    s = scene(table=[2, 3, 5], draw=[4, 9, 10])
    junk = [
        {"type": HUGE},
        {"type": DEEP},
        {"type": "nothing", "seat": HUGE},
        {"type": "nothing", "seat": DEEP},
        {"type": "announce", "seat": 0, "tokens": [{"num": HUGE}]},
        {"type": "announce", "seat": 0, "tokens": [{"op": DEEP}]},
        {"type": "announce", "seat": 0, "tokens": [{"card": HUGE}]},
        {"type": "announce", "seat": 0, "tokens": [{"card": DEEP}]},
        {"type": "announce", "seat": 0, "text": "2 + 3 = 5", "place": DEEP},
        {"type": "announce", "seat": 0, "text": "2 + 3 = 5", "place": HUGE},
        {"type": "announce", "seat": 0, "tokens": TOKENS_2_3_5, "x_values": {HUGE: 1}},
        {"type": "announce", "seat": 0, "tokens": TOKENS_2_3_5, "x_values": {float("inf"): 1}},
        {"type": "announce", "seat": 0, "tokens": TOKENS_2_3_5, "x_values": {"1" * 5000: 1}},
        {"type": "announce", "seat": 0, "tokens": [{"card": 2}, {"op": "+"}, {"card": "X"}]},
        {"type": "announce", "seat": 0, "text": "x" * 10_000_000},
    ]
    for move in junk:
        before = s.state.to_dict()
        with pytest.raises(Refusal) as info:
            apply_move(s.state, move)
        assert info.value.code and info.value.message
        json.dumps(info.value.params)  # a refusal can be sent back to the client as it is
        assert s.state.to_dict() == before


def test_junk_beside_a_good_announcement_is_not_kept(scene):
    # R9.1, R9.2 — what the game stores stays plain, small JSON, whatever came with the move
    s = scene(table=[2, 3, 5, "X"], draw=[4, 9, 10])
    x_card = s.state.table[3]
    s.play({"type": "announce", "seat": 0, "tokens": TOKENS_2_3_5, "x_values": {str(x_card): DEEP}})
    json.dumps(s.state.to_dict())
    assert s.state.pending["x_values"] == []  # the X card is not in the operation
    s.ok_all()
    assert sorted(s.pile(0)) == [2, 3, 5]
