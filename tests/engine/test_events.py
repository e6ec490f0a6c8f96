"""The six event cards (R7): UNAN, DAOU, TRI, PEVAR, PEMP, C'HWEC'H."""

from __future__ import annotations

from games.engine.game import score_of


def test_event_card_turned_up_during_a_refill_goes_to_the_winner(scene):
    # R4.2, R7.1 — after a trick, an event card turned up is the winner's; another replaces it
    s = scene(table=[2, 3, 5, 9, 10], draw=["PEVAR", 4])
    s.announce(0, "2 + 3 = 5")
    s.ok_all()
    assert s.events_row(0) == ["PEVAR"] and s.table == [9, 10, 4]


def test_unan_takes_the_cards_left_on_the_table(scene):
    # R7.2, R6.2 — at the end the UNAN holder takes the table; UNAN counts one in the pile
    s = scene(table=[4, 9, 10], draw=[], events={1: ["UNAN"]}, rest=0)
    s.nothing(0)
    events = s.ok_all()
    over = s.first(events, "game_over")
    assert over["settlements"][0] == {
        "kind": "unan",
        "seat": 1,
        "cards": s.state.piles[1][:3],
        "count": 3,
    }
    assert sorted(map(str, s.pile(1))) == ["10", "4", "9", "UNAN"]
    assert s.table == []
    assert over["scores"] == [14, 4, 0]


def test_daou_gives_the_trick_to_the_right_hand_neighbour(scene):
    # R7.3 — the trick goes to the previous seat; DAOU goes to the holder's pile
    s = scene(table=[2, 3, 5], draw=[4, 9, 10], events={0: ["DAOU"]})
    s.announce(0, "2 + 3 = 5", place="daou")
    events = s.ok_all()
    won = s.first(events, "trick_won")
    assert won["placed"] == "daou" and won["to"] == 2
    assert sorted(s.pile(2)) == [2, 3, 5] and s.pile(0) == ["DAOU"]
    assert s.events_row(0) == []
    assert s.state.active == 0  # the holder still won the trick and plays on (R4.4)


def test_daou_can_give_a_trick_won_by_a_challenge(scene):
    # R7.3 — "when its holder wins a trick": a right challenge wins one too
    s = scene(table=[2, 3, 5], draw=[4, 9, 10], events={2: ["DAOU"]})
    s.announce(0, "2 + 5 = 3")
    s.play({"type": "challenge", "seat": 2})
    s.announce(2, "2 + 3 = 5", place="daou")
    assert sorted(s.pile(1)) == [2, 3, 5] and s.pile(2) == ["DAOU"]


def test_a_place_needs_its_event_card(scene):
    # R7.3, R7.5, R7.6 — no DAOU / PEVAR / PEMP in front of you: the place is refused
    s = scene(table=[2, 3, 5], draw=[4], events={1: ["DAOU", "PEVAR"]})
    for place in ("daou", "pevar", "pemp"):
        s.refuse(
            {"type": "announce", "seat": 0, "text": "2 + 3 = 5", "place": place},
            "place_unavailable",
        )
    s.refuse(
        {"type": "announce", "seat": 0, "text": "2 + 3 = 5", "place": "floor"}, "place_unknown"
    )


def test_daou_unused_at_the_end_costs_five_cards(scene):
    # R6.2 — an unused DAOU costs its holder 5 cards to the right-hand neighbour, paid once
    # DAOU itself has joined the pile (the last cards of the pile go first)
    s = scene(
        table=[4, 9, 10], draw=[], events={1: ["DAOU"]}, piles={1: [0, 1, 2, 3, 5, 6, 7]}, rest=2
    )
    s.nothing(0)
    events = s.ok_all()
    settlement = s.first(events, "game_over")["settlements"][0]
    assert settlement["kind"] == "daou" and settlement["to"] == 0 and settlement["count"] == 5
    assert sorted(map(str, s.pile(0))) == ["3", "5", "6", "7", "DAOU"]
    assert s.pile(1) == [0, 1, 2]


def test_tri_takes_a_random_card_from_every_other_pile(scene):
    # R7.4 — one random card from each other player who has a pile; TRI to the pile at once
    s = scene(table=[4, 9, 10], draw=["TRI", 1], piles={0: [6, 7], 2: [8]})
    s.nothing(0)
    events = s.ok_all()
    took = [e for e in events if e["type"] == "tri_took"]
    assert [(e["from"], e["seat"]) for e in took] == [(2, 1), (0, 1)]  # in seat order after B
    assert s.held(1)[0] == 8 and s.held(1)[1] in (6, 7)
    assert s.pile(1) == ["TRI"] and s.events_row(1) == []
    assert s.table == [4, 9, 10, 1]  # another card in TRI's place (R4.2)


def test_tri_with_empty_piles_takes_nothing(scene):
    # R7.4 — only from players who have a pile
    s = scene(table=[4, 9, 10], draw=["TRI", 1])
    s.nothing(0)
    events = s.ok_all()
    assert "tri_took" not in s.types(events) and s.pile(1) == ["TRI"]


