"""Untimed games (R4.9 setting, WCAG 2.2.1): a teacher gives a child, or a whole class game, no
turn clock; the table waits for that child and says so."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse

from classgames import services as class_game_services
from classrooms.grouping import PlannedTable
from games import engine, services
from games.models import Game, Move
from tests import factories
from tests.flow_clock import held_clock

from .conftest import card, tokens

pytestmark = pytest.mark.django_db


def _config(**kw) -> engine.GameConfig:
    return engine.GameConfig(players=["Anna", "Bo"], **kw)


def test_an_untimed_seat_has_no_clock_of_its_own_and_the_others_keep_theirs():  # R4.9
    state = engine.new_game(_config(untimed=(0,)), seed=3, draw_order=[4, 6, 10, 0, 1])
    assert state.phase == "turn" and state.active == 0
    assert state.timer is None  # Anna's turn waits for her
    state, _events = engine.apply_move(
        state,
        {"type": "announce", "seat": 0, "tokens": tokens(card(2), "+", card(3), "=", card(5))},
    )
    assert state.phase == "window" and state.timer["kind"] == "window"  # R5.1 runs as usual
    state, _events = engine.apply_move(state, {"type": "ok", "seat": 1})
    state, _events = engine.apply_move(state, {"type": "nothing", "seat": 0})
    state, _events = engine.apply_move(state, {"type": "ok", "seat": 1})
    assert state.active == 1 and state.timer["kind"] == "turn"  # Bo's clock runs


def test_untimed_is_kept_with_the_game_and_refused_for_a_seat_not_at_the_table():
    config = _config(untimed=[1, 1])
    assert config.untimed == (1,)
    assert engine.GameConfig.from_dict(config.to_dict()).untimed == (1,)
    old = config.to_dict()
    del old["untimed"]  # a game stored before untimed games: every clock runs
    assert engine.GameConfig.from_dict(old).untimed == ()
    with pytest.raises(engine.EngineError) as refused:
        _config(untimed=(2,))
    assert refused.value.code == "config_invalid"


def test_a_child_given_untimed_games_plays_practice_without_a_turn_clock(client, classroom):
    anna = factories.student(classroom=classroom, name="Anna")
    anna.untimed = True
    anna.save()
    with held_clock() as clock:
        game, _deal = services.practice_create(student=anna, bots=2, strength="easy", seed=5)
        game = services.game_start(game=game)
        state = engine.GameState.from_dict(game.state)
        assert game.config["untimed"] == [0] and state.active == 0
        assert game.timer_deadline is None  # no clock: nothing can run out on Anna
        clock.advance_to(clock.now + timedelta(hours=1))
        assert services.game_tick(game_id=game.pk, now=clock.now) == 0
    assert not Move.objects.filter(game=game).exists()
    client.force_login(anna.user)
    html = client.get(reverse("games:table", args=[game.pk])).content.decode()
    assert "No clock for Anna: take your time." in html
    assert 'class="pic pic-clock-off"' in html
    assert 'role="timer"' not in html


def test_the_teacher_gives_untimed_games_on_the_childs_page(client, teacher, classroom):
    anna = factories.student(classroom=classroom, name="Anna")
    client.force_login(teacher)
    url = reverse("classrooms:student_edit", args=[classroom.pk, anna.pk])
    assert "Untimed games" in client.get(url).content.decode()
    answer = client.post(url, {"name": "Anna", "number_range": "10", "tier": "1", "untimed": "on"})
    assert answer.status_code == 302
    anna.refresh_from_db()
    assert anna.untimed is True
    client.post(url, {"name": "Anna", "number_range": "10", "tier": "1"})
    anna.refresh_from_db()
    assert anna.untimed is False


def test_a_class_game_can_be_untimed_and_an_untimed_child_keeps_it_at_a_timed_table(
    teacher, classroom
):
    anna = factories.student(classroom=classroom, name="Anna")
    bo = factories.student(classroom=classroom, name="Bo")
    anna.untimed = True
    anna.save()
    settings = {"challenge_window": 5, "challenge_time": 30, "turn_time": 60}
    session = class_game_services.class_session_start(
        classroom=classroom,
        tables=[PlannedTable(number=1, students=[anna, bo])],
        by=teacher,
        settings=settings,
    )
    game = session.games.get()
    assert game.config["untimed"] == [0]  # Anna's seat only: Bo's clock runs
    class_game_services.class_session_end(session=session, by=teacher)
    session = class_game_services.class_session_start(
        classroom=classroom,
        tables=[PlannedTable(number=1, students=[bo, anna])],
        by=teacher,
        settings={**settings, "untimed": True},
    )
    game = session.games.get()
    assert game.config["untimed"] == [0, 1]
    assert game.status == Game.Status.RUNNING and game.timer_deadline is None
