"""Tablet sign-in: class code remembered, name, three pictures, rate limits, "I'm done", idle."""
from __future__ import annotations

import time

import pytest
from django.core.cache import cache
from django.urls import reverse

from games import signin

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


def remember_class(client, classroom):
    response = client.post(reverse("games:tablet_signin"), {"code": classroom.code.lower()})
    assert response.status_code == 302
    return client


def tap(client, student, *pictures, htmx=False):
    url = reverse("games:tablet_pictures", args=[student.pk])
    so_far = ""
    response = None
    extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    for pick in pictures:
        response = client.post(url, {"so_far": so_far, "pick": pick}, **extra)
        so_far = f"{so_far}-{pick}" if so_far else str(pick)
    return response


def test_the_tablet_remembers_its_class_and_lists_names(client, classroom, anna, bo):
    page = client.get(reverse("games:tablet_signin"))
    assert "Which class is this tablet for?" in page.content.decode()
    wrong = client.post(reverse("games:tablet_signin"), {"code": "NOPE42"})
    assert wrong.status_code == 400 and "no class with this code" in wrong.content.decode()
    remember_class(client, classroom)
    assert signin.CLASS_COOKIE in client.cookies
    names = client.get(reverse("games:tablet_signin")).content.decode()
    assert "Anna" in names and "Bo" in names


def test_three_right_pictures_sign_in(client, classroom, anna):
    remember_class(client, classroom)
    response = tap(client, anna, 0, 1, 2)
    assert response.status_code == 302 and response.url == reverse("games:student_home")
    assert "Hello Anna!" in client.get(reverse("games:student_home")).content.decode()


def test_the_pictures_must_be_in_order(client, classroom, anna):
    remember_class(client, classroom)
    response = tap(client, anna, 2, 1, 0, htmx=True)
    assert "Those are not your pictures. Try again!" in response.content.decode()
    assert client.get(reverse("games:student_home")).status_code == 302


def test_a_student_of_another_class_is_not_on_this_tablet(client, school, classroom):
    from tests import factories

    other = factories.student(classroom=factories.classroom(school=school), name="Yann")
    remember_class(client, classroom)
    assert client.get(reverse("games:tablet_pictures", args=[other.pk])).status_code == 404


def test_wrong_tries_are_limited_per_student(client, classroom, anna):
    remember_class(client, classroom)
    for _ in range(signin.STUDENT_TRIES):
        tap(client, anna, 5, 6, 7)
    locked = tap(client, anna, 0, 1, 2)  # even the right pictures wait now
    assert "Too many tries" in locked.content.decode()
    assert client.get(reverse("games:student_home")).status_code == 302


def test_wrong_tries_are_limited_per_tablet(client, classroom):
    from tests import factories

    kids = [factories.student(classroom=classroom, name=f"K{i}", picture_code=f"{i}-{i + 1}-{i + 2}")
            for i in range(4)]
    remember_class(client, classroom)
    for i in range(signin.TABLET_TRIES):
        tap(client, kids[i % 4], 15, 14, 13)
    page = client.get(reverse("games:tablet_pictures", args=[kids[3].pk])).content.decode()
    assert "Too many tries" in page and "disabled" in page


def test_im_done_signs_out_and_the_tablet_keeps_its_class(client, classroom, anna):
    remember_class(client, classroom)
    tap(client, anna, 0, 1, 2)
    response = client.post(reverse("games:student_signout"))
    assert response.url == reverse("games:tablet_signin")
    assert "Who are you?" in client.get(reverse("games:tablet_signin")).content.decode()
    assert client.get(reverse("games:student_home")).status_code == 302


def _go_idle(client, minutes):
    session = client.session
    session[signin.SEEN_KEY] = time.time() - minutes * 60 - 1
    session.save()


def test_idle_outside_a_game_signs_out(client, classroom, anna):
    classroom.student_idle_minutes = 3
    classroom.save()
    remember_class(client, classroom)
    tap(client, anna, 0, 1, 2)
    _go_idle(client, 2)
    assert client.get(reverse("games:student_home")).status_code == 200
    _go_idle(client, 3)
    response = client.get(reverse("games:student_home"), HTTP_HX_REQUEST="true", HTTP_X_KAVET_POLL="1")
    assert response.status_code == 204 and response["HX-Redirect"] == reverse("games:tablet_signin")
    assert client.get(reverse("games:student_home")).status_code == 302


def test_the_sign_in_lasts_through_a_game(client, classroom, anna, make_game):
    remember_class(client, classroom)
    tap(client, anna, 0, 1, 2)
    game = make_game([{"student": anna}, {"bot": "easy"}])
    _go_idle(client, 60)
    assert client.get(reverse("games:table", args=[game.pk])).status_code == 200