def test_held_cards_are_usable_by_their_holder_only(scene):
    # R7.4, R3.1 — held cards join the holder's trick; nobody else may use them
    s = scene(table=[1, 9, 5], draw=[4, 2, 3], held={1: [8, 6]})
    s.refuse({"type": "announce", "seat": 0, "text": "1 + 8 = 9"}, "card_unavailable")
    s.nothing(0)
    s.ok_all()
    s.announce(1, "1 + 8 = 9")
    s.ok_all()
    assert sorted(s.pile(1)) == [1, 8, 9] and s.held(1) == [6]
    assert s.table == [5, 4, 2]
    events = s.nothing(1) + s.ok_all()  # 4 + 2 = 6 was possible with the held 6
    assert s.first(events, "nothing_ruled")["was_true"] is False
    s.nothing(2)
    s.play({"type": "challenge", "seat": 0})
    s.refuse({"type": "announce", "seat": 0, "text": "4 + 2 = 6"}, "card_unavailable")


def test_unused_held_cards_join_the_pile_at_the_end(scene):
    # R7.4, R6.2 — held cards count in their owner's pile
    s = scene(table=[4, 9, 10], draw=[], held={1: [7]}, rest=0)
    s.nothing(0)
    events = s.ok_all()
    assert s.first(events, "game_over")["scores"][1] == 1 and s.pile(1) == [7]


def test_pevar_trick_counts_double(scene):
    # R7.5, R6.3 — the trick laid on PEVAR counts again; PEVAR counts one
    s = scene(table=[1, 2, 3, 6], draw=[0, 4, 9], events={0: ["PEVAR"]})
    s.announce(0, "1 + 2 + 3 = 6", place="pevar")
    s.ok_all()
    assert sorted(s.state.laid[0]["pevar"]) == [1, 2, 3, 6]
    assert s.pile(0) == ["PEVAR"]
    assert score_of(s.state, 0) == 1 + 2 * 4


def test_pevar_used_once_only(scene):
    # R7.5 — once used, PEVAR can't be used again
    s = scene(table=[1, 2, 3, 4, 5, 9], draw=[0, 7, 8], events={0: ["PEVAR"]})
    s.announce(0, "1 + 2 = 3", place="pevar")
    s.ok_all()
    assert s.table == [4, 5, 9, 0]
    s.refuse(
        {"type": "announce", "seat": 0, "text": "4 + 5 = 9", "place": "pevar"}, "place_unavailable"
    )


def test_pemp_takes_even_tricks_only_and_counts_half(scene):
    # R7.6, R6.3 — an even-size trick may be laid on PEMP; it counts half
    s = scene(table=[1, 2, 3, 5, 6], draw=[0, 4, 9], events={0: ["PEMP"]})
    s.refuse(
        {"type": "announce", "seat": 0, "text": "1 + 2 = 3", "place": "pemp"}, "place_odd_trick"
    )
    s.announce(0, "1 + 2 + 3 = 6", place="pemp")
    s.ok_all()
    assert sorted(s.state.laid[0]["pemp"]) == [1, 2, 3, 6] and s.pile(0) == ["PEMP"]
    assert score_of(s.state, 0) == 1 + 4 - 2


def test_pemp_unused_costs_two_cards_to_each_other_player(scene):
    # R6.2 — an unused PEMP: 2 cards to each other player, fewer when the pile runs out;
    # PEMP joins the pile first, so it is paid too
    s = scene(table=[4, 9, 10], draw=[], events={1: ["PEMP"]}, piles={1: [1, 2, 3]}, rest=0)
    s.nothing(0)
    events = s.ok_all()
    pemp = [x for x in s.first(events, "game_over")["settlements"] if x["kind"] == "pemp"]
    assert [(x["to"], x["count"]) for x in pemp] == [(2, 2), (0, 2)]
    assert s.pile(1) == []


def test_pemp_turned_up_last_still_costs(scene):
    # R6.2 — "even if PEMP was turned up last"
    s = scene(table=[4, 9, 10], draw=["PEMP"], piles={1: [1, 2, 3, 5]}, rest=0)
    s.nothing(0)
    events = s.ok_all()
    assert s.state.phase == "over"
    pemp = [x for x in s.first(events, "game_over")["settlements"] if x["kind"] == "pemp"]
    assert pemp and pemp[0]["seat"] == 1 and sum(x["count"] for x in pemp) == 4


def test_at_most_one_event_card_per_trick(scene):
    # R7.1 — one place per trick: the other event cards stay in front of the player
    s = scene(table=[1, 2, 3, 6], draw=[5, 4, 9], events={0: ["PEVAR", "PEMP", "DAOU"]})
    s.announce(0, "1 + 2 + 3 = 6", place="pemp")
    s.ok_all()
    assert s.events_row(0) == ["PEVAR", "DAOU"] and list(s.state.laid[0]) == ["pemp"]
    s.refuse(
        {"type": "announce", "seat": 0, "text": "5 + 4 = 9", "place": ["pevar", "daou"]},
        "place_unknown",
    )


