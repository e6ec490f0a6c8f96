"""Styled error pages (issue 12): a PermissionDenied or an Http404 from a view, an unknown URL,
a bad request and a crash answer templates/403.html, 404.html, 400.html, 500.html with the right
status, in the user's language, with a way back for who they are; 500 renders with no request
context and no database (Django's own server_error gives it an empty context)."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.test import Client, RequestFactory
from django.urls import path, reverse
from django.views import defaults

from kavet_site import views
from tests import factories


def _boom(request):
    raise RuntimeError("a crash in a view")


def _suspicious(request):
    raise SuspiciousOperation("a forged field")


def _forbidden(request):
    raise PermissionDenied


def _ok(request):
    return HttpResponse("ok")


# This module doubles as a URLconf for the tests marked with it: the site's handlers, views
# that fail in each way.
urlpatterns = [
    path("", _ok, name="home"),
    path("boom/", _boom),
    path("suspicious/", _suspicious),
    path("forbidden/", _forbidden),
]
handler400 = "kavet_site.views.bad_request"
handler403 = "kavet_site.views.permission_denied"
handler404 = "kavet_site.views.page_not_found"
handler500 = "kavet_site.views.server_error"


@pytest.fixture(autouse=True)
def _production(settings):
    settings.DEBUG = False
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_parent_on_a_teachers_page_gets_the_styled_403(school):
    parent = factories.parent(school=school)
    response = _signed_in(parent).get(reverse("classrooms:teacher_home"))
    assert response.status_code == 403
    assert [t.name for t in response.templates][0] == "403.html"
    html = response.content.decode()
    assert "<h1>This page is not for you</h1>" in html
    assert "ask your school" in html
    # Signed in: one way back, to their own page (the home page sends each role to its place).
    assert 'href="/">Go to my page</a>' in html
    assert "Sign in</a>" not in html and "Back to my class" not in html
    assert 'href="/privacy/"' in html  # the footer


@pytest.mark.parametrize(("language", "sign_in"), [("fr", "Se connecter"), ("de", "Anmelden")])
def test_unknown_page_404_in_the_users_language(db, language, sign_in):
    response = Client().get("/no-such-page/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 404
    assert response["Content-Language"] == language
    html = response.content.decode()
    assert f'<html lang="{language}">' in html
    assert f'href="{reverse("login")}">{sign_in}</a>' in html


def test_signed_out_child_reopening_the_game_gets_back_to_my_class(db):
    client = Client()
    client.cookies["kavet_class"] = "anything"  # a tablet that once entered its class code
    response = client.get(reverse("games:table", args=[123]))
    assert response.status_code == 404
    html = response.content.decode()
    assert "This game is not here any more" in html
    assert (
        f'class="btn btn-big btn-primary error-back-class" href="{reverse("games:tablet_signin")}">'
        "Back to my class</a>"
    ) in html
    assert "Sign in</a>" not in html  # a child has no password to type


def test_a_signed_in_student_on_a_teachers_page_is_sent_back_to_the_class(classroom):
    student = factories.student(classroom=classroom)
    response = _signed_in(student.user).get(reverse("classrooms:teacher_home"))
    assert response.status_code == 403
    html = response.content.decode()
    assert "This page is for your teacher." in html
    assert "Back to my class</a>" in html


def test_a_parent_guessing_another_childs_id_gets_the_styled_404(school):
    parent = factories.parent(school=school)
    response = _signed_in(parent).get(reverse("reports:child", args=[999]))
    assert response.status_code == 404
    html = response.content.decode()
    assert "<h1>Page not found</h1>" in html and 'href="/">Go to my page</a>' in html


def test_htmx_gets_a_short_fragment(db):
    response = Client().get("/no-such-page/", HTTP_HX_REQUEST="true")
    assert response.status_code == 404
    html = response.content.decode()
    assert html.startswith('<div class="notice notice-error" role="alert">')
    assert "<html" not in html and "This page is not here any more." in html


@pytest.mark.urls(__name__)
def test_a_crash_answers_the_styled_500_in_the_users_language(db):
    client = Client(raise_request_exception=False)
    response = client.get("/boom/", HTTP_ACCEPT_LANGUAGE="de")
    assert response.status_code == 500
    assert response["Content-Language"] == "de"
    html = response.content.decode()
    assert '<html lang="de">' in html and "<h1>" in html
    assert 'href="/login/">Anmelden</a>' in html


@pytest.mark.urls(__name__)
def test_bad_request_and_permission_denied_from_views(db):
    client = Client(raise_request_exception=False)
    response = client.get("/suspicious/")
    assert response.status_code == 400
    assert "<h1>This page could not be read</h1>" in response.content.decode()
    response = client.get("/forbidden/", HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code == 403
    assert '<html lang="fr">' in response.content.decode()


def test_500_needs_no_database_and_no_context():
    # No db fixture: any query here would raise (pytest-django blocks the database).
    response = views.server_error(RequestFactory().get("/play/5/"))
    assert response.status_code == 500
    assert "Back to my class</a>" in response.content.decode()  # a tablet's path
    # Django's own handler: 500.html with an empty context, no request.
    response = defaults.server_error(RequestFactory().get("/"))
    html = response.content.decode()
    assert response.status_code == 500 and "<h1>Something went wrong</h1>" in html
    assert 'href="/login/"' in html and 'href="/privacy/"' in html
    bare = render_to_string("500.html", {})
    links = [part.split('"', 1)[0] for part in bare.split('<a class="')[1:]]
    assert links == ["brand", "btn btn-big btn-primary", "btn btn-big"]  # brand, sign in, home
    assert bare.count("<a ") == 5  # and the footer's privacy and accessibility links
