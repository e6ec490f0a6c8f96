"""games.services: creating games at the right level, moves applied once, timers, bots, records."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import engine, services
from games.models import Game, Move, Play, Seat
from games.tasks import sweep_due_games
from tests import factories
from tests.games.conftest import card, tokens

pytestmark = pytest.mark.django_db


def test_game_is_played_at_the_weakest_level_and_never_higher(make_game, anna, classroom):  # R2.3
    strong = factories.student(classroom=classroom, name="Zoé", number_range=20, tier=3)
    game = make_game([{"student": anna}, {"student": strong}], start=False)
    assert game.config["rules"]["max_number"] == 10 and game.config["rules"]["tier"] == 1
    with pytest.raises(services.GameError) as exc:
        make_game([{"student": anna}, {"student": strong}], tier=2)
    assert exc.value.code == "level_too_high"
    assert "weakest" in exc.value.message
    assert Game.objects.count() == 1


def test_teacher_may_set_a_game_lower_than_the_players(make_game, classroom):  # R2.3
    a = factories.student(classroom=classroom, name="A", number_range=20, tier=3)
    b = factories.student(classroom=classroom, name="B", number_range=20, tier=2)
    game = make_game([{"student": a}, {"student": b}], max_number=10, tier=1, start=False)
    assert (game.config["rules"]["max_number"], game.config["rules"]["tier"]) == (10, 1)


def test_bad_players_are_refused(make_game, anna, other_school):
    with pytest.raises(services.GameError) as exc:
        make_game([{"student": anna}])
    assert exc.value.code == "players_count"
    with pytest.raises(services.GameError) as exc:
        make_game([{"student": anna}, {"student": anna}])
    assert exc.value.code == "player_twice"
    with pytest.raises(services.GameError) as exc:
        make_game([{"student": anna}, {"bot": "genius"}])
    assert exc.value.code == "bot_unknown"
    foreign = factories.student(classroom=factories.classroom(school=other_school), name="F")
    with pytest.raises(services.GameError) as exc:
        make_game([{"student": anna}, {"student": foreign}])
    assert exc.value.code == "player_unknown"
    with pytest.raises(services.GameError) as exc:
        make_game([{"student": anna}, {"bot": "easy"}], draw=[999])
    assert exc.value.code == "draw_order_invalid"
    assert Game.objects.count() == 0


def test_start_deals_the_opening_and_stamps_the_turn_clock(make_game, anna, bo, settings):
    settings.KAVET_FIRST_TURN_GRACE = 0  # R4.9: no wait for the first tablet (tested below)
    game = make_game([{"student": anna}, {"student": bo}], turn_time=120)
    assert game.status == Game.Status.RUNNING and game.version == 0
    state = engine.GameState.from_dict(game.state)
    assert state.table == [card(2), card(3), card(5)]
    left = (game.timer_deadline - timezone.now()).total_seconds()
    assert 115 < left <= 120
    with pytest.raises(services.GameError):
        services.game_start(game=game)


def test_a_right_announcement_wins_after_the_window_and_is_recorded(make_game, anna, bo):  # R4.4
    game = make_game([{"student": anna}, {"student": bo}])
    out = services.move_submit(
        game_id=game.pk,
        seat=0,
        seen_version=0,
        move={"type": "announce", "tokens": tokens(card(2), "+", card(3), "=", card(5))},
    )
    assert out.applied and out.game.version == 1
    assert Move.objects.get(game=game, number=1).payload["type"] == "announce"
    play = Play.objects.get(student=anna)
    assert play.kind == Play.Kind.ANNOUNCE and play.ok is True and play.n_cards == 3
    assert play.tier == 1 and play.number_range == 10 and play.reaction_ms is not None
    assert "addsub_10" in play.skills
    assert play.operation["result"] == 5
    out = services.move_submit(game_id=game.pk, seat=1, seen_version=1, move={"type": "ok"})
    assert out.applied
    assert any(e["type"] == "trick_won" and e["seat"] == 0 for e in out.events)
    state = engine.GameState.from_dict(out.game.state)
    assert sorted(state.piles[0]) == sorted([card(2), card(3), card(5)])


def test_a_stale_or_doubled_tap_is_never_a_second_move(make_game, anna, bo):
    game = make_game([{"student": anna}, {"student": bo}])
    first = services.move_submit(game_id=game.pk, seat=0, seen_version=0, move={"type": "nothing"})
    again = services.move_submit(game_id=game.pk, seat=0, seen_version=0, move={"type": "nothing"})
    assert first.applied and not again.applied
    assert again.refusal_code == "stale" and again.message
    assert again.game.version == 1
    assert Move.objects.filter(game=game).count() == 1
    assert Play.objects.filter(student=anna).count() == 1


def test_a_move_for_another_seat_is_refused_by_the_engine(make_game, anna, bo):
    game = make_game([{"student": anna}, {"student": bo}])
    out = services.move_submit(game_id=game.pk, seat=1, seen_version=0, move={"type": "nothing"})
    assert not out.applied and out.refusal_code == "not_your_turn"
    assert out.message == "It is not your turn."
    game.refresh_from_db()
    assert game.version == 0


def test_server_only_moves_cannot_be_sent_by_a_player(make_game, anna, bo):
    game = make_game([{"student": anna}, {"student": bo}])
    for move in ({"type": "timeout", "kind": "turn"}, {"type": "replace", "bot": "hard"}, {"x": 1}):
        out = services.move_submit(game_id=game.pk, seat=0, seen_version=0, move=move)
        assert not out.applied and out.refusal_code == "bad_move"
    assert Move.objects.filter(game=game).count() == 0


def test_a_card_not_on_the_table_is_refused_and_changes_nothing(make_game, anna, bo):  # R3.5
    game = make_game([{"student": anna}, {"student": bo}])
    before = dict(game.state)
    out = services.move_submit(
        game_id=game.pk,
        seat=0,
        seen_version=0,
        move={"type": "announce", "tokens": tokens(card(2), "+", card(3), "=", card(7))},
    )
    assert not out.applied and out.refusal_code == "card_unavailable"
    assert out.message == "That card is not on the table any more."
    game.refresh_from_db()
    assert game.version == 0 and game.state == before
    assert not Play.objects.exists()


def test_no_move_after_the_game_ended(make_game, anna, bo):
    game = make_game([{"student": anna}, {"student": bo}])
    services.game_end(game=game)
    out = services.move_submit(game_id=game.pk, seat=0, seen_version=0, move={"type": "nothing"})
    assert not out.applied and out.refusal_code == "game_over"
    game.refresh_from_db()
    assert game.status == Game.Status.ABANDONED and game.version == 0
    assert [s.place for s in game.seats.all()] == [1, 1]  # nobody won a card yet: shared place
    with pytest.raises(services.GameError):
        services.game_end(game=game)


def test_pause_stops_clocks_and_moves_then_resume_restarts_them(make_game, anna, bo):
    game = make_game([{"student": anna}, {"student": bo}])
    game = services.game_pause(game=game)
    assert game.timer_deadline is None
    out = services.move_submit(game_id=game.pk, seat=0, seen_version=0, move={"type": "nothing"})
    assert out.refusal_code == "paused"
    assert services.game_tick(game_id=game.pk, now=timezone.now() + timedelta(hours=1)) == 0
    game = services.game_resume(game=game)
    assert game.status == Game.Status.RUNNING and game.timer_deadline > timezone.now()


def test_false_nothing_challenged_right_then_recorded(make_game, anna, bo):  # R5.4
    game = make_game([{"student": anna}, {"student": bo}])
    services.move_submit(game_id=game.pk, seat=0, seen_version=0, move={"type": "nothing"})
    out = services.move_submit(game_id=game.pk, seat=1, seen_version=1, move={"type": "challenge"})
    assert out.applied
    out = services.move_submit(
        game_id=game.pk, seat=1, seen_version=2, move={"type": "announce", "text": "2 + 3 = 5"}
    )
    assert out.applied
    ruled = [e for e in out.events if e["type"] == "challenge_ruled"]
    assert ruled and ruled[0]["outcome"] == "right"
    nothing = Play.objects.get(student=anna, kind=Play.Kind.NOTHING)
    assert nothing.missed and nothing.missed_operation and nothing.challenge_outcome == "right"
    challenge = Play.objects.get(student=bo, kind=Play.Kind.CHALLENGE)
    assert challenge.challenge_outcome == "right" and challenge.reaction_ms is not None
    assert Play.objects.get(student=bo, kind=Play.Kind.ANNOUNCE).ok is True


def test_false_challenge_of_a_right_operation(make_game, anna, bo):  # R5.5
    game = make_game([{"student": anna}, {"student": bo}])
    services.move_submit(
        game_id=game.pk, seat=0, seen_version=0, move={"type": "announce", "text": "2 + 3 = 5"}
    )
    out = services.move_submit(game_id=game.pk, seat=1, seen_version=1, move={"type": "challenge"})
    ruled = [e for e in out.events if e["type"] == "challenge_ruled"]
    assert ruled[0]["outcome"] == "false"
    assert Play.objects.get(student=bo, kind=Play.Kind.CHALLENGE).challenge_outcome == "false"


def test_a_challenge_after_other_oks_still_answers_the_same_window(make_game, anna, bo, classroom):
    cleo = factories.student(classroom=classroom, name="Cléo")
    game = make_game([{"student": anna}, {"student": bo}, {"student": cleo}])
    services.move_submit(game_id=game.pk, seat=0, seen_version=0, move={"type": "nothing"})
    assert services.move_submit(
        game_id=game.pk, seat=2, seen_version=1, move={"type": "ok"}
    ).applied
    # Bo saw version 1; Cléo's OK made it 2. His challenge still counts (R5.1).
    out = services.move_submit(game_id=game.pk, seat=1, seen_version=1, move={"type": "challenge"})
    assert out.applied


def test_lesson_after_an_unchallenged_false_nothing(make_game, anna, bo):  # R5.6
    game = make_game([{"student": anna}, {"student": bo}])
    services.move_submit(game_id=game.pk, seat=0, seen_version=0, move={"type": "nothing"})
    out = services.move_submit(game_id=game.pk, seat=1, seen_version=1, move={"type": "ok"})
    lessons = [e for e in out.events if e["type"] == "lesson"]
    assert lessons and lessons[0]["operation"]["result"] in (5, 3, 2)
    assert Play.objects.get(student=anna).missed


def test_expired_timers_are_applied_by_the_tick_and_the_sweep(
    make_game, anna, bo, settings
):  # R4.9, R5.1
    settings.KAVET_FIRST_TURN_GRACE = 0
    game = make_game([{"student": anna}, {"student": bo}], turn_time=30, challenge_window=10)
    now = timezone.now()
    assert services.game_tick(game_id=game.pk, now=now) == 0
    assert services.game_tick(game_id=game.pk, now=now + timedelta(seconds=31)) == 1
    game.refresh_from_db()
    state = engine.GameState.from_dict(game.state)
    assert state.phase == "window"
    nothing = Play.objects.get(student=anna)
    # Stored without words (they are said in the reader's language), marked as a timeout.
    assert nothing.kind == Play.Kind.NOTHING and nothing.text == "" and nothing.code == "timeout"
    # The window closes through the periodic task too (it runs "now": move the deadline back).
    Game.objects.filter(pk=game.pk).update(timer_deadline=timezone.now() - timedelta(seconds=1))
    assert sweep_due_games() >= 1
    game.refresh_from_db()
    assert engine.GameState.from_dict(game.state).phase == "turn"
    assert engine.GameState.from_dict(game.state).active == 1


def test_computer_player_moves_when_due_and_not_before(make_game, anna):  # R8.2
    game = make_game([{"student": anna}, {"bot": "hard", "name": "Robo"}])
    services.move_submit(game_id=game.pk, seat=0, seen_version=0, move={"type": "nothing"})
    game.refresh_from_db()
    assert game.bot_due_at is not None
    assert services.game_tick(game_id=game.pk, now=game.bot_due_at - timedelta(seconds=0.2)) == 0
    applied = services.game_tick(game_id=game.pk, now=game.bot_due_at)
    assert applied >= 1
    move = Move.objects.filter(game=game, seat=1).first()
    assert move.payload["type"] == "challenge"  # hard challenges a false "nothing to do"
    assert not Play.objects.filter(kind=Play.Kind.CHALLENGE).exists()  # bots have no records


def test_a_whole_game_between_one_student_and_bots_ends_with_places(make_game, anna):  # R6
    game = make_game(
        [{"student": anna}, {"bot": "medium"}, {"bot": "hard"}],
        draw=[],
        turn_time=5,
        challenge_window=3,
    )
    factories.tick_to_end(game, timezone.now())
    assert game.status == Game.Status.FINISHED and game.finished_at
    seats = list(Seat.objects.filter(game=game))
    assert all(s.score is not None and s.place >= 1 for s in seats)
    assert min(s.place for s in seats) == 1
    final = engine.replay(
        engine.GameConfig.from_dict(game.config),
        game.seed,
        [m.payload for m in Move.objects.filter(game=game)],
        draw_order=game.draw_order,
    )
    assert final.to_dict() == game.state  # R9.2: the moves replay to the stored game


def test_replacing_an_absent_student_is_a_move_and_the_bot_plays_on(make_game, anna, bo):
    game = make_game([{"student": anna}, {"student": bo}])
    services.seat_replace_by_bot(game=game, position=0, strength="hard")
    game.refresh_from_db()
    assert game.version == 1 and Move.objects.get(game=game).payload["type"] == "replace"
    assert game.bot_due_at is not None
    out = services.move_submit(game_id=game.pk, seat=0, seen_version=1, move={"type": "nothing"})
    assert out.refusal_code == "bot_seat"
    assert services.game_tick(game_id=game.pk, now=game.bot_due_at) >= 1
    assert Move.objects.filter(game=game, seat=0).exclude(payload__type="replace").exists()


def test_the_seat_choices_are_the_engines_computer_strengths():
    """R8: one list of strengths, the engine's; the model only gives each its word."""
    from games.engine import BOT_STRENGTHS
    from games.models import Seat

    assert tuple(Seat.Bot.values) == tuple(BOT_STRENGTHS)
