"""The teachers' pages in the reader's language: table labels, computer players, replay
verdicts and form texts are put into words when the page is drawn, not when the data was made."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse
from django.utils import translation

from classgames import services as class_game_services
from classrooms.forms import CodeLookupForm, StudentsPasteForm
from classrooms.grouping import PlannedTable
from games import services as game_services
from games.models import Game
from tests import factories

pytestmark = pytest.mark.django_db
FR, DE = {"HTTP_ACCEPT_LANGUAGE": "fr"}, {"HTTP_ACCEPT_LANGUAGE": "de"}
SETTINGS = {"challenge_window": 5, "challenge_time": 30, "turn_time": 60}


@pytest.fixture(autouse=True)
def _language_back_to_english():
    """A request with Accept-Language leaves its language active in this thread: restore it."""
    with translation.override("en"):
        yield


@pytest.fixture
def kids(classroom):
    return [
        factories.student(classroom=classroom, name=n, number_range=10, tier=1)
        for n in ("Anna", "Bleuenn", "Corentin")
    ]


def page(client, name: str, pk: int, **headers) -> str:
    return html.unescape(client.get(reverse(name, args=[pk]), **headers).content.decode())


def test_a_class_game_started_in_english_reads_in_german_and_french(
    client, teacher, classroom, kids
):
    anna, bleuenn, corentin = kids
    with translation.override("en"):
        session = class_game_services.class_session_start(
            classroom=classroom,
            by=teacher,
            settings=SETTINGS,
            tables=[
                PlannedTable(number=1, students=[anna, bleuenn]),
                PlannedTable(number=2, students=[corentin], bots=2, bot_strength="easy"),
            ],
        )
    games = list(session.games.order_by("pk"))
    assert [g.label for g in games] == ["1", "2"]  # the number only, no word of any language
    assert list(games[1].seats.values_list("name", flat=True)) == ["Corentin", "", ""]
    client.force_login(teacher)
    live = page(client, "classrooms:session_live", session.pk, **DE)
    assert "Tisch 1" in live and "Tisch 2" in live and "Table 2" not in live
    assert "Computer 1" in live and "Computer 2" in live
    live_fr = page(client, "classrooms:session_live", session.pk, **FR)
    assert "Ordinateur 2" in live_fr and "À Anna de jouer" in live_fr
    class_game_services.class_session_end(session=session, by=teacher)
    history = page(client, "classrooms:history", classroom.pk, **FR)
    assert "Table 2" in history and "Ordinateur 1" in history and "Computer" not in history


def test_the_replay_says_right_and_wrong_in_whole_french_sentences(
    client, teacher, classroom, kids
):
    anna, bleuenn, _corentin = kids
    # The table opens with 2 3 5 (card id = 2 * value in a deck up to 10).
    game = game_services.game_create(
        school=classroom.school,
        classroom=classroom,
        players=[{"student": anna}, {"student": bleuenn}],
        settings=SETTINGS,
        draw_order=[4, 6, 10],
        label="1",
    )
    game = game_services.game_start(game=game)
    outcome = game_services.move_submit(
        game_id=game.pk,
        seat=0,
        seen_version=game.version,
        move={"type": "announce", "text": "2 + 3 = 5"},
    )
    assert outcome.applied
    ok = game_services.move_submit(
        game_id=game.pk, seat=1, seen_version=outcome.game.version, move={"type": "ok"}
    )  # the window closes: the verdict
    assert ok.applied
    game_services.game_end(game=Game.objects.get(pk=game.pk))
    client.force_login(teacher)
    replay = page(client, "classrooms:game_replay", game.pk, **FR)
    assert "Revoir\u00a0: Table 1" in replay
    assert "Juste\u00a0: 2 + 3 = 5" in replay
    assert "Anna\u00a0: " in replay  # the scores, with French punctuation


def test_forms_speak_the_language_of_the_request_not_of_the_server_start():
    with translation.override("fr"):
        first = dict(CodeLookupForm().fields["first"].choices)
        help_text = str(StudentsPasteForm().fields["names"].help_text)
    assert first["0"] == "chat"
    assert help_text.endswith("500 noms au plus à la fois.")
    with translation.override("de"):
        assert dict(CodeLookupForm().fields["first"].choices)["0"] == "Katze"
        assert "Höchstens 500 Namen" in str(StudentsPasteForm().fields["names"].help_text)


def test_the_table_setup_page_and_its_refusal_agree_on_five_players(client, teacher, classroom):
    six = [
        factories.student(classroom=classroom, name=f"Kid {i}", number_range=10, tier=1)
        for i in range(6)
    ]
    client.force_login(teacher)
    url = reverse("classrooms:class_game_setup", args=[classroom.pk])
    data = {
        "present": [k.pk for k in six],
        **{f"table_{k.pk}": "1" for k in six},
        "challenge_window": "5",
        "challenge_time": "30",
        "turn_time": "60",
        "starter": "first",
        "nothing_true_penalty": "3",
        "lesson": "auto",
        "copies": "2",
        "x_cards": "4",
        "events": "on",
        "cap_range": "",
        "cap_tier": "",
        "action": "start",
    }
    proposed = html.unescape(client.post(url, {**data, "action": "propose"}, **FR).content.decode())
    assert "Tables de 2 à 5 joueurs" in proposed
    refused = html.unescape(client.post(url, data, **FR).content.decode())
    assert "La table 1 a 6 joueurs\u00a0; 5 au plus peuvent jouer à une table." in refused
    assert not Game.objects.exists()