def test_chwech_second_chance_correct_calls_the_challenge_off(scene):
    # R7.7, R5.2 — correct: the trick is won, C'HWEC'H joins the pile, no penalty for anyone
    s = scene(table=[2, 3, 5], draw=[4, 9, 10], events={0: ["CHWECH"]}, piles={1: [6, 7, 8]})
    s.announce(0, "2 + 5 = 3")
    s.play({"type": "challenge", "seat": 1})
    assert s.state.phase == "chwech_offer" and s.state.timer["kind"] == "chwech"
    s.refuse({"type": "announce", "seat": 1, "text": "2 + 3 = 5"}, "wrong_phase")
    s.refuse({"type": "chwech", "seat": 1, "use": True}, "not_your_turn")
    s.refuse({"type": "chwech", "seat": 0, "use": "yes"}, "bad_move")
    s.play({"type": "chwech", "seat": 0, "use": True})
    assert s.state.phase == "chwech_announce"
    events = s.announce(0, "2 + 3 = 5")
    ruled = s.first(events, "challenge_ruled")
    assert ruled["outcome"] == "called_off"
    assert sorted(map(str, s.pile(0))) == ["2", "3", "5", "CHWECH"]
    assert s.pile(1) == [6, 7, 8] and s.state.skips == [0, 0, 0]
    assert s.state.phase == "turn" and s.state.active == 0 and s.table == [4, 9, 10]


def test_chwech_second_chance_wrong_goes_to_the_challenger(scene):
    # R7.7 — wrong: C'HWEC'H goes to the challenger and the challenge goes on (R5.3)
    s = scene(table=[2, 3, 5], draw=[4, 9, 10], events={0: ["CHWECH"]})
    s.announce(0, "2 + 5 = 3")
    s.play({"type": "challenge", "seat": 1})
    s.play({"type": "chwech", "seat": 0, "use": True})
    s.announce(0, "3 + 5 = 2")
    assert s.pile(1) == ["CHWECH"] and s.state.phase == "challenge"
    s.announce(1, "2 + 3 = 5")
    assert sorted(map(str, s.pile(1))) == ["2", "3", "5", "CHWECH"] and s.state.skips[0] == 1


def test_chwech_declined_or_timed_out_keeps_the_card(scene):
    # R7.7 — unused, it stays in front of its holder; the challenge goes on
    s = scene(table=[2, 3, 5], draw=[4], events={0: ["CHWECH"]})
    s.announce(0, "2 + 5 = 3")
    s.play({"type": "challenge", "seat": 1})
    s.play({"type": "timeout", "kind": "chwech"})
    assert s.state.phase == "challenge" and s.events_row(0) == ["CHWECH"]


def test_chwech_not_offered_when_the_challenge_is_false_at_once(scene):
    # R5.5, R7.7 — a correct announcement needs no second chance
    s = scene(table=[2, 3, 5], draw=[4, 9, 10], events={0: ["CHWECH"]})
    s.announce(0, "2 + 3 = 5")
    s.play({"type": "challenge", "seat": 1})
    assert s.state.phase == "turn" and s.events_row(0) == ["CHWECH"]


def test_chwech_after_a_false_nothing(scene):
    # R7.7 — the holder of a false "nothing to do" may also announce again
    s = scene(table=[2, 3, 5], draw=[4, 9, 10], events={0: ["CHWECH"]})
    s.nothing(0)
    s.play({"type": "challenge", "seat": 2})
    s.play({"type": "chwech", "seat": 0, "use": True})
    s.announce(0, "2 + 3 = 5")
    assert s.state.active == 0 and s.state.skips == [0, 0, 0] and s.pile(2) == []


def test_tri_may_draw_an_event_card_into_the_held_row(scene):
    # R7.4 — a card drawn with TRI may be an event card: it is held, shown as not playable,
    # and counts one at the end like any held card
    from games.engine.game import player_operation, score_of
    from games.engine.visibility import seat_view

    s = scene(table=[4, 9, 10], draw=["TRI", 2], piles={0: ["CHWECH"]})
    s.nothing(0)
    s.ok_all()
    assert s.held(1) == ["CHWECH"] and s.events_row(1) == []
    shown = seat_view(s.state, 1)["seats"][1]["held"]
    assert [(c["kind"], c["event"]) for c in shown] == [("event", "CHWECH")]
    assert player_operation(s.state, 1) is None  # 4, 9, 10, 2 and a held event card: nothing
    s.refuse({"type": "announce", "seat": 1, "text": "4 + 6 = 10"}, "card_unavailable")
    assert score_of(s.state, 1) == 2  # TRI in the pile, C'HWEC'H held
