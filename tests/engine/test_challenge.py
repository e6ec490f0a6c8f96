"""The challenge window and "Kavet 'm eus!" (R5): who may call, and both outcomes."""

from __future__ import annotations

import json

from games.engine.visibility import seat_view


def test_right_challenge_on_a_wrong_operation(scene):
    # R5.4 — the challenger wins the trick and plays on; the challenged skips their next turn;
    # play then goes to whoever would have been next after the challenged player.
    s = scene(table=[2, 3, 5], draw=[4, 9, 10, 7, 8, 6])
    s.announce(0, "2 + 5 = 3")
    s.play({"type": "challenge", "seat": 2})
    assert s.state.phase == "challenge" and s.state.timer["kind"] == "challenge"
    assert s.state.timer["seat"] == 2
    events = s.announce(2, "2 + 3 = 5")
    ruled = s.first(events, "challenge_ruled")
    assert ruled["outcome"] == "right" and ruled["challenger"] == 2 and ruled["challenged"] == 0
    verdicts = {e["role"]: e for e in events if e["type"] == "verdict"}
    assert verdicts["challenge"]["ok"] is True
    assert verdicts["turn"]["code"] == "wrong_result"  # the mistake is now shown to everyone
    assert sorted(s.pile(2)) == [2, 3, 5] and s.pile(0) == []
    assert s.state.skips[0] == 1
    assert s.state.active == 2 and s.table == [4, 9, 10]  # R4.4: plays on with a refilled table
    s.nothing(2)
    s.ok_all()
    assert s.state.active == 1  # next after the challenged seat 0, not after the challenger
    s.nothing(1)
    s.ok_all()
    assert s.state.active == 2
    s.nothing(2)
    events = s.ok_all()
    assert {"type": "skipped", "seat": 0} in events  # R4.7
    assert s.state.active == 1


def test_false_challenge_on_a_correct_operation_is_ruled_at_once(scene):
    # R5.5 — the referee rules at once; the challenged wins the trick and takes 3 cards
    s = scene(table=[2, 3, 5], draw=[4, 9, 10], piles={1: [6, 7, 8, 0]})
    s.announce(0, "2 + 3 = 5")
    events = s.play({"type": "challenge", "seat": 1})
    ruled = s.first(events, "challenge_ruled")
    assert ruled["outcome"] == "false" and ruled["immediate"] is True
    assert ruled["reason"] == "correct_announcement"
    given = s.first(events, "cards_given")
    assert given["from"] == 1 and given["to"] == 0 and given["count"] == 3
    assert s.pile(1) == [6]
    assert sorted(s.pile(0)) == [0, 2, 3, 5, 7, 8]
    assert s.state.skips[1] == 1
    assert s.state.phase == "turn" and s.state.active == 0 and s.table == [4, 9, 10]  # resumes


def test_false_challenge_takes_fewer_cards_when_the_pile_is_short(scene):
    # R5.5 — fewer cards if the challenger's pile has fewer
    s = scene(table=[2, 3, 5], draw=[4, 9, 10], piles={1: [6]})
    events = s.announce(0, "2 + 3 = 5") + s.play({"type": "challenge", "seat": 1})
    assert s.first(events, "cards_given")["count"] == 1 and s.pile(1) == []


def test_challenger_with_no_valid_operation_loses(scene):
    # R5.3, R5.5 — a wrong challenger announcement ends the challenge as "no valid operation";
    # the wrong operation still wins nothing (R4.6) and the challenger skips.
    s = scene(table=[2, 3, 5], draw=[8, 9], piles={1: [6, 7, 10]})
    s.announce(0, "2 + 5 = 3")
    s.play({"type": "challenge", "seat": 1})
    events = s.announce(1, "3 + 5 = 2")
    ruled = s.first(events, "challenge_ruled")
    assert ruled["outcome"] == "false" and ruled["reason"] == "no_valid_operation"
    assert sorted(s.pile(0)) == [6, 7, 10] and s.pile(1) == []
    # The turn passes from A; B skips at once, so C plays.
    assert {"type": "skipped", "seat": 1} in events
    assert s.state.active == 2 and s.table == [2, 3, 5, 8]


def test_invalid_challenger_announcement_is_refused_and_may_be_retried(scene):
    # R5.3 — an invalid announcement is refused; the challenger may try again
    s = scene(table=[2, 3, 5], draw=[4, 9, 10])
    s.announce(0, "2 + 5 = 3")
    s.play({"type": "challenge", "seat": 1})
    s.refuse({"type": "announce", "seat": 1, "text": "7 + 1 = 8"}, "card_unavailable")
    s.refuse({"type": "announce", "seat": 0, "text": "2 + 3 = 5"}, "not_your_turn")
    assert s.state.phase == "challenge"
    s.announce(1, "2 + 3 = 5")
    assert sorted(s.pile(1)) == [2, 3, 5]


