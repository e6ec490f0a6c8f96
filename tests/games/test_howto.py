"""How to play: the children's and the teachers' pages, in the three languages, from the rules."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from tests import factories

pytestmark = pytest.mark.django_db

EVENT_NAMES = ("UNAN", "DAOU", "TRI", "PEVAR", "PEMP", "C&#x27;HWEC&#x27;H")


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_children_page_shows_the_worked_example_x_events_and_the_shout(client, lang):
    response = client.get(reverse("games:howto_child"), HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<html lang="{lang}">' in html
    assert "8 − 5 = 3, × 6 = 18" in html  # R3.2: the spoken chain of the rules
    assert "Kavet &#x27;m eus!" in html  # R5
    for name in EVENT_NAMES:  # R7.2–R7.7: the six event cards, each with its own picture
        assert name in html
    for key in ("unan", "daou", "tri", "pevar", "pemp", "chwech", "x", "trophy"):
        assert f"img/pictures/{key}.svg" in html


def test_children_page_wins_exactly_the_four_cards_of_the_example(client):
    html = client.get(reverse("games:howto_child")).content.decode()
    won = [int(part.split("<")[0]) for part in html.split('class="howto-card is-won">')[1:]]
    assert won == [8, 5, 6, 18]  # R3.1: the three cards of the expression and the result card


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_teachers_page_covers_levels_class_games_challenges_and_settlements(client, lang):
    response = client.get(reverse("games:howto_teacher"), HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 200
    html = response.content.decode()
    for section in ("t-levels", "t-class", "t-challenge", "t-events", "t-end"):
        assert f'id="{section}"' in html
    assert "+ − × ÷" in html  # R2.2: the tier table


def test_teachers_page_in_english_names_the_rules(client):
    with translation.override("en"):
        html = client.get(reverse("games:howto_teacher")).content.decode()
    assert "lowest level among its players" in html  # R2.3
    assert "costs its holder 5 cards" in html  # R6.2
    assert "3 cards" in html  # R5.5


def test_post_is_refused_not_a_500(client):
    assert client.post(reverse("games:howto_child")).status_code == 405


def test_student_home_and_teacher_home_link_to_their_page(client):
    classroom = factories.classroom(school=factories.school())
    teacher = factories.teacher(school=classroom.school)
    classroom.teachers.add(teacher)
    client.force_login(teacher)
    assert (
        reverse("games:howto_teacher")
        in client.get(reverse("classrooms:teacher_home")).content.decode()
    )
    student = factories.student(classroom=classroom, name="Anna", picture_code="0-1-2")
    client.force_login(student.user)
    html = client.get(reverse("games:student_home")).content.decode()
    assert reverse("games:howto_child") in html
