"""A teacher cannot see or change another teacher's class at any URL, even by guessing ids."""

from __future__ import annotations

import pytest
from django.urls import URLPattern, reverse

from classgames.models import ClassSession
from classgames.urls import urlpatterns as class_game_urlpatterns
from classrooms import invitations, permissions
from classrooms.models import Classroom, Student, TeacherInvite
from classrooms.services import TEACHER_LINK
from classrooms.urls import urlpatterns as classroom_urlpatterns
from games.models import Game
from tests import factories
from tests.classrooms.conftest import finished_game_rows

PUBLIC = {"invite_accept"}  # opened from an e-mailed link, before any sign-in
ADMIN_ONLY = {"invites", "invite_revoke"}
# GET only, refused before anything is read (the push streams): a POST is a 405 whatever the id.
GET_ONLY = {"session_stream"}
urlpatterns = classroom_urlpatterns + class_game_urlpatterns  # one namespace, "classrooms"
PATTERNS = {p.name: p for p in urlpatterns if isinstance(p, URLPattern)}
NAMES = sorted(PATTERNS)
# Patterns that carry an id or a token: the ones a guess can aim at.
GUESSABLE = sorted(n for n, p in PATTERNS.items() if p.pattern.converters)


def _kwargs(pattern: URLPattern, objs: dict) -> dict:
    """Fill a pattern's ids with the target's objects, whatever the pattern is."""
    route = str(pattern.pattern)
    kwargs = {}
    for name in pattern.pattern.converters:
        if name == "sid":
            kwargs[name] = objs["student"].pk
        elif name == "gid":
            kwargs[name] = objs["game"].pk
        elif name == "token":
            kwargs[name] = "not-a-real-token"
        elif name == "session_id":  # the class game's push stream
            kwargs[name] = objs["session"].pk
        elif route.startswith("teacher/class-games/"):
            kwargs[name] = objs["session"].pk
        elif route.startswith("teacher/games/") or route.startswith("me/games/"):
            kwargs[name] = objs["game"].pk
        elif route.startswith("family/child/"):  # a child's game, as their parent opens it
            kwargs[name] = objs["student"].pk if name == "student_id" else objs["game"].pk
        elif route.startswith("teacher/invitations/"):
            kwargs[name] = objs["invite"].pk
        else:
            kwargs[name] = objs["classroom"].pk
    return kwargs


def _objects(classroom: Classroom) -> dict:
    session, game = finished_game_rows(classroom)
    admin = factories.school_admin(school=classroom.school, username=f"admin-{classroom.pk}")
    invite, _token = invitations.create(
        TEACHER_LINK, target=classroom.school, by=admin, email="x@y.invalid"
    )
    return {
        "classroom": classroom,
        "student": classroom.students.order_by("name").first(),
        "session": session,
        "game": game,
        "invite": invite,
    }


# Every POST a page accepts, with data that would change something if it were let through.
HOSTILE_POST = {
    "name": "Hacked",
    "school_year": "2030-2031",
    "student_idle_minutes": "5",
    "names": "Intruder",
    "number_range": "20",
    "tier": "3",
    "action": "end",
    "confirm": "yes",
    "position": "0",
    "strength": "hard",
    "students": "",
    "bulk_range": "20",
    "bulk_tier": "3",
    "present": "",
    "archive_old": "on",
}


def _snapshot(classroom: Classroom) -> tuple:
    classroom.refresh_from_db()
    students = tuple(
        Student.objects.filter(classroom=classroom)
        .order_by("pk")
        .values_list("pk", "name", "number_range", "tier", "picture_code")
    )
    games = tuple(Game.objects.filter(classroom=classroom).values_list("pk", "status", "version"))
    sessions = tuple(ClassSession.objects.filter(classroom=classroom).values_list("pk", "status"))
    invites = tuple(
        TeacherInvite.objects.filter(school=classroom.school).values_list("pk", "revoked_at")
    )
    return (
        classroom.name,
        classroom.archived_at,
        students,
        games,
        sessions,
        invites,
        Classroom.objects.count(),
    )


def test_every_url_pattern_is_covered():
    """Every pattern either carries an id (and is in the guessing test) or is a page of one's own."""
    assert "teacher_home" in NAMES
    assert set(NAMES) - set(GUESSABLE) == {"teacher_home", "classroom_create", "invites"}


