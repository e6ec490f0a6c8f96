"""A table is told in the reader's language: computer players, practice labels and timed-out
turns are stored without words and put into words when a page is drawn (Seat.display_name,
Game.display_label, games.selectors.player_names)."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from games import services
from games.models import Game, Play

pytestmark = pytest.mark.django_db
FR, DE = {"HTTP_ACCEPT_LANGUAGE": "fr"}, {"HTTP_ACCEPT_LANGUAGE": "de"}


@pytest.fixture(autouse=True)
def _language_back_to_english():
    """A request with Accept-Language leaves its language active in this thread: restore it."""
    with translation.override("en"):
        yield


def tablet(client, student):
    client.force_login(student.user)
    return client


def test_a_practice_game_started_in_german_reads_in_french_on_a_french_tablet(client, anna):
    c = tablet(client, anna)
    c.post(reverse("games:practice_start"), {"computers": 2, "strength": "easy"}, **DE)
    game = Game.objects.get()
    # Nothing of the German tablet's language is saved with the game.
    assert game.label == "" and list(game.seats.values_list("name", flat=True)) == ["Anna", "", ""]
    assert game.config["players"] == ["Anna", "", ""]
    french = c.get(reverse("games:table", args=[game.pk]), **FR).content.decode()
    assert "Entraînement · Kavet" in french
    assert "Ordinateur 1" in french and "Ordinateur 2" in french and "Computer 1" not in french
    german = c.get(reverse("games:table", args=[game.pk]), **DE).content.decode()
    assert "Übung · Kavet" in german and "Computer 2" in german


def test_the_start_sentence_and_the_log_name_a_computer_player_in_the_readers_language(
    client, make_game, anna
):
    game = make_game([{"student": anna}, {"bot": "easy"}], starter=1)
    c = tablet(client, anna)
    page = html.unescape(c.get(reverse("games:table", args=[game.pk]), **FR).content.decode())
    assert "C'est parti\u00a0! Ordinateur 1 commence." in page
    assert services.game_tick(game_id=game.pk, now=timezone.now() + timedelta(seconds=60)) >= 1
    log = c.get(reverse("games:table_log", args=[game.pk]), **FR).content.decode()
    assert "Ordinateur 1" in log and "Computer 1" not in log


def test_a_named_computer_player_keeps_its_name(make_game, anna):
    game = make_game([{"student": anna}, {"bot": "hard", "name": "Robo"}, {"bot": "easy"}])
    with translation.override("en"):
        names = [s.display_name for s in game.seats.order_by("position")]
    assert names == ["Anna", "Robo", "Computer 1"]


def test_a_timed_out_turn_is_stored_without_words_and_told_in_the_readers_language(
    client, make_game, anna, bo
):
    game = make_game([{"student": anna}, {"student": bo}], turn_time=30)
    # R4.9: the first turn's clock starts after the first-turn grace (games.services).
    later = timezone.now() + timedelta(seconds=31 + services.first_turn_grace())
    services.game_tick(game_id=game.pk, now=later)
    play = Play.objects.get(student=anna)
    assert (play.kind, play.text, play.code) == (Play.Kind.NOTHING, "", "timeout")
    page = tablet(client, bo).get(reverse("games:table", args=[game.pk]), **FR).content.decode()
    assert "Le temps est écoulé pour Anna\u00a0: rien à faire." in page
