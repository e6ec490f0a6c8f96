"""The end of the game, the settlements and the score (R6)."""

from __future__ import annotations

from games.engine.game import score_of


def test_game_ends_when_the_pile_is_empty_and_nobody_can_play(scene):
    # R6.1 — draw pile empty and no operation with the table and anyone's held cards
    s = scene(table=[2, 3, 5, 9], draw=[], rest=1)
    events = s.announce(0, "2 + 3 = 5") + s.ok_all()
    over = s.first(events, "game_over")
    assert over["reason"] == "no_operation" and s.state.phase == "over"
    assert s.state.timer is None and s.table == [9]  # nobody holds UNAN: the 9 stays
    assert over["scores"] == [3, 14, 0] and over["places"] == [2, 1, 3]


def test_game_goes_on_while_a_player_can_play_with_held_cards(scene):
    # R6.1 — a held card can still make an operation: not over yet
    s = scene(table=[4, 9, 10], draw=[], held={0: [5]}, rest=1, players=2, active=1)
    s.nothing(1)
    s.ok_all()
    assert s.state.phase == "turn" and s.state.active == 0
    s.announce(0, "4 + 5 = 9")
    s.ok_all()
    assert s.state.phase == "over"


def test_game_ends_when_everyone_in_turn_said_nothing(scene):
    # R6.1 — pile empty, every player in turn said "nothing to do", no challenge changed anything
    s = scene(table=[2, 3, 5], draw=[], rest=1, players=2, challenge_window=0, lesson=False)
    s.nothing(0)
    assert s.state.phase == "turn" and s.state.active == 1
    events = s.nothing(1)
    assert s.first(events, "game_over")["reason"] == "all_said_nothing"
    assert s.table == [2, 3, 5]


def test_a_trick_restarts_the_round_of_nothing(scene):
    # R6.1 — "in turn": a trick won in between starts the count again
    s = scene(
        table=[1, 2, 3, 4, 5, 9], draw=[], rest=1, players=2, challenge_window=0, lesson=False
    )
    s.nothing(0)
    s.announce(1, "1 + 2 = 3")
    s.nothing(1)
    assert s.state.phase == "turn" and s.state.active == 0


def test_settlements_in_order_unan_then_daou_then_pemp(scene):
    # R6.2 — UNAN takes the table first, the event cards join the pile, then DAOU and PEMP
    # are paid: the payments can use the table's cards and the event cards themselves
    s = scene(table=[4, 9, 10], draw=[], events={1: ["UNAN", "DAOU", "PEMP"]}, rest=0)
    s.nothing(0)
    events = s.ok_all()
    over = s.first(events, "game_over")
    kinds = [(x["kind"], x.get("to"), x["count"]) for x in over["settlements"]]
    # 3 table cards + 3 event cards = 6: DAOU pays 5 to seat 0, PEMP the last one to seat 2
    assert kinds == [("unan", None, 3), ("daou", 0, 5), ("pemp", 2, 1), ("pemp", 0, 0)]
    assert s.pile(1) == []
    assert over["scores"] == [12 + 5, 0, 1]


def test_held_cards_join_the_pile_before_daou_is_paid(scene):
    # R6.2 — a held row no longer shelters cards from the DAOU payment; the trick laid on
    # PEVAR is never taken
    s = scene(table=[9, 10], draw=[], held={0: [5, 7]}, events={0: ["DAOU"]}, rest=1)
    laid = s.state.piles[1][:3]
    s.state.piles[1] = s.state.piles[1][3:]
    s.state.laid[0] = {"pevar": list(laid)}
    s.nothing(0)
    over = s.first(s.ok_all(), "game_over")
    daou = [x for x in over["settlements"] if x["kind"] == "daou"]
    # seat 0's pile is 5, 7 and DAOU: all three go to the right-hand neighbour, seat 2
    assert [(x["to"], x["count"]) for x in daou] == [(2, 3)]
    assert sorted(map(str, s.pile(2))) == ["5", "7", "DAOU"]
    assert s.state.piles[0] == [] and s.state.laid[0]["pevar"] == laid
    assert over["scores"][0] == 2 * 3  # the PEVAR trick, counted double (R6.3)


