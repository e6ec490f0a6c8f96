"""Staff sign in with the school's accounts: OpenID Connect, end to end against a real provider.

The provider is a second Django process (django-oauth-toolkit, `tests/oidc_provider/`) with its
own users, sign-in page, session cookie and RSA key; the site under test runs in pytest-django's
live server. Every step is real HTTP: discovery, the authorization request with state, nonce and
PKCE, the provider's sign-in form, the code coming back, the token request, the id_token's
signature checked against the provider's JWKS, userinfo.
"""

from __future__ import annotations

import re
from datetime import timedelta
from importlib import import_module
from urllib.parse import parse_qs, urlparse

import pytest
import requests
from django.conf import settings as dj_settings
from django.utils import timezone

from classrooms.models import TeacherInvite, User
from tests import factories
from tests.oidc_provider import fixtures, serve
from tests.oidc_provider.fixtures import INVITED, PARENT, STRANGER, TEACHER, UNVERIFIED

pytestmark = pytest.mark.django_db(transaction=True)

# The provider (a second Django process) and the site's settings pointing at it.
provider = fixtures.provider
oidc = fixtures.oidc


def _to_callback(live_server, provider, username: str) -> tuple[requests.Session, str]:
    """A browser's way to the provider and back, stopped before the site's callback is asked."""
    s = requests.Session()
    r = s.get(f"{live_server.url}/oidc/authenticate/", allow_redirects=False)
    assert r.status_code == 302, r.text
    query = parse_qs(urlparse(r.headers["Location"]).query)
    assert query["code_challenge_method"] == ["S256"] and query["state"] and query["nonce"]
    r = s.get(r.headers["Location"])  # the provider asks who this is
    assert "Sign in to the school" in r.text
    r = s.post(
        r.url,
        data={
            "username": username,
            "password": serve.PASSWORD,
            "csrfmiddlewaretoken": s.cookies["provider_csrf"],
        },
        allow_redirects=False,
    )
    location = r.headers["Location"]
    while not location.startswith(live_server.url):
        if location.startswith("/"):
            location = f"http://127.0.0.1:{provider.port}{location}"
        r = s.get(location, allow_redirects=False)
        assert r.status_code == 302, r.text
        location = r.headers["Location"]
    return s, location


def _signed_in_as(s: requests.Session) -> int | None:
    key = s.cookies.get(dj_settings.SESSION_COOKIE_NAME)
    if not key:
        return None
    store = import_module(dj_settings.SESSION_ENGINE).SessionStore(key)
    value = store.get("_auth_user_id")
    return int(value) if value else None


def _refusal(s: requests.Session, live_server, response) -> str:
    """The refused callback lands on the sign-in page; the sentence that says why."""
    assert response.status_code == 302
    assert urlparse(response.headers["Location"]).path == "/login/"
    page = s.get(f"{live_server.url}/login/").text
    found = re.search(r'<p class="message message-error">(.*?)</p>', page, re.S)
    assert found, page
    return found.group(1)


def test_an_invited_teacher_signs_in_with_the_school_account(live_server, oidc, school):
    teacher = factories.teacher(school=school, email="Anna@School.example")
    page = requests.get(f"{live_server.url}/login/").text
    assert "Sign in with ENT" in page  # the button, where a provider is configured

    s, callback = _to_callback(live_server, oidc, TEACHER[0])
    r = s.get(callback, allow_redirects=False)

    assert r.status_code == 302 and urlparse(r.headers["Location"]).path != "/login/"
    assert _signed_in_as(s) == teacher.pk  # matched by the verified address, case aside
    assert User.objects.count() == 1  # nobody new

    # The code and its state are spent: the same answer replayed is refused.
    again = s.get(callback, allow_redirects=False)
    assert "did not start on this page" in _refusal(s, live_server, again)


def test_password_sign_in_keeps_working_beside_it(live_server, oidc, school):
    factories.teacher(school=school, username="yann", email="yann@school.example")
    s = requests.Session()
    s.get(f"{live_server.url}/login/")
    r = s.post(
        f"{live_server.url}/login/",
        data={
            "username": "yann",
            "password": "correct horse battery",
            "csrfmiddlewaretoken": s.cookies["csrftoken"],
        },
        allow_redirects=False,
    )
    assert r.status_code == 302
    assert _signed_in_as(s) == User.objects.get(username="yann").pk


def test_an_open_invitation_makes_the_teacher_account(live_server, oidc, school):
    admin = factories.school_admin(school=school)
    invite = TeacherInvite.objects.create(
        school=school,
        created_by=admin,
        email=INVITED[1],
        first_name="Bleuenn",
        secret_hash="0" * 64,
        expires_at=timezone.now() + timedelta(days=3),
    )
    s, callback = _to_callback(live_server, oidc, INVITED[0])
    s.get(callback, allow_redirects=False)

    user = User.objects.get(email=INVITED[1])
    assert _signed_in_as(s) == user.pk
    assert (user.role, user.school, user.first_name) == (User.Role.TEACHER, school, "Bleuenn")
    assert not user.has_usable_password()  # signs in with the school's account
    invite.refresh_from_db()
    assert invite.used_at is not None and invite.used_by == user