def test_challenger_running_out_of_time_loses(scene):
    # R5.3 — running out of time counts as no valid operation
    s = scene(table=[2, 3, 5], draw=[8], piles={2: [6, 7, 9, 10]}, challenge_time=30)
    s.announce(0, "2 + 5 = 3")
    s.play({"type": "challenge", "seat": 2})
    assert s.state.timer == {"kind": "challenge", "seconds": 30, "seat": 2, "id": s.state.version}
    events = s.play({"type": "timeout", "kind": "challenge"})
    assert s.first(events, "challenge_ruled")["reason"] == "timeout"
    assert s.state.skips[2] == 1 and len(s.pile(0)) == 3


def test_challenger_may_give_up(scene):
    # R5.3 — a challenger who finds nothing says so: no valid operation
    s = scene(table=[2, 3, 5], draw=[8], piles={1: [6]})
    s.announce(0, "2 + 5 = 3")
    s.play({"type": "challenge", "seat": 1})
    events = s.nothing(1)
    assert s.first(events, "challenge_ruled")["outcome"] == "false"


def test_right_challenge_on_a_false_nothing_to_do(scene):
    # R5.4 — "nothing to do" was false and the challenger's operation is correct
    s = scene(table=[2, 3, 5], draw=[4, 9, 10])
    s.nothing(0)
    s.play({"type": "challenge", "seat": 1})
    events = s.announce(1, "2 + 3 = 5")
    assert s.first(events, "nothing_ruled")["was_true"] is False
    assert s.first(events, "challenge_ruled")["outcome"] == "right"
    assert s.state.skips[0] == 1 and s.state.active == 1


def test_true_nothing_to_do_challenged_is_ruled_false_at_once(scene):
    # R5.5 — the "nothing to do" was true for the challenged player's cards
    s = scene(table=[4, 9, 10], draw=[7], piles={1: [0, 1, 2, 3, 5]})
    s.nothing(0)
    events = s.play({"type": "challenge", "seat": 1})
    ruled = s.first(events, "challenge_ruled")
    assert ruled["outcome"] == "false" and ruled["reason"] == "true_nothing" and ruled["immediate"]
    assert s.first(events, "cards_given")["count"] == 3
    assert s.state.active == 2 and s.state.skips[1] == 0  # B skipped at once; C turns up
    assert {"type": "skipped", "seat": 1} in events


def test_german_setting_four_cards_for_a_true_nothing(scene):
    # R5.5 — setting (German edition): the challenger gives 4 cards after a true "nothing"
    s = scene(table=[4, 9, 10], draw=[7], piles={1: [0, 1, 2, 3, 5]}, nothing_true_penalty=4)
    s.nothing(0)
    events = s.play({"type": "challenge", "seat": 1})
    assert s.first(events, "cards_given")["count"] == 4 and s.pile(1) == [0]


def test_the_true_nothing_is_judged_on_the_challenged_players_own_cards(scene):
    # R5.5 — B holds a 5 (R7.4): B could play, but A's "nothing" was true for A's cards
    s = scene(table=[4, 9, 10], draw=[7], held={1: [5]})
    s.nothing(0)
    events = s.play({"type": "challenge", "seat": 1})
    assert s.first(events, "challenge_ruled")["reason"] == "true_nothing"


def test_first_call_wins_and_later_calls_are_too_late(scene):
    # R5.1 — of several calls, the first the server receives wins
    s = scene(table=[2, 3, 5], draw=[4])
    s.announce(0, "2 + 5 = 3")
    s.play({"type": "challenge", "seat": 2})
    s.refuse({"type": "challenge", "seat": 1}, "too_late")
    s.refuse({"type": "ok", "seat": 1}, "wrong_phase")


def test_window_answers(scene):
    # R5.1 — the others answer; the announcer cannot answer their own announcement
    s = scene(table=[2, 3, 5], draw=[4, 9, 10])
    s.announce(0, "2 + 3 = 5")
    s.refuse({"type": "challenge", "seat": 0}, "own_announcement")
    s.refuse({"type": "ok", "seat": 0}, "own_announcement")
    s.refuse({"type": "nothing", "seat": 0}, "wrong_phase")
    s.refuse({"type": "announce", "seat": 0, "text": "2 + 3 = 5"}, "wrong_phase")
    s.play({"type": "ok", "seat": 1})
    s.refuse({"type": "ok", "seat": 1}, "already_answered")
    s.refuse({"type": "challenge", "seat": 1}, "already_answered")
    assert s.state.phase == "window"  # C has not answered yet
    s.play({"type": "ok", "seat": 2})
    assert s.state.phase == "turn"


def test_window_view_does_not_reveal_the_verdict(scene):
    # R5.1 — while the window is open, nobody is told whether the announcement is right
    s = scene(table=[2, 3, 5], draw=[4])
    s.announce(0, "2 + 5 = 3")
    for seat in (None, 0, 1, 2):
        view = seat_view(s.state, seat)
        text = json.dumps(view)
        assert "wrong_result" not in text and "verdict" not in text
        assert not {"ok", "code", "operation", "verdict"} & set(view["pending"])
        assert view["pending"]["text"] == "2 + 5 = 3"
    events = s.ok_all()
    assert s.first(events, "verdict")["ok"] is False  # revealed once the window closes