@pytest.mark.django_db
@pytest.mark.parametrize("name", GUESSABLE)
@pytest.mark.parametrize("target", ["colleague", "other_school"])
def test_a_teacher_gets_404_for_another_teachers_class(
    client, teacher, other_classroom, foreign_classroom, name, target
):
    room = other_classroom if target == "colleague" else foreign_classroom
    objs = _objects(room)
    for s in objs["student"], objs["classroom"]:
        s.refresh_from_db()
    pattern = PATTERNS[name]
    url = reverse(f"classrooms:{name}", kwargs=_kwargs(pattern, objs))
    before = _snapshot(room)
    client.force_login(teacher)
    expected = {404} if name not in ADMIN_ONLY else {403}
    if name in PUBLIC:
        expected = {404}  # an unknown token: the same page as an expired one
    assert client.get(url).status_code in expected | ({405} if name not in PUBLIC else set())
    post = client.post(url, HOSTILE_POST)
    assert post.status_code in expected | ({405} if name in GET_ONLY else set()), (url, post)
    assert _snapshot(room) == before


# game_replay needs a real game: its own-teacher case is in test_class_games. The child's and
# the parent's replays are not teachers' pages: tests/classgames/test_replay.py opens them.
OWN_PAGES = sorted(
    set(GUESSABLE) - PUBLIC - ADMIN_ONLY - {"game_replay", "student_replay", "parent_replay"}
)


@pytest.mark.django_db
@pytest.mark.parametrize("name", OWN_PAGES)
def test_the_classs_own_teacher_reaches_the_same_urls(client, other_teacher, other_classroom, name):
    """The control for the test above: the 404s come from the permission, not a broken URL."""
    objs = _objects(other_classroom)
    pattern = PATTERNS[name]
    client.force_login(other_teacher)
    response = client.get(reverse(f"classrooms:{name}", kwargs=_kwargs(pattern, objs)))
    assert response.status_code in (200, 405)


@pytest.mark.django_db
def test_guessed_ids_give_the_same_404_as_missing_ones(client, teacher, other_classroom):
    client.force_login(teacher)
    foreign = client.get(reverse("classrooms:classroom_detail", args=[other_classroom.pk]))
    missing = client.get(reverse("classrooms:classroom_detail", args=[999999]))
    assert foreign.status_code == missing.status_code == 404


@pytest.mark.django_db
def test_a_student_of_another_class_is_404_even_under_ones_own_class(
    client, teacher, classroom, students, other_classroom
):
    """The student id must belong to the class in the URL: no mixing of ids."""
    client.force_login(teacher)
    stranger = other_classroom.students.first()
    for name in ("student_edit", "student_move", "student_remove"):
        url = reverse(f"classrooms:{name}", args=[classroom.pk, stranger.pk])
        assert client.get(url).status_code == 404
        assert client.post(url, {"confirm": "yes", "name": "X"}).status_code == 404
    assert Student.objects.filter(pk=stranger.pk, name=stranger.name).exists()


@pytest.mark.django_db
def test_teacher_home_lists_only_the_teachers_classes(client, teacher, classroom, other_classroom):
    client.force_login(teacher)
    page = client.get(reverse("classrooms:teacher_home")).content.decode()
    assert classroom.name in page
    assert other_classroom.name not in page


@pytest.mark.django_db
def test_a_school_admin_sees_every_class_of_the_school_and_no_other(
    client, school_admin, classroom, other_classroom, foreign_classroom
):
    visible = set(permissions.readable(school_admin, Classroom))
    assert visible == {classroom, other_classroom}
    assert set(permissions.readable(school_admin, Student)) == set(
        Student.objects.filter(classroom__in=[classroom, other_classroom])
    )
    client.force_login(school_admin)
    page = client.get(reverse("classrooms:teacher_home")).content.decode()
    assert classroom.name in page and other_classroom.name in page
    assert foreign_classroom.name not in page
    assert (
        client.get(reverse("classrooms:classroom_detail", args=[other_classroom.pk])).status_code
        == 200
    )
    assert (
        client.get(reverse("classrooms:classroom_detail", args=[foreign_classroom.pk])).status_code
        == 404
    )


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["student", "parent"])
def test_students_and_parents_cannot_open_teachers_pages(client, classroom, role):
    user = factories.user(role=role, school=classroom.school)
    client.force_login(user)
    assert client.get(reverse("classrooms:teacher_home")).status_code == 403
    assert (
        client.get(reverse("classrooms:classroom_detail", args=[classroom.pk])).status_code == 403
    )


@pytest.mark.django_db
def test_signed_out_visitors_are_sent_to_sign_in(client, classroom):
    response = client.get(reverse("classrooms:classroom_detail", args=[classroom.pk]))
    assert response.status_code == 302 and "/login/" in response["Location"]
