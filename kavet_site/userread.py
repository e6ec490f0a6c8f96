"""The request's signed-in user read by one prepared statement: Django's AuthenticationMiddleware
otherwise.

Django reads the session's user with `User._default_manager.get(pk=...)` (ModelBackend.get_user),
compiling the same query on every request: on a tablet's board fetch (each push makes three
tablets send one) it was a quarter of the fetch's CPU. `get_user` here is
django.contrib.auth.get_user with that one read replaced by a SELECT of the user's row by its
primary key, written once per database alias, its row made into the model instance as the ORM
would (the fields' converters, Model.from_db). Everything else is Django's: the backend named in
the session must be in AUTHENTICATION_BACKENDS, an inactive user is no user
(ModelBackend.user_can_authenticate), the session's hash is verified (the fallback secrets too,
with the key cycled; a mismatch flushes the session). A session naming another backend (or none)
goes to Django's own get_user. tests/site/test_userread.py compares the two on each case.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import auth
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.middleware import AuthenticationMiddleware
from django.db import connections, router
from django.db.models.manager import BaseManager
from django.utils.crypto import constant_time_compare
from django.utils.functional import SimpleLazyObject

from kavet_site.prepared import Columns, Statement

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


class PreparedAuthenticationMiddleware(AuthenticationMiddleware):
    """django.contrib.auth's AuthenticationMiddleware, the user read through `get_user`."""

    def process_request(self, request):
        super().process_request(request)  # its checks (a session is there), request.auser
        request.user = SimpleLazyObject(lambda: get_user(request))


def _prepared(model) -> bool:
    # The default manager as Django's (no get_queryset of its own filtering the users).
    return type(model._default_manager).get_queryset is BaseManager.get_queryset


def get_user(request):
    """django.contrib.auth.get_user, the ModelBackend's read of the user prepared."""
    from django.contrib.auth.models import AnonymousUser

    session = request.session
    model = auth.get_user_model()
    if (
        session.get(auth.BACKEND_SESSION_KEY) != MODEL_BACKEND
        or MODEL_BACKEND not in settings.AUTHENTICATION_BACKENDS
        or auth.SESSION_KEY not in session
        or not _prepared(model)
    ):
        return auth.get_user(request)
    user = _UserRead.of(router.db_for_read(model), model).get(
        model._meta.pk.to_python(session[auth.SESSION_KEY])
    )
    if user is not None and not ModelBackend().user_can_authenticate(user):
        user = None
    if user is None:
        return AnonymousUser()
    # Verify the session (as django.contrib.auth.get_user does).
    session_hash = session.get(auth.HASH_SESSION_KEY)
    session_auth_hash = user.get_session_auth_hash() if session_hash else ""
    if session_hash and constant_time_compare(session_hash, session_auth_hash):
        return user
    if session_hash and any(
        constant_time_compare(session_hash, fallback_auth_hash)
        for fallback_auth_hash in user.get_session_auth_fallback_hash()
    ):
        session.cycle_key()
        session[auth.HASH_SESSION_KEY] = session_auth_hash
        return user
    session.flush()
    return AnonymousUser()


class _UserRead(Statement):
    """SELECT of the user model's row by its primary key, written once per alias and model."""

    def __init__(self, alias: str, model) -> None:
        self.alias, self.model = alias, model
        q = connections[alias].ops.quote_name
        self.columns = Columns(alias, model, "")
        self.sql = (
            f"SELECT {', '.join(self.columns.columns)} FROM {q(model._meta.db_table)}"
            f" WHERE {q(model._meta.pk.column)} = %s"
        )

    def get(self, pk):
        rows = self.fetch([pk])  # by its primary key: one or none
        return self.columns.instance(rows[0]) if rows else None