def test_a_stranger_gets_no_account(live_server, oidc, school):
    factories.teacher(school=school, email=TEACHER[1])
    # An invitation to another address, and an expired one to the stranger's: neither lets in.
    TeacherInvite.objects.create(
        school=school,
        email=STRANGER[1],
        secret_hash="1" * 64,
        expires_at=timezone.now() - timedelta(days=1),
    )
    before = User.objects.count()
    s, callback = _to_callback(live_server, oidc, STRANGER[0])
    r = s.get(callback, allow_redirects=False)

    assert "No member of staff has the address mallory@elsewhere.example" in _refusal(
        s, live_server, r
    )
    assert _signed_in_as(s) is None
    assert User.objects.count() == before


def test_a_parent_is_not_signed_in_as_staff(live_server, oidc, school):
    factories.parent(school=school, email=PARENT[1])
    s, callback = _to_callback(live_server, oidc, PARENT[0])
    r = s.get(callback, allow_redirects=False)
    assert "No member of staff" in _refusal(s, live_server, r)
    assert _signed_in_as(s) is None


def test_an_unverified_address_is_refused(live_server, oidc, school):
    factories.teacher(school=school, email=TEACHER[1])
    s, callback = _to_callback(live_server, oidc, UNVERIFIED[0])
    r = s.get(callback, allow_redirects=False)
    assert "not confirmed" in _refusal(s, live_server, r)
    assert _signed_in_as(s) is None


def test_a_forged_state_is_refused(live_server, oidc, school):
    teacher = factories.teacher(school=school, email=TEACHER[1])
    s, callback = _to_callback(live_server, oidc, TEACHER[0])
    code = parse_qs(urlparse(callback).query)["code"][0]

    forged = s.get(
        f"{live_server.url}/oidc/callback/?code={code}&state=not-the-one-we-sent",
        allow_redirects=False,
    )
    assert "did not start on this page" in _refusal(s, live_server, forged)
    assert _signed_in_as(s) is None

    # The real answer, carried into another browser (a link sent to a victim): refused there.
    other = requests.Session()
    other.get(f"{live_server.url}/oidc/authenticate/", allow_redirects=False)
    r = other.get(callback, allow_redirects=False)
    assert "did not start on this page" in _refusal(other, live_server, r)
    assert _signed_in_as(other) is None

    # The forgeries spent nothing of the real sign-in.
    s.get(callback, allow_redirects=False)
    assert _signed_in_as(s) == teacher.pk


def test_an_expired_code_is_refused(live_server, oidc, school):
    factories.teacher(school=school, email=TEACHER[1])
    s, callback = _to_callback(live_server, oidc, TEACHER[0])
    assert oidc.expire_codes() >= 1  # the person took too long coming back

    r = s.get(callback, allow_redirects=False)
    assert "took too long" in _refusal(s, live_server, r)
    assert _signed_in_as(s) is None


def test_the_refusal_is_in_the_persons_language(live_server, oidc, school):
    s, callback = _to_callback(live_server, oidc, STRANGER[0])
    s.cookies.set(dj_settings.LANGUAGE_COOKIE_NAME, "fr")
    r = s.get(callback, allow_redirects=False)
    assert "Aucun membre du personnel" in _refusal(s, live_server, r)


def test_a_provider_that_does_not_answer(live_server, settings, school):
    from benchmarks.serve import free_port

    settings.KAVET_OIDC_ISSUER = f"http://127.0.0.1:{free_port()}/o"
    settings.OIDC_RP_CLIENT_ID = serve.CLIENT_ID
    settings.OIDC_RP_CLIENT_SECRET = serve.CLIENT_SECRET
    s = requests.Session()
    r = s.get(f"{live_server.url}/oidc/authenticate/", allow_redirects=False)
    assert "does not answer" in _refusal(s, live_server, r)


def test_no_provider_no_button(client, settings):
    settings.KAVET_OIDC_ISSUER = ""
    assert client.get("/oidc/authenticate/").status_code == 404
    assert client.get("/oidc/callback/?code=a&state=b").status_code == 404
    assert "school account" not in client.get("/login/").content.decode()


def test_a_second_factor_is_still_asked_after_the_school_account(live_server, oidc, school):
    """The school's sign-in vouches for the password step; a member of staff who set up a second
    factor here still owes its code (classrooms/twofactor) before any page."""
    from django.urls import reverse
    from django_otp.plugins.otp_totp.models import TOTPDevice

    teacher = factories.teacher(school=school, email=TEACHER[1])
    TOTPDevice.objects.create(user=teacher, name="phone", confirmed=True)
    s, callback = _to_callback(live_server, oidc, TEACHER[0])
    s.get(callback, allow_redirects=False)
    assert _signed_in_as(s) == teacher.pk

    page = s.get(f"{live_server.url}/teacher/", allow_redirects=False)
    assert page.status_code == 302
    assert urlparse(page.headers["Location"]).path == reverse("twofactor:verify")
