"""Hostile posts to the move endpoint (issue 9, finding 10): huge, deeply nested, NUL bytes, bytes
that are not UTF-8, wrong types. Never a 500; a 422 with the engine's refusal on the table, in the
reader's language; the game not changed by a single byte."""

from __future__ import annotations

import html
import json

import pytest
from django.urls import reverse
from django.utils import translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.forms import MoveRefused, json_depth, parse_move
from games.models import Game, Move
from tests.conftest import examples
from tests.games.conftest import card, tokens

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
GOOD = json.dumps(tokens(card(2), "+", card(3), "=", card(5)))


@pytest.fixture(autouse=True)
def _language_back_to_english():
    with translation.override("en"):
        yield


@pytest.fixture
def table(make_game, anna, bo):
    return make_game([{"student": anna}, {"student": bo}])


@pytest.fixture
def c(client, anna):
    client.force_login(anna.user)
    return client


def snapshot(game: Game) -> tuple:
    game.refresh_from_db()
    return (
        game.version,
        game.status,
        json.dumps(game.state, sort_keys=True),
        Move.objects.filter(game=game).count(),
    )


def url(game: Game) -> str:
    return reverse("games:table_move", args=[game.pk])


NESTED = "[" * 3990
HOSTILE = {
    "brackets x 3990": {"type": "announce", "tokens": NESTED},
    "closed nesting": {"type": "announce", "tokens": "[" * 500 + "]" * 500},
    "nested x_values": {
        "type": "announce",
        "tokens": GOOD,
        "x_values": '{"a":' * 900 + "1" + "}" * 900,
    },
    "nested list x_values": {"type": "announce", "tokens": GOOD, "x_values": "[" * 3000},
    "nested token value": {"type": "announce", "tokens": '[{"card": [[[[4]]]]}]'},
    "huge tokens": {"type": "announce", "tokens": json.dumps([{"op": "+"}] * 5000)},
    "huge text": {"type": "announce", "text": "2 + 3 = 5 " * 20000},
    "huge int": {"type": "announce", "tokens": '[{"card": ' + "9" * 4000 + "}]"},
    "float card": {"type": "announce", "tokens": '[{"card": 4.0}, {"op": "+"}]'},
    "bool card": {"type": "announce", "tokens": '[{"card": true}]'},
    "NaN": {"type": "announce", "tokens": '[{"num": NaN}]'},
    "string card": {"type": "announce", "tokens": '[{"card": "4"}]'},
    "two keys": {"type": "announce", "tokens": '[{"card": 4, "op": "+"}]'},
    "tokens object": {"type": "announce", "tokens": '{"card": 4}'},
    "tokens string": {"type": "announce", "tokens": '"2+3=5"'},
    "x_values list": {"type": "announce", "tokens": GOOD, "x_values": "[1, 2]"},
    "x_values bad key": {"type": "announce", "tokens": GOOD, "x_values": '{"\\u0000": 3}'},
    "x_values huge value": {"type": "announce", "tokens": GOOD, "x_values": '{"22": 1e308}'},
    "NUL in text": {"type": "announce", "text": "2 + 3\x00 = 5"},
    "NUL in op": {"type": "announce", "tokens": '[{"op": "\\u0000"}]'},
    "lone surrogate op": {"type": "announce", "tokens": '[{"op": "\\ud800"}]'},
    "NUL in place": {"type": "announce", "text": "2 + 3 = 5", "place": "PEMP\x00"},
    "huge place": {"type": "announce", "text": "2 + 3 = 5", "place": "P" * 5000},
    "huge type": {"type": "a" * 100000},
    "unknown type": {"type": "timeout"},
    "NUL type": {"type": "nothing\x00"},
    "no type": {},
}


@pytest.mark.parametrize("data", list(HOSTILE.values()), ids=list(HOSTILE))
@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain"])
def test_hostile_move_is_422_with_a_message_and_changes_nothing(c, table, data, htmx):
    before = snapshot(table)
    response = c.post(url(table), {"seen_version": 0, **data}, **(HX if htmx else {}))
    assert response.status_code == 422
    text = html.unescape(response.content.decode())
    assert (
        "could not be read" in text
        or "too long" in text
        or "Only numbers, X and the operation signs" in text
    )
    assert snapshot(table) == before


@pytest.mark.parametrize("seen", ["9" * 5000, "-1", "1e9", "\x00", "٣", str(2**80)])
def test_odd_seen_versions_are_stale_never_500(c, table, seen):
    before = snapshot(table)
    response = c.post(url(table), {"seen_version": seen, "type": "announce", "tokens": GOOD}, **HX)
    assert response.status_code == 200
    assert "The table changed" in response.content.decode()
    assert snapshot(table) == before


@pytest.mark.parametrize(
    "body, content_type",
    [
        (b"type=announce&tokens=%ff%fe%00%c3&seen_version=0", "application/x-www-form-urlencoded"),
        (
            b"type=announce&tokens=\xff\xfe[[[[\xc3&seen_version=0",
            "application/x-www-form-urlencoded",
        ),
        (b"type=announce&text=\xff\xfe\x00&seen_version=0", "application/x-www-form-urlencoded"),
        (b'{"type": "announce", "tokens": [[[[[]]]]]}', "application/json"),
        (b"\x00" * 1000, "application/octet-stream"),
        (
            b'--x\r\nContent-Disposition: form-data; name="tokens"\r\n\r\n\xff[[[\x00\r\n--x--\r\n',
            "multipart/form-data; boundary=x",
        ),
    ],
)
def test_raw_bodies_not_utf8_or_not_a_form_never_500(c, table, body, content_type):
    before = snapshot(table)
    response = c.generic("POST", url(table), body, content_type=content_type, **HX)
    assert response.status_code in (400, 422)
    assert snapshot(table) == before


def test_the_refusal_is_told_in_the_readers_language(c, table):
    before = snapshot(table)
    response = c.post(
        url(table),
        {"seen_version": 0, "type": "announce", "tokens": NESTED},
        HTTP_ACCEPT_LANGUAGE="fr",
        **HX,
    )
    assert response.status_code == 422
    assert "Ce coup n'a pas pu être lu." in html.unescape(response.content.decode())
    assert snapshot(table) == before


def test_a_good_move_still_goes_through(c, table):
    response = c.post(url(table), {"seen_version": 0, "type": "announce", "tokens": GOOD}, **HX)
    assert response.status_code == 200
    table.refresh_from_db()
    assert table.version == 1


# Anything JSON can say, at any depth, in `tokens` and `x_values`.
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=30,
)


@given(
    tokens_value=json_values,
    x_value=json_values,
    depth=st.integers(0, 2000),
    junk=st.text(max_size=40),
)
@settings(
    max_examples=examples(0.6),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_any_json_shape_never_500(c, table, tokens_value, x_value, depth, junk):
    before = snapshot(table)
    raw_tokens = "[" * depth + json.dumps(tokens_value) + "]" * depth
    data = {
        "seen_version": 0,
        "type": "announce",
        "tokens": raw_tokens,
        "x_values": json.dumps(x_value) + junk,
    }
    response = c.post(url(table), data, **HX)
    assert response.status_code in (200, 422)
    if response.status_code == 422:
        assert snapshot(table) == before
    try:
        parse_move(data)
    except MoveRefused as refused:
        assert refused.code in {"bad_move", "input_too_long"}


def test_json_depth_skips_strings():
    assert json_depth('[{"op": "[[[["}]') == 2
    assert json_depth('["\\"[[["]') == 1
    assert json_depth("[" * 3990) == 3990
