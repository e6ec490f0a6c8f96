"""The catalogue of table states (games.catalogue): every state renders for every tablet, from
engine states whose invariants hold, and leaves no row behind."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory

from games import catalogue, engine
from games.models import Game

pytestmark = pytest.mark.django_db


def request():
    req = RequestFactory().get("/")
    req.user = AnonymousUser()
    return req


def test_the_catalogue_covers_the_phases_the_choices_and_the_rulings():
    states = catalogue.states()
    phases = {entry.state.phase for entry in states.values()}
    assert phases == {"turn", "window", "chwech_offer", "chwech_announce", "challenge", "over"}
    assert any(entry.kind == "practice" for entry in states.values())  # with the coach
    held = {len(entry.state.held[catalogue.ANNA]) for entry in states.values()}
    assert set(range(7)) <= held
    for entry in states.values():
        engine.check_invariants(entry.state)  # R9.1


@pytest.mark.parametrize("name", list(catalogue.states()))
def test_each_state_renders_for_each_tablet_and_leaves_nothing(name):
    entry = catalogue.states()[name]
    for position in entry.tablets():
        html = catalogue.render(name, position, request())
        assert 'id="board"' in html
        assert f'data-version="{entry.state.version}"' in html
    assert not Game.objects.exists()


def test_the_winner_the_loser_and_an_onlooker_each_read_the_ruling():
    # R5.4: Bo's right challenge, told on the three tablets.
    for position in (catalogue.ANNA, catalogue.BO, catalogue.JADE):
        html = catalogue.render("ruling-right-challenge", position, request())
        assert "Bo wins 3 cards" in html
        assert "Good catch!" in html


def test_a_seat_without_a_tablet_is_refused():
    with pytest.raises(KeyError):
        catalogue.render("turn-start", 3, request())  # the computer player


def test_the_developer_pages_list_and_show_the_states_in_debug_only(client, settings):
    settings.DEBUG = False
    assert client.get("/dev/table-states/").status_code == 404
    assert client.get("/dev/table-states/turn-start/0/").status_code == 404
    settings.DEBUG = True
    listing = client.get("/dev/table-states/")
    assert listing.status_code == 200
    for name in catalogue.states():
        assert f"/dev/table-states/{name}/0/" in listing.content.decode()
    page = client.get("/dev/table-states/window-many/1/")
    assert page.status_code == 200
    assert b"act-challenge" in page.content  # Bo may say "Kavet 'm eus!"
    assert client.get("/dev/table-states/window-many/3/").status_code == 404  # the computer
    assert client.get("/dev/table-states/no-such-state/0/").status_code == 404
    assert not Game.objects.exists()


def test_the_end_tells_only_the_settlements_that_move_cards():
    # R6.2: the "over" state's end has a PEMP settlement of no card; it is neither shown nor said.
    entry = catalogue.states()["over"]
    counts = [item["count"] for item in entry.state.result["settlements"]]
    assert 0 in counts and any(counts)
    html = catalogue.render("over", catalogue.JADE, request())
    assert "gives 5 cards" in html
    assert "gives 0 cards" not in html and "takes the 0 cards" not in html