def test_the_announced_event_does_not_reveal_the_verdict(scene):
    # R5.1 — the "announced" event reaches every player during the window
    s = scene(table=[2, 3, 5], draw=[4])
    events = s.announce(0, "2 + 5 = 3")
    assert s.types(events) == ["announced", "window_opened"]
    assert "ok" not in events[0] and "code" not in events[0]


def test_challenges_off_the_engine_referees_alone(scene):
    # R5.6, R4.6 — window 0: no challenge; a wrong operation is shown and the turn passes
    s = scene(table=[2, 3, 5], draw=[4], challenge_window=0)
    events = s.announce(0, "2 + 5 = 3")
    assert s.types(events)[:2] == ["announced", "verdict"]
    assert s.state.active == 1 and s.state.phase == "turn"
    s.refuse({"type": "challenge", "seat": 2}, "wrong_phase")


def test_lesson_after_an_unchallenged_false_nothing(scene):
    # R5.6 — show everyone an operation that was possible (default on at tier 1)
    s = scene(table=[2, 3, 5], draw=[4])
    s.nothing(0)
    events = s.ok_all()
    lesson = s.first(events, "lesson")
    assert lesson["seat"] == 0 and sorted(lesson["operation"]["values"]) == [2, 3, 5]


def test_lesson_with_challenges_off_and_the_setting(scene):
    # R5.6 — also when challenges are off; the setting turns it off; off by default at tier 2
    on = scene(table=[2, 3, 5], draw=[4], challenge_window=0)
    assert "lesson" in on.types(on.nothing(0))
    off = scene(table=[2, 3, 5], draw=[4], challenge_window=0, lesson=False)
    assert "lesson" not in off.types(off.nothing(0))
    tier2 = scene(table=[2, 3, 5], draw=[4], challenge_window=0, tier=2)
    assert "lesson" not in tier2.types(tier2.nothing(0))


def test_no_lesson_after_a_true_nothing(scene):
    # R5.6 — a lesson only when there was something to do
    s = scene(table=[4, 9, 10], draw=[7], challenge_window=0)
    assert "lesson" not in s.types(s.nothing(0))


def test_a_right_challenge_during_a_challengers_run_keeps_where_play_resumes(scene):
    # R5.4 — C wins a right challenge against A and plays on; D then rightly challenges C's
    # wrong announcement. When D says "nothing to do", play goes to whoever would have been
    # next after C's run: B, the player after A — not D again.
    s = scene(table=[2, 3, 5, 1, 6, 7], draw=[8, 9, 10, 0, 4], players=4)
    s.nothing(0)
    s.play({"type": "challenge", "seat": 2})
    s.announce(2, "2 + 3 = 5")
    assert s.state.active == 2 and s.table == [1, 6, 7, 8]
    s.announce(2, "1 + 6 = 8")
    s.play({"type": "challenge", "seat": 3})
    s.announce(3, "1 + 6 = 7")
    assert s.state.active == 3 and s.state.skips == [1, 0, 1, 0]
    s.nothing(3)
    events = s.ok_all()
    assert s.first(events, "turn")["seat"] == 1 and s.state.active == 1


def test_two_players_right_challenge_never_gives_three_turns_in_a_row(scene):
    # R5.4 — with two players the seat after the challenged one is the challenger: their
    # play-on was their turn. B plays on, A skips, B plays again, then A plays.
    s = scene(table=[2, 3, 5], draw=[4, 9, 10, 7, 8, 6, 1, 0], players=2)
    s.announce(0, "2 + 5 = 3")
    s.play({"type": "challenge", "seat": 1})
    s.announce(1, "2 + 3 = 5")
    assert s.state.active == 1 and s.state.skips == [1, 0]  # B plays on
    s.nothing(1)
    events = s.ok_all()
    assert {"type": "skipped", "seat": 0} in events  # A skips ...
    turns = [e["seat"] for e in events if e["type"] == "turn"]
    assert turns == [1] and s.state.active == 1  # ... and B plays again: its second turn
    s.nothing(1)
    s.ok_all()
    assert s.state.active == 0  # never a third


def test_right_challenge_by_the_next_seat_sends_play_after_the_challenger(scene):
    # R5.4 — three players: B (next after A) challenges A rightly and plays on; then C plays,
    # not B again
    s = scene(table=[2, 3, 5], draw=[4, 9, 10, 7, 8, 6, 1, 0])
    s.announce(0, "2 + 5 = 3")
    s.play({"type": "challenge", "seat": 1})
    s.announce(1, "2 + 3 = 5")
    s.nothing(1)
    s.ok_all()
    assert s.state.active == 2
    s.nothing(2)
    events = s.ok_all()
    assert {"type": "skipped", "seat": 0} in events and s.state.active == 1
