"""The game table over HTTP: polling with the version, moves, forged and stale input, Wi-Fi gaps."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games.models import Game, Move
from tests import factories
from tests.games.conftest import card, tokens

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def table(make_game, anna, bo):
    return make_game([{"student": anna}, {"student": bo}])


def tablet(client, student):
    client.force_login(student.user)
    return client


def poll(client, game, v, s="running", t=""):
    return client.get(
        reverse("games:table", args=[game.pk]),
        {"v": v, "s": s, "t": t},
        HTTP_X_KAVET_POLL="1",
        **HX,
    )


def post_move(client, game, seen, **data):
    return client.post(
        reverse("games:table_move", args=[game.pk]), {"seen_version": seen, **data}, **HX
    )


def test_table_page_shows_the_cards_and_whose_turn(client, table, anna):
    page = tablet(client, anna).get(reverse("games:table", args=[table.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert 'data-card="4"' in html and 'data-card="6"' in html
    assert "Your turn!" in html and "Nothing to do" in html
    assert 'role="status" aria-live="polite"' in html
    assert "×" not in html  # tier 1: only + and − keys (R2.2)
    # The builder's script reads each key's symbol from the page (one home for the symbols).
    assert 'data-op="+" data-symbol="+"' in html and 'data-op="-" data-symbol="−"' in html


def test_poll_answers_204_with_one_lookup_when_nothing_changed(
    client, table, anna, django_assert_num_queries
):
    c = tablet(client, anna)
    c.get(reverse("games:table", args=[table.pk]))
    html = c.get(reverse("games:table", args=[table.pk])).content.decode()
    token = html.split("&amp;t=")[1].split('"')[0].replace("%3A", ":")
    with django_assert_num_queries(1):  # the game row by primary key; no session, no user
        response = poll(c, table, 0, t=token)
    assert response.status_code == 204 and response.content == b""
    assert poll(c, table, 0, "paused", t=token).status_code == 200
    assert poll(c, table, 0, t=token + "x").status_code == 200  # a forged token: the full path
    other = factories.student(classroom=table.classroom, name="Ewen")
    assert poll(tablet(factories_client(), other), table, 0, t=token + "x").status_code == 404


def test_poll_returns_the_new_board_after_a_move(client, table, anna, bo):
    c = tablet(client, bo)
    c.get(reverse("games:table", args=[table.pk]))
    assert post_move(tablet(factories_client(), anna), table, 0, type="nothing").status_code == 200
    response = poll(c, table, 0)
    html = response.content.decode()
    assert response.status_code == 200
    assert "Anna says: nothing to do." in html and "act-challenge" in html
    assert 'hx-swap-oob="innerHTML"' in html and "?v=1&amp;s=running" in html


def factories_client():
    from django.test import Client

    return Client()


def test_another_students_or_schools_game_is_404(client, table, classroom, other_school):
    outsider = factories.student(classroom=classroom, name="Ewen")
    c = tablet(client, outsider)
    assert c.get(reverse("games:table", args=[table.pk])).status_code == 404
    assert post_move(c, table, 0, type="nothing").status_code == 404
    teacher = factories.teacher(school=other_school)
    client.force_login(teacher)
    assert client.get(reverse("games:table", args=[table.pk])).status_code == 404
    assert Move.objects.count() == 0


def test_a_forged_seat_in_the_post_is_ignored(client, table, bo):
    # Bo forges "seat=0" (Anna's turn): the seat comes from his sign-in, so it is refused.
    response = post_move(tablet(client, bo), table, 0, type="nothing", seat=0)
    assert "It is not your turn." in response.content.decode()
    table.refresh_from_db()
    assert table.version == 0


def test_a_written_number_with_no_card_says_so_in_the_childs_language(client, table, anna):
    # R3.5 invalid: "7 + 2 = 9" typed where no 7 or 9 lies: the message names the number and
    # says it is not on the table (not "any more": it may never have been there); nothing changes.
    response = post_move(tablet(client, anna), table, 0, type="announce", text="7 + 2 = 9")
    assert "There is no 7 card on the table." in response.content.decode()
    response = client.post(
        reverse("games:table_move", args=[table.pk]),
        {"seen_version": 0, "type": "announce", "text": "7 + 2 = 9"},
        HTTP_ACCEPT_LANGUAGE="fr",
        **HX,
    )
    assert "Il n&#x27;y a pas de carte 7 sur la table." in response.content.decode()
    table.refresh_from_db()
    assert table.version == 0


def test_a_card_not_on_the_table_gets_a_message_and_changes_nothing(client, table, anna):
    payload = json.dumps(tokens(card(2), "+", card(3), "=", card(9)))
    response = post_move(tablet(client, anna), table, 0, type="announce", tokens=payload)
    assert "That card is not on the table any more." in response.content.decode()
    table.refresh_from_db()
    assert table.version == 0


def test_unreadable_input_is_refused_kindly(client, table, anna):
    c = tablet(client, anna)
    assert (
        "could not be read"
        in post_move(c, table, 0, type="announce", tokens="[oops").content.decode()
    )
    assert "Tap some cards first." in post_move(c, table, 0, type="announce").content.decode()
    assert "could not be read" in post_move(c, table, 0, type="timeout").content.decode()
    html = post_move(c, table, 0, type="announce", text="2 + + 3 = 5").content.decode()
    assert "I could not read that operation" in html
    table.refresh_from_db()
    assert table.version == 0


def test_typed_text_is_accepted(client, table, anna):
    response = post_move(tablet(client, anna), table, 0, type="announce", text="2 + 3 = 5")
    assert "Anna says: 2 + 3 = 5" in response.content.decode()
    table.refresh_from_db()
    assert table.version == 1


def test_a_double_submit_makes_one_move(client, table, anna):
    c = tablet(client, anna)
    post_move(c, table, 0, type="nothing")
    second = post_move(c, table, 0, type="nothing")
    assert "The table changed. Look again!" in second.content.decode()
    assert Move.objects.filter(game=table).count() == 1


def test_a_move_after_the_end_is_refused(client, table, anna):
    from games import services

    services.game_end(game=table)
    response = post_move(tablet(client, anna), table, 0, type="nothing")
    html = response.content.decode()
    assert "This game is over." in html and "The game was ended early." in html
    assert 'hx-trigger="every 2s"' not in html  # the polling stops at the end


def test_wifi_gone_for_30_seconds_the_tablet_catches_up(client, table, anna, bo):
    c = tablet(client, bo)
    c.get(reverse("games:table", args=[table.pk]))
    post_move(tablet(factories_client(), anna), table, 0, type="nothing")
    # Bo's tablet is offline while the challenge window runs out (30 s later, nobody polled).
    Game.objects.filter(pk=table.pk).update(timer_deadline=timezone.now() - timedelta(seconds=20))
    response = poll(c, table, 0)
    html = response.content.decode()
    assert response.status_code == 200
    assert "Anna says: nothing to do." in html  # every step it missed is told
    assert "Time is up: no challenge." in html
    assert "2 + 3 = 5" in html  # the lesson (R5.6)
    assert "Your turn!" in html
    table.refresh_from_db()
    assert f"?v={table.version}&amp;s=running" in html
    assert post_move(c, table, table.version, type="nothing").status_code == 200
    table.refresh_from_db()
    assert Move.objects.filter(game=table).count() == table.version


def test_practice_game_at_the_students_level(client, anna):
    c = tablet(client, anna)
    response = c.post(reverse("games:practice_start"), {"computers": 2, "strength": "easy"})
    game = Game.objects.get()
    assert response.url == reverse("games:table", args=[game.pk])
    assert game.kind == Game.Kind.PRACTICE and game.status == Game.Status.RUNNING
    assert game.config["rules"]["tier"] == anna.tier and game.seats.count() == 3
    again = c.post(reverse("games:practice_start"), {"computers": 1, "strength": "hard"})
    assert again.url == reverse("games:table", args=[game.pk]) and Game.objects.count() == 1
    assert "Go to my table" in c.get(reverse("games:student_home")).content.decode()
    c.post(reverse("games:practice_stop", args=[game.pk]))
    game.refresh_from_db()
    assert game.status == Game.Status.ABANDONED
    home = c.get(reverse("games:student_home")).content.decode()
    assert "My last games" in home and "ended early" in home


def test_bad_practice_choices_are_refused(client, anna):
    response = tablet(client, anna).post(reverse("games:practice_start"), {"computers": 9})
    assert response.status_code == 302 and Game.objects.count() == 0


def test_a_class_game_cannot_be_stopped_by_a_student(client, table, anna):
    assert (
        tablet(client, anna).post(reverse("games:practice_stop", args=[table.pk])).status_code
        == 404
    )


def test_the_early_poll_answer_knows_the_table_url():
    """TablePollMiddleware recognises games:table by a pattern: it must match the real URL."""
    from django.urls import reverse

    from games.middleware import TABLE_POLL_PATH

    match = TABLE_POLL_PATH.match(reverse("games:table", args=[4217]))
    assert match and match[1] == "4217"
    assert not TABLE_POLL_PATH.match(reverse("games:table_move", args=[4217]))


def test_a_held_event_card_is_shown_not_playable(make_game, anna, bo, client):
    # R6.4: an event card drawn with TRI is held, shown as not playable; the held number card
    # beside it is a key like any card (R3.1).
    from django.utils.html import escape

    from games import engine

    game = make_game([{"student": anna}, {"student": bo}])
    state = engine.GameState.from_dict(game.state)
    event = next(c for c in state.draw if state.cards[c].kind == "event")
    number = next(c for c in state.draw if state.cards[c].kind == "number")
    state.draw = [c for c in state.draw if c not in (event, number)]
    state.held[state.active] = [number, event]
    Game.objects.filter(pk=game.pk).update(state=state.to_dict())
    seated = anna if state.active == 0 else bo

    html = tablet(client, seated).get(reverse("games:table", args=[game.pk])).content.decode()
    held = html.split('class="table-cards my-held"')[1].split("</section>")[0]
    assert f'data-card="{number}"' in held and "<button" in held
    assert f'data-card="{event}"' not in held
    assert "is-unplayable" in held and escape(state.cards[event].label) in held
