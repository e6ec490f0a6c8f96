"""Nothing crosses schools (issue 9): every URL of the site × every role × another party's ids.

The walk iterates django.urls.get_resolver() recursively, so a new URL is walked without being
listed here; its parameters are filled from KWARG_KINDS, an explicit table of (URL name,
parameter) → the kind of row it names, and a URL parameter the table does not know FAILS the
test (a new URL must say what its ids are). Its POST body, where one is needed for the view to
act at all, comes from POST_DATA.

Roles (the users of school A, tests/site/two_schools.py): anonymous, a student of class A1
signed in as a tablet does it (class code, then three pictures), a parent linked to A1's child 1
only, the teacher of class A1 only, the school admin of A. For each role the other parties are
school B for everyone, and also: for the teacher class A2 (another teacher's), for the parent
the other family's child, for the student another child's games, for anonymous school A too.
A URL with two ids is also walked with one id of the role's own and the other foreign.

For each cell (URL × role × party × method):
- never a 500;
- GET: 3xx, 400, 403, 404, 405 or 204; any other answer must not hold a distinctive word of
  the other party (names, class codes) and may not be a download (PDF) or an open stream;
- GET and POST change no row: the row count and a hash of every row of every model
  (apps.get_models(include_auto_created=True), sessions aside) are compared around the cell.
Each URL is walked with the role's own rows too: no 500 there either (a smoke check).

Every cell runs in a savepoint that is rolled back, so the owner's own POST (which does change
rows) leaves the next cell the same database. The count of cells is printed (-s) and recorded
(record_property "url_role_cells"), and must stay above CELL_FLOOR; the owner's POST of every
URL in OWNER_WRITES must change rows, so that the foreign POSTs are real attempts.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import re
from datetime import timedelta

import pytest
from django.apps import apps
from django.core.cache import cache
from django.core.signals import request_finished
from django.db import close_old_connections, connection, connections, transaction
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from classrooms.pictures import decode

# --- what is not walked, and why ---------------------------------------------------------------

EXCLUDED_PREFIXES = {
    "admin/": "the admin; tests/site/test_admin_scoping.py walks it with its own roles",
    "i18n/": "Django's set_language: no ids, writes only the language cookie",
    "healthz": "no ids, no rows; tests/site/test_healthz.py",
    "login/": "password sign-in (axes throttling); tests/site/test_auth_throttle.py",
    "logout/": "sign-out of the session only; tests/site/test_auth_throttle.py",
    "password-reset/": "the reset flow by email (uidb64/token); tests/site/test_password_reset.py",
    "static/": "static files (WhiteNoise), when DEBUG serves them",
    "dev/": "the developer's catalogue of table states: DEBUG only (404 otherwise), made-up rows "
    "rolled back; tests/games/test_catalogue.py",
    "oidc/": "sign-in with the school's account (404 where none is configured); "
    "tests/site/test_oidc_signin.py",
}

# --- the URL parameters: which row each names -------------------------------------------------
# (URL name, parameter) → kind of row in a party (tests/site/two_schools.py), or "=value" for a
# fixed word. A URL parameter missing here fails test_every_url_parameter_is_known.

KWARG_KINDS: dict[tuple[str, str], str] = {
    ("classrooms:classroom_detail", "pk"): "classroom",
    ("classrooms:classroom_edit", "pk"): "classroom",
    ("classrooms:classroom_archive", "pk"): "classroom",
    ("classrooms:classroom_copy", "pk"): "classroom",
    ("classrooms:students_add", "pk"): "classroom",
    ("classrooms:student_edit", "pk"): "classroom",
    ("classrooms:student_edit", "sid"): "student",
    ("classrooms:student_move", "pk"): "classroom",
    ("classrooms:student_move", "sid"): "student",
    ("classrooms:student_remove", "pk"): "classroom",
    ("classrooms:student_remove", "sid"): "student",
    ("classrooms:student_code_reset", "pk"): "classroom",
    ("classrooms:student_code_reset", "sid"): "student",
    ("classrooms:student_signin_unlock", "pk"): "classroom",
    ("classrooms:student_signin_unlock", "sid"): "student",
    ("classrooms:levels", "pk"): "classroom",
    ("classrooms:signin_cards", "pk"): "classroom",
    ("classrooms:code_lookup", "pk"): "classroom",
    ("classrooms:invite_revoke", "pk"): "teacher_invite",
    ("classrooms:invite_accept", "token"): "teacher_invite_token",
    ("classrooms:class_game_setup", "pk"): "classroom",
    ("classrooms:history", "pk"): "classroom",
    ("classrooms:play_now", "pk"): "classroom",
    ("classrooms:attendance_mark", "pk"): "classroom",
    ("classrooms:attendance_mark", "sid"): "student",
    ("classrooms:session_live", "pk"): "session",
    ("classrooms:session_live_table", "pk"): "session",
    ("classrooms:session_live_table", "gid"): "running_game",
    ("classrooms:session_control", "pk"): "session",
    ("classrooms:seat_replace", "pk"): "session",
    ("classrooms:seat_replace", "gid"): "running_game",
    ("classrooms:game_replay", "pk"): "finished_game",
    ("classrooms:student_replay", "pk"): "finished_game",
    ("classrooms:parent_replay", "student_id"): "child",
    ("classrooms:parent_replay", "pk"): "finished_game",
    ("games:tablet_pictures", "student_id"): "student",
    ("games:table", "game_id"): "running_game",
    ("games:table_move", "game_id"): "running_game",
    ("games:table_log", "game_id"): "running_game",
    ("games:table_steps", "game_id"): "running_game",
    ("games:practice_stop", "game_id"): "practice_game",
    ("games:table_stream", "game_id"): "running_game",
    ("classrooms:session_stream", "session_id"): "session",
    ("games:board_table", "game_id"): "running_game",
    ("games:board_session", "session_id"): "session",
    ("games:board_class", "classroom_id"): "classroom",
    ("games:board_join_qr", "classroom_id"): "classroom",
    ("games:board_session_mistakes", "session_id"): "session",
    ("games:board_class_mistakes", "classroom_id"): "classroom",
    ("games:board_mistake", "play_id"): "play",
    ("games:practice_goals", "pk"): "classroom",
    ("games:practice_goal_delete", "pk"): "classroom",
    ("games:practice_goal_delete", "goal_id"): "goal",
    ("reports:child", "student_id"): "child",
    ("reports:child_pdf", "student_id"): "child",
    ("reports:class", "classroom_id"): "classroom",
    ("reports:class_csv", "classroom_id"): "classroom",
    ("reports:student", "student_id"): "student",
    ("reports:invite_create", "student_id"): "student",
    ("reports:student_export", "student_id"): "student",
    ("reports:student_erase", "student_id"): "student",
    ("reports:invite_revoke", "invite_id"): "parent_invite",
    ("reports:link_revoke", "link_id"): "parent_link",
    ("reports:job", "job_id"): "job",
    ("reports:recommendation_decide", "rec_id"): "recommendation",
    ("reports:recommendation_decide", "decision"): "=accept",
    ("reports:mail:unsubscribe", "token"): "unsubscribe_token",
    ("reports:child_moves", "student_id"): "child",
    ("reports:student_moves", "student_id"): "student",
    ("reports:class_moves", "classroom_id"): "classroom",
    ("reports:live_skills", "session_id"): "session",
    ("reports:live_cell", "session_id"): "session",
    ("reports:live_cell", "student_id"): "student",
    ("reports:live_cell", "skill"): "=addsub_10",
    ("schooladmin:staff_active", "pk"): "staff_account",
    ("schooladmin:staff_password", "pk"): "staff_account",
    ("schooladmin:staff_unlock", "pk"): "staff_account",
    ("twofactor:reset", "user_id"): "staff",
    # The development outbox (DEBUG only): its emails belong to no party; 404 when not DEBUG.
    ("reports:mail:outbox_email", "email_id"): "=1",
    ("reports:mail:outbox_email_html", "email_id"): "=1",
}

# --- what a POST carries so that, from the owner, it would act ------------------------------------
# Values "{kind}" are the party's row of that kind (its pk), "{kind.attr}" one of its fields:
# a URL without ids (reports:build) names its rows in the body, and is walked per party too.

TOMORROW = (timezone.localdate() + timedelta(days=1)).isoformat()
POST_DATA: dict[str, dict] = {
    "classrooms:classroom_edit": {
        "name": "Renamed",
        "student_idle_minutes": 10,
        "read_aloud": "auto",
    },
    "classrooms:classroom_copy": {
        "name": "Next year",
        "school_year": "2027-2028",
        "students": ["{student}"],
        "archive_old": "on",
    },
    "classrooms:students_add": {"names": "Newcomer", "number_range": 10, "tier": 1},
    "classrooms:student_edit": {"name": "Renamed", "number_range": 20, "tier": 2},
    "classrooms:student_move": {"to_classroom": "{own:classroom}"},
    "classrooms:student_remove": {"confirm": "yes"},
    "classrooms:levels": {
        "action": "bulk",
        "students": ["{student}"],
        "bulk_range": 20,
        "bulk_tier": 2,
    },
    "classrooms:session_control": {"action": "end"},
    "classrooms:attendance_mark": {"present": "0"},
    "classrooms:seat_replace": {"position": 0, "strength": "easy"},
    "classrooms:invite_accept": {
        "username": "newteacher",
        "password1": "Kavet-m-eus-2026!",
        "password2": "Kavet-m-eus-2026!",
        "first_name": "New",
        "last_name": "Teacher",
    },
    "classrooms:invites": {"email": "x@example.org", "first_name": "X", "last_name": "Y"},
    "games:table_move": {"type": "nothing", "seen_version": "{running_game.version}"},
    "games:practice_start": {"computers": 1, "strength": "easy"},
    "games:practice_goals": {"kind": "games", "target": 3, "due_on": TOMORROW},
    "games:tablet_pictures": {
        "so_far": "{student.pictures_so_far}",
        "pick": "{student.pictures_last}",
    },
    "reports:student_erase": {"confirm_name": "{student.name}"},
    "reports:build": {"student": "{student}"},
    "reports:mail:settings": {"weekly": "off"},
    "reports:mail:preview": {"parent": "{parent_link.parent_id}"},
    "reports:mail:school_settings": {"weekday": "2", "hour": "17"},
    "reports:mail:unsubscribe": {"List-Unsubscribe": "One-Click"},
    "schooladmin:staff_active": {"active": "0"},
}

# The cells where answering with the other party's words (and signing in) is the design.
ALLOWED: dict[tuple[str, str, str], str] = {
    (
        "games:tablet_pictures",
        "student",
        "A1-other",
    ): "the class's tablet lists its children's names to whoever holds it, and a classmate's "
    "three pictures (the POST sends the right ones) sign the tablet in as that classmate",
}

ROLES = ("anonymous", "student", "parent", "teacher", "school_admin")
OTHER_PARTIES = {
    "anonymous": ("A1-seen-from-outside", "B"),
    "student": ("A1-other", "A2", "B"),
    "parent": ("A1-other", "A2", "B"),
    "teacher": ("A2", "B"),
    "school_admin": ("B",),
}
SAFE_STATUSES = {204, 301, 302, 303, 307, 308, 400, 403, 404, 405}
TEXT_TYPES = ("text/html", "text/plain", "text/csv", "application/json")
# Rows a request writes by design whoever sends it: the session (expiry, messages, the tablet's
# last activity) is the requester's own and no party's data.
# Sessions change with every sign-in; a refused try is counted by the rate limits (that is
# their job: kavet_site.throttles), so neither is "a row the request changed". Nor is the
# tablet registry (games.signin): the id handed to the requesting tablet, its last-seen time and
# the children it signed in with their pictures are that tablet's own, whoever holds it.
# Rows a request may add without changing anyone's data: sessions, counters, the tablets seen, and
# the activity log (a download of one's own school's class lists is on it, a refused one not:
# tests/classrooms/test_schooladmin_audit.py).
UNHASHED = {
    "sessions.session",
    "throttles.counter",
    "games.tablet",
    "games.tabletsignin",
    "audit.auditevent",
}
CELL_FLOOR = 2000
# The POSTs that, sent by the owner (own rows), do change rows: so the same POST with another
# party's ids is a real attempt, and its "no row changed" means something. Kept as a floor.
OWNER_WRITES = {
    "classrooms:attendance_mark",
    "classrooms:classroom_archive",
    "classrooms:classroom_copy",
    "classrooms:classroom_edit",
    "classrooms:invite_accept",
    "classrooms:invite_revoke",
    "classrooms:levels",
    "classrooms:seat_replace",
    "classrooms:session_control",
    "classrooms:student_code_reset",
    "classrooms:student_edit",
    "classrooms:student_remove",
    "classrooms:students_add",
    "games:practice_goal_delete",
    "games:practice_goals",
    "games:table_move",
    "games:tablet_pictures",
    "reports:invite_create",
    "reports:invite_revoke",
    "reports:link_revoke",
    "reports:mail:unsubscribe",
    "reports:recommendation_decide",
    "reports:student_erase",
    "schooladmin:staff_active",
}

# The mark sets up the test database; the rows themselves are the module's (fixture `world`).
# One module-scoped walk whose last test counts the cells: on one xdist worker (tests/parallel.py).
pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("url_roles")]

_KWARG = re.compile(r"<(?:\w+:)?(\w+)>")
_PLACEHOLDER = re.compile(r"^\{(own:)?(\w+)(?:\.(\w+))?\}$")


def walked_urls() -> list[tuple[str, str, list[str]]]:
    """(route, URL name, parameters) of every URL pattern of the site outside the exclusions."""
    found: list[tuple[str, str, list[str]]] = []

    def walk(resolver, prefix: str, namespace: str) -> None:
        for p in resolver.url_patterns:
            route = prefix + str(p.pattern)
            if isinstance(p, URLResolver):
                ns = namespace
                if p.namespace:
                    ns = f"{namespace}:{p.namespace}" if namespace else p.namespace
                walk(p, route, ns)
            elif isinstance(p, URLPattern):
                if any(route.startswith(x) for x in EXCLUDED_PREFIXES):
                    continue
                name = f"{namespace}:{p.name}" if namespace else p.name
                found.append((route, name, _KWARG.findall(route)))

    walk(get_resolver(), "", "")
    return found


URLS = walked_urls()


# --- the rows, once per module ----------------------------------------------------------------


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """Both schools, built once inside a transaction rolled back when the module is done."""
    from kavet_site.celery import app

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    hashers = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])
    hashers.enable()
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            cache.clear()
            from tests.site import two_schools

            data = two_schools.build()
            data["clients"] = {role: _client_for(role, data) for role in ROLES}
            data["stats"] = {
                "cells": 0,
                "urls": 0,
                "findings": [],
                "owner_writes": {},
                "owner_wrote": {},
            }
            yield data
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)
            hashers.disable()
            app.conf.task_always_eager = eager
            cache.clear()


def _client_for(role: str, data: dict) -> Client:
    client = Client()
    users = data["users"]
    if role == "anonymous":
        return client
    if role == "student":
        # As a tablet does it: the class code once, then the child's three pictures.
        student = users["student"]
        assert (
            client.post(
                reverse("games:tablet_signin"), {"code": users["classroom_a1"].code}
            ).status_code
            == 302
        )
        so_far = ""
        response = None
        for pick in decode(student.picture_code):
            response = client.post(
                reverse("games:tablet_pictures", args=[student.pk]),
                {"so_far": so_far, "pick": pick},
            )
            so_far = f"{so_far}-{pick}" if so_far else str(pick)
        assert response.status_code == 302 and response.url == reverse("games:student_home")
        return client
    client.force_login(users[role])
    return client


# --- one cell ---------------------------------------------------------------------------------


def _hashed_models() -> list:
    return [
        model
        for model in apps.get_models(include_auto_created=True)
        if model._meta.label_lower not in UNHASHED
    ]


@functools.cache
def _fingerprint_sql(alias: str) -> str:
    """PostgreSQL: every table's row count and an md5 of all its rows (each row as the database
    writes it, in key order) in one statement: one round trip per fingerprint instead of one per
    table (two fingerprints a cell, 3,000+ cells: that was two thirds of this module's time)."""
    quote = connections[alias].ops.quote_name
    return "\nUNION ALL\n".join(
        f"SELECT '{model._meta.label_lower}', count(*), "
        f"md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t.{quote(model._meta.pk.column)}),"
        f" '')) FROM {quote(model._meta.db_table)} AS t"
        for model in _hashed_models()
    )


def _rows_fingerprint() -> dict[str, tuple[int, str]]:
    """Per model: how many rows, and a hash of all of them (read as the database has them)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(_fingerprint_sql(connection.alias))
            return {label: (count, digest) for label, count, digest in cursor.fetchall()}
        out = {}
        for model in _hashed_models():
            table = connection.ops.quote_name(model._meta.db_table)
            pk = connection.ops.quote_name(model._meta.pk.column)
            cursor.execute(f"SELECT * FROM {table} ORDER BY {pk}")
            rows = cursor.fetchall()
            out[model._meta.label_lower] = (
                len(rows),
                hashlib.sha256(repr(rows).encode()).hexdigest(),
            )
        return out


def _value(kind: str, party: dict) -> object:
    if kind.startswith("="):
        return kind[1:]
    row = party[kind]
    return row.pk if hasattr(row, "pk") else row


def _placeholder(template: object, party: dict, own: dict) -> object:
    if isinstance(template, list):
        return [_placeholder(t, party, own) for t in template]
    m = _PLACEHOLDER.match(str(template))
    if not m:
        return template
    source = own if m.group(1) else party
    row = source.get(m.group(2))
    if row is None:
        return ""
    attr = m.group(3)
    if attr is None:
        return row.pk
    if attr == "pictures_so_far":
        return "-".join(str(i) for i in decode(row.picture_code)[:-1])
    if attr == "pictures_last":
        return decode(row.picture_code)[-1]
    if attr == "version":
        row.refresh_from_db()
    return getattr(row, attr)


def _variants(
    name: str, params: list[str], role: str, parties: dict
) -> list[tuple[str, dict, dict]]:
    """(label, kwargs-party per parameter, strings party) for each party the role must not
    reach; a URL of two ids also gets one own id and one foreign."""
    own = parties["A1"]
    out = []
    for other_name in OTHER_PARTIES[role]:
        other = parties[other_name]
        out.append((other_name, {p: other for p in params}, other))
        objects = [p for p in params if not KWARG_KINDS[(name, p)].startswith("=")]
        if len(objects) > 1:
            for foreign in objects:
                mixed = {p: (other if p == foreign else own) for p in params}
                out.append((f"A1+{other_name}[{foreign}]", mixed, other))
    return out


def _cell(client: Client, method: str, url: str, data: dict | None) -> tuple[object, str]:
    """The response (or the exception raised), without reading an open stream; the client's
    cookies are put back, as the rows are (a sign-out in one cell does not sign out the next)."""
    saved = copy.deepcopy(client.cookies)
    try:
        if method == "GET":
            response = client.get(url)
        else:
            response = client.post(url, data or {})
    except Exception as exc:  # the test client re-raises the view's exception: that is a 500
        return exc, ""
    finally:
        client.cookies = saved
    if response.streaming:
        # Closed unread (a stream lasts minutes), and as the test client closes one: without
        # request_finished closing the connection that holds this module's transaction.
        request_finished.disconnect(close_old_connections)
        try:
            response.close()
        finally:
            request_finished.connect(close_old_connections)
        return response, ""
    return response, response.content.decode("utf-8", errors="replace")


def _judge(response, body: str, strings: list[str], *, foreign: bool) -> str | None:
    """None when the answer is fine; else what is wrong. `foreign`: the URL names another
    party's rows, so a 200 must not be a download or a stream either."""
    if isinstance(response, Exception):
        return f"500 ({type(response).__name__}: {response})"
    status = response.status_code
    if status >= 500:
        return f"{status}"
    if status in SAFE_STATUSES:
        return None
    if foreign and response.streaming:
        return f"LEAK: {status} open stream"
    ctype = response.get("Content-Type", "")
    if foreign and not ctype.startswith(TEXT_TYPES):
        return f"LEAK: {status} {ctype} download"
    seen = [s for s in strings if s in body]
    if seen:
        return f"LEAK: {status} shows {seen}"
    return None


def _run(
    world: dict,
    method: str,
    url: str,
    data: dict | None,
    strings: list[str],
    *,
    client: Client,
    foreign: bool,
    writes: bool,
    measure: bool = False,
) -> str | None:
    """One cell, in a savepoint rolled back after it; `writes`: no row may change; `measure`:
    the models it changed are noted in world["stats"]["owner_writes"] (the owner's POSTs)."""
    cache.clear()  # the cache starts afresh in every cell (the throttles: the savepoint below)
    point = transaction.savepoint()
    try:
        before = _rows_fingerprint() if writes or measure else None
        response, body = _cell(client, method, url, data)
        problem = _judge(response, body, strings, foreign=foreign)
        if (writes or measure) and problem is None:
            after = _rows_fingerprint()
            changed = sorted(k for k in after if after[k] != before.get(k))
            if measure:
                world["stats"]["owner_writes"][url] = changed
            elif changed:
                problem = f"WRITE: {response.status_code} changed {changed}"
        return problem
    finally:
        transaction.savepoint_rollback(point)
        world["stats"]["cells"] += 1


def _has_placeholders(name: str) -> bool:
    values = POST_DATA.get(name, {}).values()
    return any(_PLACEHOLDER.match(str(v[0] if isinstance(v, list) else v)) for v in values)


def _kwargs(name: str, params: list[str], kwarg_parties: dict) -> dict | None:
    try:
        return {p: _value(KWARG_KINDS[(name, p)], kwarg_parties[p]) for p in params}
    except KeyError:
        return None  # the party has no row of that kind


def _post_data(name: str, party: dict, own: dict) -> dict:
    return {k: _placeholder(v, party, own) for k, v in POST_DATA.get(name, {}).items()}


# --- the tests --------------------------------------------------------------------------------


def test_every_url_parameter_is_known():
    """A new URL parameter must be put in KWARG_KINDS, saying which row it names."""
    unknown = [
        (name, p, route)
        for route, name, params in URLS
        for p in params
        if (name, p) not in KWARG_KINDS
    ]
    assert not unknown, (
        f"URL parameters the walk does not know (add them to KWARG_KINDS): {unknown}"
    )
    walked = {(name, p) for _route, name, params in URLS for p in params}
    stale = sorted(set(KWARG_KINDS) - walked)
    assert not stale, f"KWARG_KINDS names URL parameters that no longer exist: {stale}"
    assert not set(POST_DATA) - {name for _r, name, _p in URLS}, "POST_DATA of a URL that is gone"


@pytest.mark.parametrize("route,name,params", URLS, ids=[name for _r, name, _p in URLS])
def test_no_url_crosses_schools(world, django_db_blocker, record_property, route, name, params):
    parties = world["parties"]
    own = parties["A1"]
    findings: list[str] = []

    def cell(method, url, data, strings, role, label, *, foreign, writes, measure=False):
        problem = _run(
            world,
            method,
            url,
            data,
            strings,
            client=world["clients"][role],
            foreign=foreign,
            writes=writes,
            measure=measure,
        )
        if measure and world["stats"]["owner_writes"].pop(url, None):
            world["stats"]["owner_wrote"].setdefault(name, set()).add(role)
        if problem:
            findings.append(f"{method} {url} as {role} with {label}: {problem}")

    with django_db_blocker.unblock():
        for role in ROLES:
            others = OTHER_PARTIES[role]
            if params or _has_placeholders(name):
                # The URL (or its body) names rows: walked with each other party's.
                for label, kwarg_parties, other in _variants(name, params, role, parties):
                    kwargs = _kwargs(name, params, kwarg_parties)
                    if kwargs is None:
                        continue
                    url = reverse(name, kwargs=kwargs)
                    allowed = (name, role, label) in ALLOWED
                    strings = [] if allowed else other["strings"]
                    cell("GET", url, None, strings, role, label, foreign=True, writes=True)
                    cell(
                        "POST",
                        url,
                        _post_data(name, other, own),
                        strings,
                        role,
                        label,
                        foreign=True,
                        writes=not allowed,
                    )
            else:
                # No ids: the role's own page, which must show no other party's words; a GET
                # writes nothing, a POST acts on the role's own rows (so it may write).
                url = reverse(name)
                for other in others:
                    cell(
                        "GET",
                        url,
                        None,
                        parties[other]["strings"],
                        role,
                        other,
                        foreign=False,
                        writes=True,
                    )
                strings = [s for other in others for s in parties[other]["strings"]]
                cell(
                    "POST",
                    url,
                    _post_data(name, own, own),
                    strings,
                    role,
                    "+".join(others),
                    foreign=False,
                    writes=False,
                )
            if params:
                # The role's own rows: never a 500; a parent's page never names another family.
                kwargs = _kwargs(name, params, {p: own for p in params})
                if kwargs is not None:
                    url = reverse(name, kwargs=kwargs)
                    strings = parties["A1-other"]["strings"] if role == "parent" else []
                    cell("GET", url, None, strings, role, "own rows", foreign=False, writes=False)
                    cell(
                        "POST",
                        url,
                        _post_data(name, own, own),
                        strings,
                        role,
                        "own rows",
                        foreign=False,
                        writes=False,
                        measure=True,
                    )
    world["stats"]["urls"] += 1
    world["stats"]["findings"] += findings
    record_property("url_role_cells", world["stats"]["cells"])
    assert not findings, "\n".join(findings)


def test_the_walk_counts_its_cells(world, record_property):
    """Last: the number of URL × role × party × method cells, printed and kept above a floor."""
    stats = world["stats"]
    if stats["urls"] < len(URLS):
        pytest.skip("only part of the walk ran (-k or a failure before it)")
    record_property("url_role_cells", stats["cells"])
    print(
        f"\nURL × role walk: {len(URLS)} URLs, {len(ROLES)} roles, {stats['cells']} cells "
        f"(URL × role × party × method), {len(stats['findings'])} findings"
    )
    assert stats["cells"] >= CELL_FLOOR
    missing = OWNER_WRITES - set(stats["owner_wrote"])
    assert not missing, f"the owner's POST no longer changes anything (fix POST_DATA): {missing}"
