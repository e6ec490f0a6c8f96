"""Tablet sign-in: class code remembered, name, three pictures, rate limits, "I'm done", idle."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from classrooms import signin_locks
from games import signin, tablets
from games.models import Game

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
    for _ in range(signin_locks.STUDENT_TRIES):
        tap(client, anna, 5, 6, 7)
    locked = tap(client, anna, 0, 1, 2)  # even the right pictures wait now
    assert "Too many tries" in locked.content.decode()
    assert client.get(reverse("games:student_home")).status_code == 302


def test_wrong_tries_are_limited_per_tablet(client, classroom):
    from tests import factories

    kids = [
        factories.student(classroom=classroom, name=f"K{i}", picture_code=f"{i}-{i + 1}-{i + 2}")
        for i in range(4)
    ]
    remember_class(client, classroom)
    for i in range(signin_locks.TABLET_TRIES):
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
    response = client.get(
        reverse("games:student_home"), HTTP_HX_REQUEST="true", HTTP_X_KAVET_POLL="1"
    )
    assert response.status_code == 204 and response["HX-Redirect"] == reverse("games:tablet_signin")
    # The signing-out answer passes through the security headers' middleware like any other.
    assert "Content-Security-Policy" in response and response["X-Frame-Options"] == "DENY"
    assert client.get(reverse("games:student_home")).status_code == 302


def test_the_sign_in_lasts_through_a_game(client, classroom, anna, make_game):
    remember_class(client, classroom)
    tap(client, anna, 0, 1, 2)
    game = make_game([{"student": anna}, {"bot": "easy"}])
    _go_idle(client, 60)
    assert client.get(reverse("games:table", args=[game.pk])).status_code == 200


def test_a_move_neither_writes_the_session_nor_signs_out_at_a_game(
    client, classroom, anna, make_game
):
    # Issue 38: a child moves every minute or two; stamping "last seen" wrote the session on
    # nearly every move. At a game in_open_game() keeps the child signed in (the test above),
    # so a move needs neither the stamp nor the check; the game records the activity.
    classroom.student_idle_minutes = 3
    classroom.save()
    remember_class(client, classroom)
    tap(client, anna, 0, 1, 2)
    game = make_game([{"student": anna}, {"bot": "easy"}])
    _go_idle(client, 60)
    seen = client.session[signin.SEEN_KEY]
    key = client.session.session_key
    saved = Session.objects.get(session_key=key).expire_date
    move = client.post(
        reverse("games:table_move", args=[game.pk]),
        {"seen_version": game.version, "type": "nothing"},  # R4.3: anna's turn, nothing to do
        HTTP_HX_REQUEST="true",
    )
    assert move.status_code == 200 and move["Cache-Control"] == "no-store"
    assert client.session[signin.SEEN_KEY] == seen
    assert Session.objects.get(session_key=key).expire_date == saved  # not written
    game.refresh_from_db()
    assert game.version == 1  # the move itself was played
    assert client.get(reverse("games:table", args=[game.pk])).status_code == 200
    # Once the game is over and the idle time has passed since, the next page signs out.
    _go_idle(client, 60)
    game.status, game.finished_at = Game.Status.FINISHED, timezone.now() - timedelta(minutes=4)
    game.save(update_fields=["status", "finished_at"])
    assert client.get(reverse("games:student_home")).status_code == 302


def test_an_open_push_stream_is_not_the_childs_activity(client, classroom, anna, make_game):
    # The tablet's EventSource reconnects on its own: it must not keep a left tablet signed in.
    classroom.student_idle_minutes = 3
    classroom.save()
    remember_class(client, classroom)
    tap(client, anna, 0, 1, 2)
    game = make_game([{"student": anna}, {"bot": "easy"}])
    _go_idle(client, 2)
    seen = client.session[signin.SEEN_KEY]
    stream = client.get(reverse("games:table_stream", args=[game.pk]), {"t": "forged"})
    assert stream.status_code == 403  # answered at once, through the same middleware
    assert client.session[signin.SEEN_KEY] == seen
    assert client.get(reverse("games:student_home")).status_code == 200
    assert client.session[signin.SEEN_KEY] > seen  # a page the child opened does count


# --- tries are counted on what the client cannot choose (issue 9, findings 6, 10, 13) ---------


def _wrong_code_until_refused(client, limit, *, between=None):
    """Post wrong class codes until the tablet is told to wait; how many were looked at."""
    for n in range(limit):
        if between:
            between(client)
        response = client.post(reverse("games:tablet_signin"), {"code": "ZZZZ99"})
        if "Too many tries" in response.content.decode():
            return n
    return limit


def test_the_tablet_id_is_signed_by_the_server(client, classroom):
    from django.test import RequestFactory

    remember_class(client, classroom)
    value = client.cookies[tablets.TABLET_COOKIE].value
    request = RequestFactory().get("/")
    request.COOKIES[tablets.TABLET_COOKIE] = value
    ident = tablets.tablet_id(request)
    assert ident and ident != value and value.startswith(ident + ":")
    request = RequestFactory().get("/")
    request.COOKIES[tablets.TABLET_COOKIE] = ident  # the id without the server's signature
    assert tablets.tablet_id(request) is None


@pytest.mark.parametrize("tamper", ["drop", "forge", "garble"])
def test_rotating_or_forging_the_tablet_cookie_gives_no_extra_tries(
    client, classroom, monkeypatch, tamper
):
    monkeypatch.setattr(tablets, "MINT_TRIES", 3)

    def rotate(c):
        if tamper == "drop":
            c.cookies.pop(tablets.TABLET_COOKIE, None)
        elif tamper == "forge":
            c.cookies[tablets.TABLET_COOKIE] = f"forged-tablet-id-{time.time_ns()}"
        else:  # a real signed value with its signature changed
            value = (
                c.cookies[tablets.TABLET_COOKIE].value
                if tablets.TABLET_COOKIE in c.cookies
                else "a:b"
            )
            c.cookies[tablets.TABLET_COOKIE] = value[:-2] + ("xy" if value[-2:] != "xy" else "zw")

    looked_at = _wrong_code_until_refused(client, 200, between=rotate)
    # Three new ids, then the address's shared one: never more than that many tries.
    assert looked_at == 3 * 1 + signin_locks.TABLET_TRIES
    rotate(client)
    refused = client.post(reverse("games:tablet_signin"), {"code": classroom.code})
    assert (
        "Too many tries" in refused.content.decode() and signin.CLASS_COOKIE not in refused.cookies
    )


def test_a_kept_cookie_gets_its_own_tries_and_no_more(client, classroom):
    assert _wrong_code_until_refused(client, 100) == signin_locks.TABLET_TRIES
    refused = client.post(reverse("games:tablet_signin"), {"code": classroom.code})
    assert "Too many tries" in refused.content.decode()


def test_rotating_the_cookie_gives_no_extra_picture_tries(client, classroom, anna, monkeypatch):
    monkeypatch.setattr(tablets, "MINT_TRIES", 2)
    remember_class(client, classroom)  # minted id number 1
    tries = 0
    for _ in range(60):
        client.cookies.pop(tablets.TABLET_COOKIE, None)
        page = tap(client, anna, 5, 6, 7).content.decode()
        if "Too many tries" in page and tries >= signin_locks.STUDENT_TRIES:
            break
        tries += 1
    # id 2 gives 5 tries, then every further request shares the address's id: 5 more at most.
    assert tries <= 2 * signin_locks.STUDENT_TRIES
    client.cookies.pop(tablets.TABLET_COOKIE, None)
    assert "Too many tries" in tap(client, anna, 0, 1, 2).content.decode()


def test_a_classmate_guessing_on_another_tablet_does_not_keep_the_child_out(classroom, anna, bo):
    from django.test import Client

    tablet_a, tablet_b = remember_class(Client(), classroom), remember_class(Client(), classroom)
    for _ in range(signin_locks.STUDENT_TRIES):
        tap(tablet_a, anna, 5, 6, 7)
    assert "Too many tries" in tap(tablet_a, anna, 0, 1, 2).content.decode()  # the guesser waits
    signed_in = tap(tablet_b, anna, 0, 1, 2)
    assert signed_in.status_code == 302 and signed_in.url == reverse("games:student_home")
    # Bo is not held up on tablet A either.
    assert tap(tablet_a, bo, 3, 4, 5).status_code == 302


def test_the_right_pictures_after_a_few_wrong_ones_work(client, classroom, anna):
    remember_class(client, classroom)
    for _ in range(signin_locks.STUDENT_TRIES - 1):
        tap(client, anna, 5, 6, 7)
    assert tap(client, anna, 0, 1, 2).status_code == 302


# --- the teacher sees a pause and lifts it --------------------------------------------------


def _lock_anna(classroom, anna):
    from django.test import Client

    tablet = remember_class(Client(), classroom)
    for _ in range(signin_locks.STUDENT_TRIES):
        tap(tablet, anna, 5, 6, 7)
    assert "Too many tries" in tap(tablet, anna, 0, 1, 2).content.decode()
    return tablet


def test_the_teacher_sees_the_pause_and_lifts_it_in_one_tap(client, teacher, classroom, anna):
    tablet = _lock_anna(classroom, anna)
    client.force_login(teacher)
    edit = reverse("classrooms:student_edit", args=[classroom.pk, anna.pk])
    page = client.get(edit).content.decode()
    assert "Sign-in is paused on 1 tablet" in page and "Let them sign in again" in page
    unlock = reverse("classrooms:student_signin_unlock", args=[classroom.pk, anna.pk])
    assert client.get(unlock).status_code == 405  # a tap on the button, never a link
    response = client.post(unlock)
    assert response.status_code == 302 and response.url == edit
    assert "Sign-in is paused" not in client.get(edit).content.decode()
    assert signin_locks.signin_locks(anna) == 0
    assert tap(tablet, anna, 0, 1, 2).status_code == 302  # on the very tablet that was paused


def test_a_teacher_of_another_school_cannot_lift_the_pause(client, classroom, anna, other_school):
    from tests import factories

    tablet = _lock_anna(classroom, anna)
    stranger = factories.teacher(school=other_school)
    factories.classroom(school=other_school, teachers=[stranger])
    client.force_login(stranger)
    unlock = reverse("classrooms:student_signin_unlock", args=[classroom.pk, anna.pk])
    assert client.post(unlock).status_code == 404
    assert (
        client.get(reverse("classrooms:student_edit", args=[classroom.pk, anna.pk])).status_code
        == 404
    )
    assert signin_locks.signin_locks(anna) == 1
    assert "Too many tries" in tap(tablet, anna, 0, 1, 2).content.decode()


def test_a_student_or_a_parent_cannot_lift_the_pause(client, classroom, anna, bo):
    from tests import factories

    _lock_anna(classroom, anna)
    unlock = reverse("classrooms:student_signin_unlock", args=[classroom.pk, anna.pk])
    for user in (bo.user, factories.parent()):
        client.force_login(user)
        assert client.post(unlock).status_code in (302, 403, 404)
        assert signin_locks.signin_locks(anna) == 1


# --- junk in the forms ------------------------------------------------------------------------


@pytest.mark.parametrize("code", ["\x00", "AB\x00CD", "ÄBC", "<script>", "A" * 5000, "١٢٣"])
def test_junk_in_the_class_code_is_a_clear_error(client, classroom, code):
    response = client.post(reverse("games:tablet_signin"), {"code": code})
    assert response.status_code == 400
    text = response.content.decode()
    assert "letters and numbers" in text or "no class with this code" in text
    assert signin.CLASS_COOKIE not in response.cookies


@pytest.mark.parametrize(
    "fields",
    [
        {"so_far": "\x00", "pick": "1"},
        {"so_far": "", "pick": "\x00"},
        {"so_far": "1-2", "pick": "9" * 5000},
        {"so_far": "9" * 5000, "pick": "1"},
        {"so_far": "1-99", "pick": "1"},
        {"so_far": "", "pick": "-1"},
        {"so_far": "1--2-3-4", "pick": "0"},
    ],
)
def test_junk_in_the_pictures_form_is_a_clear_error(client, classroom, anna, fields):
    remember_class(client, classroom)
    response = client.post(reverse("games:tablet_pictures", args=[anna.pk]), fields)
    assert response.status_code == 400
    assert "Tap your pictures again" in response.content.decode()
    assert client.get(reverse("games:student_home")).status_code == 302


def test_nul_bytes_reach_no_query_on_postgresql(client, classroom, anna):
    """PostgreSQL refuses NUL in text: this is where a NUL used to answer 500."""
    from django.db import connection

    from tests.conftest import need_service

    need_service(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL)")
    from django.db import DatabaseError, transaction

    from classrooms.models import Classroom

    with pytest.raises((ValueError, DatabaseError)), transaction.atomic():
        Classroom.objects.filter(code="AB\x00").exists()
    assert client.post(reverse("games:tablet_signin"), {"code": "AB\x00"}).status_code == 400
    remember_class(client, classroom)
    assert (
        client.post(
            reverse("games:tablet_pictures", args=[anna.pk]), {"so_far": "\x00", "pick": "\x00"}
        ).status_code
        == 400
    )


# --- cookies ----------------------------------------------------------------------------------


@pytest.mark.parametrize("secure", [True, False])
def test_the_tablet_cookies_are_httponly_lax_and_secure_in_production(
    client, classroom, settings, secure
):
    settings.KAVET_COOKIE_SECURE = secure
    response = client.post(reverse("games:tablet_signin"), {"code": classroom.code})
    for name in (signin.CLASS_COOKIE, tablets.TABLET_COOKIE):
        morsel = response.cookies[name]
        assert morsel["httponly"] is True and morsel["samesite"] == "Lax"
        assert bool(morsel["secure"]) is secure
        assert int(morsel["max-age"]) == tablets.COOKIE_AGE


def test_production_settings_make_the_tablet_cookies_secure():
    import json
    import os
    import subprocess
    import sys

    from tests.site.test_settings import ROOT

    probe = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "print(json.dumps([s.KAVET_COOKIE_SECURE, s.SESSION_COOKIE_SECURE]))"
    )
    results = []
    for production in ("1", "0"):
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "kavet_site.settings",
            "KAVET_PRODUCTION": production,
            "SECRET_KEY": "a-production-secret-key-for-this-probe-only-0123456789",
        }
        out = subprocess.run(
            [sys.executable, "-c", probe],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    assert results == [[True, True], [False, False]]


# --- forgetting the class asks first ----------------------------------------------------------


def test_forgetting_the_class_asks_for_confirmation(client, classroom, anna):
    remember_class(client, classroom)
    names = client.get(reverse("games:tablet_signin")).content.decode()
    forget = reverse("games:tablet_forget")
    assert f'action="{forget}"' not in names and f'href="{forget}"' in names  # no one-tap form
    ask = client.get(forget)
    assert ask.status_code == 200 and "Yes, forget this class" in ask.content.decode()
    assert classroom.name in ask.content.decode()
    # A post without the confirming button (a stray tap, an old page) only asks.
    again = client.post(forget)
    assert again.status_code == 200 and "Yes, forget this class" in again.content.decode()
    assert "Who are you?" in client.get(reverse("games:tablet_signin")).content.decode()
    done = client.post(forget, {"confirm": "yes"})
    assert done.status_code == 302 and done.url == reverse("games:tablet_signin")
    assert (
        "Which class is this tablet for?"
        in client.get(reverse("games:tablet_signin")).content.decode()
    )


def test_forget_without_a_class_goes_to_the_class_code(client):
    response = client.get(reverse("games:tablet_forget"))
    assert response.status_code == 302 and response.url == reverse("games:tablet_signin")
