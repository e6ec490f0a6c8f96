"""One count everywhere (issue 40): the tablet, the class board and the replay say the same number
for a player, the engine's score as the cards stand (R6.3, games.engine.end.score_of), with the
word that says which: points."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import translation

from games import engine, services
from tests.games.conftest import card, tokens

pytestmark = pytest.mark.django_db


def _points(html: str, name: str) -> set[int]:
    """Every "N points" the page shows within the same line as `name`."""
    text = re.sub(r"<[^>]+>", " ", html)
    text = re.sub(r"\s+", " ", text)
    return {int(n) for n in re.findall(re.escape(name) + r"[^0-9]{0,80}?(\d+) points?", text)}


def test_the_tablet_the_board_and_the_replay_say_the_same_points(
    client, make_game, anna, bo, teacher
):
    game = make_game([{"student": anna}, {"student": bo}], challenge_window=0)
    game.refresh_from_db()
    # R4.4: Anna wins a trick of 3 cards; R6.3: 3 points.
    out = services.move_submit(
        game_id=game.pk,
        seat=0,
        move={"type": "announce", "tokens": tokens(card(2), "+", card(3), "=", card(5))},
        seen_version=game.version,
    )
    assert out.applied
    game.refresh_from_db()
    state = engine.GameState.from_dict(game.state)
    expected = {"Anna": engine.score_of(state, 0), "Bo": engine.score_of(state, 1)}
    assert expected["Anna"] == 3
    with translation.override("en"):
        client.force_login(anna.user)
        tablet = client.get(reverse("games:table", args=[game.pk])).content.decode()
        client.force_login(teacher)
        board = client.get(reverse("games:board_table", args=[game.pk])).content.decode()
        replay = client.get(reverse("classrooms:game_replay", args=[game.pk])).content.decode()
    for name, points in expected.items():
        for page, html in (("tablet", tablet), ("board", board), ("replay", replay)):
            assert points in _points(html, name), (page, name, _points(html, name))
    # Never a count of cards next to a player's name on the tablet: one number, in points.
    assert not re.search(r'class="pile[^"]*"[^>]*>\s*\d+ cards?', tablet)
