"""The request's user read by one prepared statement (kavet_site.userread) is Django's get_user:
the same user (every field), the same refusals, the same changes to the session."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib import auth
from django.contrib.auth.middleware import AuthenticationMiddleware
from django.db import connection
from django.forms.models import model_to_dict
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.utils.module_loading import import_string

from kavet_site import userread

MODEL = "django.contrib.auth.backends.ModelBackend"


def signed_in(user, **changes) -> dict:
    data = {
        auth.SESSION_KEY: str(user.pk),
        auth.BACKEND_SESSION_KEY: MODEL,
        auth.HASH_SESSION_KEY: user.get_session_auth_hash(),
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def both(data: dict) -> list[tuple]:
    """(user, session data after, session key changed) from Django's get_user and from ours,
    each on its own copy of the same saved session."""
    out = []
    for get_user in (auth.get_user, userread.get_user):
        store = import_string(settings.SESSION_ENGINE + ".SessionStore")()
        store.update(data)
        store.save()
        key = store.session_key
        request = RequestFactory().get("/")
        request.session = import_string(settings.SESSION_ENGINE + ".SessionStore")(key)
        user = get_user(request)
        fields = model_to_dict(user) if user.is_authenticated else None
        out.append(
            (
                type(user).__name__,
                fields,
                dict(request.session.items()),
                request.session.session_key != key,
            )
        )
    return out


def same(data: dict) -> tuple:
    django, ours = both(data)
    assert ours == django
    return ours


def test_a_signed_in_user_is_read_whole_in_one_query(teacher):
    user_type, fields, session, cycled = same(signed_in(teacher))
    assert user_type == type(teacher).__name__ and fields["username"] == teacher.username
    assert fields["school"] == teacher.school_id and not cycled
    request = RequestFactory().get("/")
    request.session = {**signed_in(teacher)}
    with CaptureQueriesContext(connection) as queries:
        user = userread.get_user(request)
    assert user == teacher and user._state.db == "default" and not user._state.adding
    assert user.last_login == type(teacher).objects.get(pk=teacher.pk).last_login
    assert len(queries) == 1


@pytest.mark.parametrize(
    "changes",
    [
        {auth.HASH_SESSION_KEY: "not-the-hash"},  # a changed password: flushed
        {auth.HASH_SESSION_KEY: None},  # no hash: flushed
        {auth.SESSION_KEY: "999999"},  # no such user
        {auth.SESSION_KEY: None},  # no user id
        {auth.BACKEND_SESSION_KEY: None},  # no backend
        {auth.BACKEND_SESSION_KEY: "django.contrib.auth.backends.RemoteUserBackend"},  # not ours
    ],
)
def test_every_refusal_is_djangos(teacher, changes):
    user_type, fields, session, _cycled = same(signed_in(teacher, **changes))
    assert user_type == "AnonymousUser" and fields is None


def test_an_inactive_user_is_no_user(teacher):
    teacher.is_active = False
    teacher.save()
    assert same(signed_in(teacher))[0] == "AnonymousUser"


def test_a_session_of_a_previous_secret_is_kept_and_its_key_cycled(teacher, settings):
    data = signed_in(teacher)  # signed with the secret in use
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "a-new-secret-" + "x" * 50
    user_type, fields, session, cycled = same(data)
    assert user_type == type(teacher).__name__ and cycled
    assert session[auth.HASH_SESSION_KEY] == teacher.get_session_auth_hash()


def test_the_site_uses_it_in_place_of_djangos():
    assert "kavet_site.userread.PreparedAuthenticationMiddleware" in settings.MIDDLEWARE
    assert "django.contrib.auth.middleware.AuthenticationMiddleware" not in settings.MIDDLEWARE
    assert issubclass(userread.PreparedAuthenticationMiddleware, AuthenticationMiddleware)


def test_a_request_through_the_site_is_signed_in(client, teacher):
    client.force_login(teacher)
    response = client.get("/")
    assert response.wsgi_request.user == teacher
    assert response.wsgi_request.user.is_authenticated
