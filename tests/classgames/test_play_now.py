"""One tap to start (issue 28): the class page's attendance, "Play now", and the class board the
projector shows, with the class code, its QR code and each child's name lit as they sit."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from classgames.models import ClassAttendance, ClassSession
from classgames.services import class_session_end, class_session_pause, class_session_play_now
from classrooms.grouping import tables_propose
from games import services as game_services
from games.models import Game, Seat
from games.signin import join_key
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def kids(classroom):
    return [
        factories.student(classroom=classroom, name=name, number_range=r, tier=t)
        for name, r, t in [("Anna", 10, 1), ("Bo", 10, 1), ("Cai", 20, 2), ("Dewi", 20, 2)]
    ]


def _mark(client, classroom, student, present: bool, **extra):
    url = reverse("classrooms:attendance_mark", args=[classroom.pk, student.pk])
    return client.post(url, {"present": "1" if present else "0"}, **extra)


def test_a_tap_marks_a_child_absent_and_the_class_remembers_it(client, teacher, classroom, kids):
    client.force_login(teacher)
    page = client.get(reverse("classrooms:classroom_detail", args=[classroom.pk]))
    assert page.status_code == 200
    assert b'id="play-now"' in page.content and b'aria-pressed="true"' in page.content

    # One tap (HTMX): the block comes back with Bo absent; a double tap ends the same way.
    for _ in range(2):
        r = _mark(client, classroom, kids[1], False, HTTP_HX_REQUEST="true")
        assert r.status_code == 200
    block = r.content.decode()
    assert f' absent" aria-pressed="false" data-student="{kids[1].pk}"' in block
    assert block.count('aria-pressed="true"') == 3 and "<html" not in block
    assert ClassAttendance.objects.get(classroom=classroom).absent == [kids[1].pk]
    # Without script: a plain post, back to the class page.
    r = _mark(client, classroom, kids[2], False)
    assert r.status_code == 302 and r["Location"].endswith("#play-now")
    assert sorted(ClassAttendance.objects.get(classroom=classroom).absent) == sorted(
        [kids[1].pk, kids[2].pk]
    )
    _mark(client, classroom, kids[2], True)
    assert ClassAttendance.objects.get(classroom=classroom).absent == [kids[1].pk]
    # The full set-up page starts from the same attendance.
    setup = client.get(reverse("classrooms:class_game_setup", args=[classroom.pk])).content.decode()
    assert setup.count("checked") >= 3
    assert f'value="{kids[1].pk}" checked' not in setup


def test_a_forged_tap_changes_nothing(client, teacher, classroom, kids, other_school):
    other_class = factories.classroom(school=other_school)
    stranger = factories.student(classroom=other_class, name="Zoe")
    client.force_login(teacher)
    assert _mark(client, classroom, stranger, False).status_code == 404
    assert _mark(client, other_class, stranger, False).status_code == 404
    r = client.post(
        reverse("classrooms:attendance_mark", args=[classroom.pk, kids[0].pk]), {"present": "x"}
    )
    assert r.status_code == 302
    assert not ClassAttendance.objects.exists()


def test_play_now_starts_the_present_children_with_the_usual_settings(
    client, teacher, classroom, kids
):
    client.force_login(teacher)
    _mark(client, classroom, kids[3], False)  # Dewi is away today
    # The class's last class game used 30 s a turn: "Play now" plays the same way.
    ClassSession.objects.create(
        classroom=classroom,
        status=ClassSession.Status.FINISHED,
        settings={"turn_time": 30, "challenge_window": 5, "starter": "first", "cap_range": None},
    )
    r = client.post(reverse("classrooms:play_now", args=[classroom.pk]))
    session = ClassSession.objects.filter(status=ClassSession.Status.RUNNING).get()
    assert r.status_code == 302
    assert r["Location"] == reverse("games:board_session", args=[session.pk])
    seated = set(
        Seat.objects.filter(game__class_table__session=session, bot="").values_list(
            "student__name", flat=True
        )
    )
    assert seated == {"Anna", "Bo", "Cai"}
    games = list(Game.objects.filter(class_table__session=session).order_by("pk"))
    assert all(g.status == Game.Status.RUNNING for g in games)
    assert {g.config["turn_time"] for g in games} == {30}
    # The tables the set-up page proposes for them; each at its weakest player's level (R2.3).
    by_table = [sorted(s.display_name for s in g.seats.all()) for g in games]
    assert by_table == [sorted(s.name for s in t) for t in tables_propose(kids[:3])]
    assert {(g.config["rules"]["max_number"], g.config["rules"]["tier"]) for g in games} == {
        (10, 1)
    }

    # A second tap while it goes on starts nothing: it leads to the class game going on.
    r = client.post(reverse("classrooms:play_now", args=[classroom.pk]))
    assert r["Location"] == reverse("games:board_session", args=[session.pk])
    assert ClassSession.objects.filter(status=ClassSession.Status.RUNNING).count() == 1
    with pytest.raises(ValidationError, match="already playing"):
        class_session_play_now(classroom=classroom, by=teacher)
    page = client.get(reverse("classrooms:classroom_detail", args=[classroom.pk])).content.decode()
    assert reverse("games:board_session", args=[session.pk]) in page


def test_play_now_with_nobody_present_says_so(client, teacher, classroom, kids):
    client.force_login(teacher)
    for kid in kids:
        _mark(client, classroom, kid, False)
    r = client.post(reverse("classrooms:play_now", args=[classroom.pk]), follow=True)
    assert "Mark at least one student present." in r.content.decode()
    assert not ClassSession.objects.exists()


def test_play_now_of_another_school_is_a_404(client, teacher, other_school):
    other_class = factories.classroom(school=other_school)
    factories.student(classroom=other_class, name="Zoe")
    client.force_login(teacher)
    assert client.post(reverse("classrooms:play_now", args=[other_class.pk])).status_code == 404
    assert not ClassSession.objects.exists()


def test_the_board_shows_the_code_the_qr_and_lights_up_a_child_who_sits(
    client, teacher, classroom, kids
):
    client.force_login(teacher)
    client.post(reverse("classrooms:play_now", args=[classroom.pk]))
    session = ClassSession.objects.get()
    url = reverse("games:board_session", args=[session.pk])
    page = client.get(url).content.decode()
    join = f"http://testserver/tablet/?code={classroom.code}&amp;k={join_key(classroom.code)}"
    assert f'data-join-url="{join}"' in page and classroom.code in page
    assert reverse("games:board_join_qr", args=[classroom.pk]) in page
    assert "is-seated" not in page  # nobody sits yet (a computer player is not lit)
    fingerprint = page.split("?v=")[1].split('"')[0]
    # Nothing changed: the poll gets a 204.
    assert client.get(url, {"v": fingerprint}, HTTP_HX_REQUEST="true").status_code == 204

    # Anna's tablet opens her table: her name lights up at the next poll.
    seat = Seat.objects.get(game__class_table__session=session, student=kids[0])
    game_services.table_visit(game=seat.game, seat=seat)
    r = client.get(url, {"v": fingerprint}, HTTP_HX_REQUEST="true")
    assert r.status_code == 200
    fragment = r.content.decode()
    assert "<html" not in fragment
    assert fragment.count("is-seated") == 1
    assert "Anna" in fragment.split("is-seated")[1].split("board-seat")[0]

    # The QR code is an SVG image of the join address.
    qr = client.get(reverse("games:board_join_qr", args=[classroom.pk]))
    assert qr.status_code == 200 and qr["Content-Type"] == "image/svg+xml"
    assert qr.content.startswith(b"<svg") and b"<path" in qr.content


def test_the_class_boards_poll_sends_nothing_for_a_move_and_the_screen_for_a_status(
    client, teacher, classroom, kids
):  # issue 38: every move of the class re-rendered the join screen, which shows no move
    client.force_login(teacher)
    client.post(reverse("classrooms:play_now", args=[classroom.pk]))
    session = ClassSession.objects.get()
    url = reverse("games:board_session", args=[session.pk])
    page = client.get(url).content.decode()
    fingerprint = page.split("?v=")[1].split('"')[0]
    game = session.games.order_by("pk").first()
    before = game.version
    game_services.game_tick(game_id=game.pk, now=timezone.now() + timedelta(minutes=5))
    game.refresh_from_db()
    assert game.version > before  # a move (the time limit's) was played
    assert client.get(url, {"v": fingerprint}, HTTP_HX_REQUEST="true").status_code == 204
    class_session_pause(session=session, by=teacher)
    r = client.get(url, {"v": fingerprint}, HTTP_HX_REQUEST="true")
    assert r.status_code == 200 and "Paused" in r.content.decode()


def test_the_class_board_is_reachable(client, teacher, classroom, kids, other_school):
    client.force_login(teacher)
    # /board/ (was a 404): the teacher's one class's board.
    r = client.get("/board/")
    assert r.status_code == 302
    assert r["Location"] == reverse("games:board_class", args=[classroom.pk])
    page = client.get(r["Location"]).content.decode()
    assert classroom.code in page and "No class game is going on" in page
    # The class page links to it; the live view links to the class game's board.
    detail = client.get(reverse("classrooms:classroom_detail", args=[classroom.pk])).content
    assert reverse("games:board_class", args=[classroom.pk]).encode() in detail
    client.post(reverse("classrooms:play_now", args=[classroom.pk]))
    session = ClassSession.objects.get()
    r = client.get(reverse("games:board_class", args=[classroom.pk]))
    assert r["Location"] == reverse("games:board_session", args=[session.pk])
    live = client.get(reverse("classrooms:session_live", args=[session.pk])).content
    assert reverse("games:board_session", args=[session.pk]).encode() in live
    class_session_end(session=session, by=teacher)
    assert client.get(reverse("games:board_class", args=[classroom.pk])).status_code == 200
    # Another school's class: a 404 for its board and its QR code.
    other_class = factories.classroom(school=other_school)
    assert client.get(reverse("games:board_class", args=[other_class.pk])).status_code == 404
    assert client.get(reverse("games:board_join_qr", args=[other_class.pk])).status_code == 404


def test_two_classes_get_a_chooser(client, teacher, classroom, school):
    second = factories.classroom(school=school, teachers=[teacher], name="CE2 B")
    client.force_login(teacher)
    page = client.get("/board/").content.decode()
    assert reverse("games:board_class", args=[classroom.pk]) in page
    assert reverse("games:board_class", args=[second.pk]) in page


def test_the_join_address_fills_in_the_class_code(client, classroom):
    page = client.get("/tablet/", {"code": classroom.code.lower()}).content.decode()
    assert f'value="{classroom.code}"' in page
    # One tap on the button sends it, counted like a typed code.
    r = client.post(f"/tablet/?code={classroom.code}", {"code": classroom.code})
    assert r.status_code == 302
    names = client.get("/tablet/").content.decode()
    assert classroom.name in names
    # Junk in the address fills in nothing (a new tablet).
    junk = Client().get("/tablet/", {"code": "<b>"}).content.decode()
    assert 'value="' not in junk.split('id="class-code"')[1].split(">")[0]
