"""The operation builder's facts come from the engine (games/entry.py): what the table page
sends for the keys (R3.1) and the running results it answers as a child taps (R2.4)."""

from __future__ import annotations

import json
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from games.engine.entry import entry_table
from tests import factories
from tests.games.conftest import X_CARD, card, tokens

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def tablet(student) -> Client:
    client = Client()
    client.force_login(student.user)
    return client


def sent_table(html: str) -> dict:
    start = html.index('<template id="entry-table" data-table="')
    body = html[start:].split('data-table="', 1)[1].split('"', 1)[0]
    return json.loads(unescape(body))


def steps(client, game, items, x_values=None):
    return client.get(
        reverse("games:table_steps", args=[game.pk]),
        {"tokens": json.dumps(items), "x_values": json.dumps(x_values or {})},
    )


def test_the_page_sends_the_engines_table_and_the_steps_address(make_game, anna, bo) -> None:
    game = make_game([{"student": anna}, {"student": bo}])
    html = tablet(anna).get(reverse("games:table", args=[game.pk])).content.decode()
    assert sent_table(html) == entry_table()  # R3.1: the keys walk the engine's own table
    url = reverse("games:table_steps", args=[game.pk])
    assert f'class="steps expr-steps" data-url="{url}"' in html
    assert 'data-steps="1"' in html  # tier 1 shows the steps (R2.4)
    # No second grammar nor any arithmetic in the builder's script.
    script = open("static/js/table.js", encoding="utf-8").read()
    for gone in ("function grammar", "function steps", "Math.pow", "≈"):
        assert gone not in script


def test_the_table_is_outside_the_cached_board(make_game, anna, bo) -> None:
    # The board is cached per version and viewer (games/table_cache.py); the table is the same
    # for every game and board, so it comes once with the page, never with a board.
    game = make_game([{"student": anna}, {"student": bo}])
    board = tablet(anna).get(reverse("games:table", args=[game.pk]), {"v": 0}, **HX)
    assert board.status_code == 200
    assert "entry-table" not in board.content.decode()
    assert "expr-steps" in board.content.decode()


def test_the_steps_as_the_engine_computes_them(make_game, anna, bo) -> None:  # R2.4
    game = make_game([{"student": anna}, {"student": bo}])
    c = tablet(anna)
    answer = steps(c, game, tokens(card(2), "+", card(3)))
    assert answer.status_code == 200
    assert answer.json() == {"steps": ["2 + 3 = 5"]}
    assert steps(c, game, tokens(card(2), "+")).json() == {"steps": []}
    assert steps(c, game, tokens(card(5), "-", card(3), "+", card(2), "=", card(4))).json() == {
        "steps": ["5 − 3 = 2", "2 + 2 = 4"]  # as printed on the keys
    }
    assert steps(c, game, tokens(card(2), "+", X_CARD), {str(X_CARD): 7}).json() == {
        "steps": ["2 + 7 = 9"]
    }


def test_fractions_are_the_engines_not_decimals(school, classroom) -> None:  # R3.2
    from games import services

    ewen = factories.student(classroom=classroom, name="Ewen", tier=3)
    game = services.game_start(
        game=services.game_create(
            school=school,
            classroom=classroom,
            players=[{"student": ewen}, {"bot": "easy"}],
            settings={"show_steps": True},
            label="T3",
        )
    )
    c = tablet(ewen)
    assert steps(c, game, tokens(card(7), "/", card(2))).json() == {"steps": ["7 ÷ 2 = 7/2"]}
    assert steps(c, game, tokens(card(7), "/", card(2), "*", card(4))).json() == {
        "steps": ["7 ÷ 2 = 7/2", "7/2 × 4 = 14"]
    }


def test_only_a_player_of_the_game_and_only_where_steps_are_shown(make_game, anna, bo) -> None:
    game = make_game([{"student": anna}, {"student": bo}])
    other = factories.student(classroom=game.classroom, name="Ewen")
    assert steps(tablet(other), game, tokens(card(2), "+", card(3))).status_code == 404
    assert steps(Client(), game, tokens(card(2), "+", card(3))).status_code in (302, 404)
    hidden = make_game([{"student": other}, {"student": bo}], show_steps=False)
    answer = steps(tablet(other), hidden, tokens(card(2), "+", card(3)))
    assert answer.status_code == 200 and answer.json() == {"steps": []}


@pytest.mark.parametrize(
    "query",
    [
        {"tokens": "not json"},
        {"tokens": json.dumps([{"card": "4"}])},
        {"tokens": json.dumps([[{"card": 4}]])},
        {"tokens": "[" * 5000},
        {"tokens": json.dumps([{"card": 4}]), "x_values": json.dumps({"x": 1})},
        {"tokens": json.dumps([{"card": 10**9}, {"op": "+"}, {"card": 4}])},
        {"tokens": json.dumps([{"op": ")"}, {"card": 4}])},
        {},
    ],
)
def test_hostile_input_is_answered_calmly(make_game, anna, bo, query) -> None:
    game = make_game([{"student": anna}, {"student": bo}])
    answer = tablet(anna).get(reverse("games:table_steps", args=[game.pk]), query)
    assert answer.status_code in (200, 400)
    assert answer.json()["steps"] == []


def test_one_query_past_the_session(make_game, anna, bo, django_assert_max_num_queries) -> None:
    game = make_game([{"student": anna}, {"student": bo}])
    c = tablet(anna)
    steps(c, game, tokens(card(2), "+", card(3)))  # the session warmed
    with django_assert_max_num_queries(3):  # session, user, the seat with two keys of the state
        assert steps(c, game, tokens(card(2), "+", card(3))).json() == {"steps": ["2 + 3 = 5"]}
