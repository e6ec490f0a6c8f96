"""Fixtures for the games tests: tables with a fixed draw order, so every scenario is scripted."""

from __future__ import annotations

import pytest

from games import services
from tests import factories

# Up to 10 the deck is 0..10 twice (card id = 2 * value + copy), 4 X cards, then the events.
X_CARD = 22
EVENT_CARD = {"UNAN": 26, "DAOU": 27, "TRI": 28, "PEVAR": 29, "PEMP": 30, "CHWECH": 31}


def card(value: int, copy: int = 0) -> int:
    """The id of a number card in the deck up to 10."""
    return 2 * value + copy


TABLE_2_3_5 = (4, 6, 10)  # card(2), card(3), card(5)


def tokens(*parts) -> list[dict]:
    """A structured announcement: ints are card ids, strings are operators."""
    return [{"card": p} if isinstance(p, int) else {"op": p} for p in parts]


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    """Teachers' passwords are hashed in fixtures; the default hasher is slow on purpose."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def anna(classroom):
    return factories.student(classroom=classroom, name="Anna", picture_code="0-1-2")


@pytest.fixture
def bo(classroom):
    return factories.student(classroom=classroom, name="Bo", picture_code="3-4-5")


@pytest.fixture
def make_game(school, classroom):
    """A started game with the given players; by default the table opens with 2 3 5."""

    def make(players, *, draw=TABLE_2_3_5, start=True, seed=None, **settings):
        settings.setdefault("turn_time", 120)
        settings.setdefault("challenge_window", 10)
        game = services.game_create(
            school=school,
            classroom=classroom,
            players=players,
            settings=settings,
            draw_order=list(draw),
            label="T1",
            seed=seed,
        )
        if start:
            game = services.game_start(game=game)
        return game

    return make


@pytest.fixture
def tables(school, other_school, classroom, teacher, anna, bo, make_game):
    """Two tables of the school (Anna and Bo with a computer player; Cleo and Bo) and every
    kind of user, by name: the players, a stranger of another school, staff, a parent, nobody.
    What the table reads and the move's locked read are checked against (who sits where)."""
    from django.contrib.auth.models import AnonymousUser

    cleo = factories.student(classroom=classroom, name="Cleo")
    elsewhere = factories.classroom(school=other_school)
    stranger = factories.student(classroom=elsewhere, name="Stranger")
    ours = make_game([{"student": anna}, {"bot": "easy"}, {"student": bo}])
    theirs = make_game([{"student": cleo}, {"student": bo}])
    users = {
        "anna": anna.user,
        "bo": bo.user,
        "cleo": cleo.user,
        "stranger": stranger.user,
        "teacher": teacher,
        "admin": factories.school_admin(school=school),
        "parent": factories.parent(school=school),
        "anonymous": AnonymousUser(),
    }
    return ours, theirs, users
