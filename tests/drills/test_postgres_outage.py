"""Drill (b): PostgreSQL cut off behind a TCP proxy, then restored.

While it is cut, pages answer a 503 "try again" page in the user's language (Retry-After),
htmx polls and moves a short 503 fragment with an event for the tablet's script, and no move
is half-applied; once restored, the very next request works, and the move the tablet sends
again is applied exactly once.
"""

from __future__ import annotations

import time

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.models import Move
from tests import factories
from tests.drills.proxy import TCPProxy

pytestmark = pytest.mark.drill
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def proxied_db(postgres):
    """This process's database connection goes through a proxy the drill can cut."""
    settings_dict = postgres.settings_dict
    saved = (settings_dict["HOST"], settings_dict["PORT"])
    proxy = TCPProxy((saved[0] or "127.0.0.1", int(saved[1] or 5432))).start()
    postgres.close()
    settings_dict["HOST"], settings_dict["PORT"] = "127.0.0.1", proxy.port
    try:
        yield proxy
    finally:
        postgres.close()
        settings_dict["HOST"], settings_dict["PORT"] = saved
        proxy.stop()


def test_postgres_cut_gives_503_then_recovers_at_once(proxied_db):
    school = factories.school()
    classroom = factories.classroom(school=school)
    anna = factories.student(classroom=classroom, name="Anna")
    bo = factories.student(classroom=classroom, name="Bo")
    game = services.game_create(
        school=school,
        classroom=classroom,
        players=[{"student": anna}, {"student": bo}],
        settings={"turn_time": 120, "challenge_window": 10},
        draw_order=[4, 6, 10],
        label="T1",
    )
    game = services.game_start(game=game)
    start = game.version
    tablet = Client(raise_request_exception=False)
    tablet.force_login(anna.user)
    table = reverse("games:table", args=[game.pk])
    move_url = reverse("games:table_move", args=[game.pk])
    assert tablet.get(table).status_code == 200

    proxied_db.cut()
    cut_at = time.monotonic()
    page = tablet.get(table, HTTP_ACCEPT_LANGUAGE="fr")
    assert page.status_code == 503
    assert page["Retry-After"].isdigit() and page["Content-Language"] == "fr"
    assert b'<html lang="fr">' in page.content and b'http-equiv="refresh"' in page.content
    anonymous = Client(raise_request_exception=False)
    assert anonymous.get(reverse("login")).status_code == 200  # needs no database
    login = anonymous.post(
        reverse("login"), {"username": "t", "password": "p"}, HTTP_ACCEPT_LANGUAGE="de"
    )
    assert login.status_code == 503 and login["Content-Language"] == "de"

    poll = tablet.get(table, {"v": start, "s": "running", "t": ""}, HTTP_X_KAVET_POLL="1", **HX)
    assert poll.status_code == 503 and b"<html" not in poll.content
    assert "kavet:unavailable" in poll["HX-Trigger"] and poll["Retry-After"]
    move = tablet.post(move_url, {"seen_version": start, "type": "nothing"}, **HX)
    assert move.status_code == 503 and "kavet:unavailable" in move["HX-Trigger"]
    assert time.monotonic() - cut_at < 10, "requests hung on the cut database"

    proxied_db.restore()
    up_at = time.monotonic()
    assert tablet.get(table).status_code == 200  # the very next request
    recovered = time.monotonic() - up_at
    assert Move.objects.filter(game=game).count() == start  # the refused move left nothing
    # The tablet sends its move again: applied once; a doubled tap changes nothing.
    assert (
        tablet.post(move_url, {"seen_version": start, "type": "nothing"}, **HX).status_code == 200
    )
    tablet.post(move_url, {"seen_version": start, "type": "nothing"}, **HX)
    game.refresh_from_db()
    assert game.version == start + 1
    assert Move.objects.filter(game=game).count() == game.version
    print(f"\nDRILL b: 503 during the cut; first request after restore {recovered * 1000:.0f} ms")