def test_pemp_is_paid_from_the_pile_never_from_the_pemp_trick(scene):
    # R6.2 — "payments never take cards from the tricks laid on PEVAR or PEMP"
    s = scene(table=[9, 10], draw=[], events={2: ["PEMP", "CHWECH"]}, rest=1)
    laid = s.state.piles[1][:2]
    s.state.piles[1] = s.state.piles[1][2:]
    s.state.laid[2] = {"pemp": list(laid)}
    s.nothing(0)
    over = s.first(s.ok_all(), "game_over")
    pemp = [(x["to"], x["count"]) for x in over["settlements"] if x["kind"] == "pemp"]
    assert pemp == [(0, 2), (1, 0)]  # PEMP and C'HWEC'H, the only cards of seat 2's pile
    assert s.state.piles[2] == [] and s.state.laid[2]["pemp"] == laid
    assert over["scores"][2] == 1  # half of the two-card PEMP trick


def test_daou_and_pemp_settlements_in_a_played_game(scene):
    # R6.2 — unused DAOU and PEMP, after a game that was played to the end; DAOU and PEMP
    # join their holders' piles before the payments
    s = scene(table=[1, 2, 3, 4, 5, 9], draw=[], events={0: ["DAOU"], 2: ["PEMP"]}, rest=2)
    s.announce(0, "1 + 2 = 3")
    s.ok_all()
    s.announce(0, "4 + 5 = 9")
    events = s.ok_all()
    over = s.first(events, "game_over")
    daou = [x for x in over["settlements"] if x["kind"] == "daou"]
    assert daou == [{"kind": "daou", "seat": 0, "to": 2, "cards": daou[0]["cards"], "count": 5}]
    pemp = [(x["to"], x["count"]) for x in over["settlements"] if x["kind"] == "pemp"]
    assert pemp == [(0, 2), (1, 2)]  # from C, starting with the next seat
    assert over["scores"] == [6 - 5 + 2 + 1, 2, 10 + 5 - 4 + 1]


def test_score_counts_piles_pevar_and_pemp(scene):
    # R6.3 — one point a card, the PEVAR trick again, minus half the PEMP trick
    s = scene(table=[4, 9, 10], draw=[], piles={0: [0, 1]}, rest=2)
    state = s.state
    state.laid[0] = {"pevar": [2, 3, 5, 6], "pemp": []}
    state.laid[1] = {"pemp": [7, 8]}
    state.piles[2] = [c for c in state.piles[2] if c not in (2, 3, 5, 6, 7, 8)]
    assert score_of(state, 0) == 2 + 4 + 4
    assert score_of(state, 1) == 2 - 1


def test_equal_scores_share_the_place(scene):
    # R6.3 — the highest score wins; equal scores share the place
    s = scene(table=[4, 9, 10], draw=[], piles={0: [0, 1, 2], 1: [3, 5, 6]}, rest=2)
    s.nothing(0)
    events = s.ok_all()
    over = s.first(events, "game_over")
    assert over["scores"][0] == over["scores"][1] == 3
    assert over["places"] == [2, 2, 1]


def test_scores_and_places_come_from_the_engine_at_any_moment(scene):
    # R6.3 — one function for the score (live or final) and one for the places; a seat view
    # carries the same score, so no page computes it again
    from games.engine import ranks_of, scores_of, seat_view

    s = scene(table=[4, 9, 10], draw=[1], piles={0: [0, 2]}, held={1: [3]}, events={2: ["PEVAR"]})
    s.state.laid[0] = {"pevar": [5, 6]}
    s.state.draw = [c for c in s.state.draw if c not in (5, 6)]
    assert scores_of(s.state) == [2 + 2 * 2, 1, 1]  # held and event cards count one each
    assert [seat["score"] for seat in seat_view(s.state, None)["seats"]] == scores_of(s.state)
    assert ranks_of([6, 1, 1]) == [1, 2, 2] and ranks_of([3, 3, 5]) == [2, 2, 1]
    assert ranks_of([]) == []


def test_an_unchallenged_wrong_operation_counts_as_nothing_for_the_end(scene):
    # R6.1, R4.6 — with the draw pile empty, a wrong operation nobody challenged counts as
    # saying "nothing to do": once the other player passes too, the game is over
    s = scene(table=[2, 3, 5, 9], draw=[], rest=1, players=2, challenge_window=0, lesson=False)
    events = s.announce(0, "2 + 5 = 9")
    assert s.first(events, "verdict")["code"] == "wrong_result"
    assert s.state.phase == "turn" and s.state.active == 1 and s.state.passes == [0]
    events = s.nothing(1)
    assert s.first(events, "game_over")["reason"] == "all_said_nothing"
    assert s.table == [2, 3, 5, 9]
