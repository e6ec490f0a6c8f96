"""The class board (classgames/board.py): a table read-only on the projector, and the mistake of the
day rebuilt from the game's seed and moves (R9.2), anonymised, with the solver's answer (R5.6)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import translation

from classgames.models import ClassSession
from games import services
from games.models import Game, Play
from tests import factories
from tests.games.conftest import TABLE_2_3_5, card, tokens

pytestmark = pytest.mark.django_db

# Names no French or English word contains, so their absence from a page means something.
ZED, MAEL = "Zéphyrinette", "Maëlwennig"


@pytest.fixture(autouse=True)
def _english():
    with translation.override("en"):
        yield


@pytest.fixture
def zed(classroom):
    return factories.student(classroom=classroom, name=ZED, picture_code="0-1-2")


@pytest.fixture
def mael(classroom):
    return factories.student(classroom=classroom, name=MAEL, picture_code="3-4-5")


@pytest.fixture
def session(classroom, teacher):
    return ClassSession.objects.create(
        classroom=classroom, created_by=teacher, status=ClassSession.Status.RUNNING
    )


@pytest.fixture
def table(classroom, session, zed, mael):
    """Table 2 of the class game, opening with 2 3 5; no challenge window: the engine referees
    alone (R5.6), so every verdict is told at once."""
    return factories.class_table(
        classroom=classroom,
        students=[zed, mael],
        label="2",
        draw_order=TABLE_2_3_5,
        session=session,
    )


def card_labels(html: str) -> list[str]:
    return re.findall(r'<span class="bcard[^"]*">([^<]+)</span>', html)


def submit(game: Game, seat: int, **move) -> None:
    game.refresh_from_db()
    outcome = services.move_submit(game_id=game.pk, seat=seat, move=move, seen_version=game.version)
    assert outcome.applied, outcome.message


@pytest.fixture
def mistakes(table):
    """Move 1: a wrong 2 + 5 = 3 (R3.5); move 2: a false "nothing to do" with 2 3 5 still there."""
    submit(table, 0, type="announce", tokens=tokens(card(2), "+", card(5), "=", card(3)))
    submit(table, 1, type="nothing")
    wrong = Play.objects.get(game=table, kind=Play.Kind.ANNOUNCE)
    missed = Play.objects.get(game=table, kind=Play.Kind.NOTHING)
    assert wrong.verdict_kind == "wrong" and missed.missed
    return wrong, missed


@pytest.fixture
def teacher_client(client, teacher):
    client.force_login(teacher)
    return client


def test_the_board_shows_the_table_read_only_without_a_token_or_a_control(teacher_client, table):
    page = teacher_client.get(reverse("games:board_table", args=[table.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Table 2" in html and ZED in html and MAEL in html  # names big, as on the tablets
    assert f"{ZED}'s turn." in html
    # The three opening cards, as board cards; nothing to press (R1.5: a spectator's view).
    assert html.count('class="bcard') == 3
    assert "<button" not in html.split('id="board"')[1]
    assert "<form" not in html.split('id="board"')[1]
    assert "?t=" not in html and "move-form" not in html
    # The session stream (the teacher may open it), not a seat's table stream.
    assert reverse("classrooms:session_stream", args=[table.class_table.session_id]) in html
    assert "/push/table/" not in html


def test_the_board_shows_the_last_ruling_big_with_its_reason(teacher_client, mistakes, table):
    html = teacher_client.get(reverse("games:board_table", args=[table.pk])).content.decode()
    # The last ruling is the false "nothing to do" (R4.5) and its lesson (R5.6).
    assert "bboard-ruling" in html and 'class="ruling ruling-ruled' in html
    assert "Nothing to do." in html


def test_a_board_poll_at_the_same_version_gets_204_and_a_new_version_the_board(
    teacher_client, table
):
    url = reverse("games:board_table", args=[table.pk])
    same = teacher_client.get(url, {"v": table.version, "s": table.status}, HTTP_HX_REQUEST="true")
    assert same.status_code == 204
    older = teacher_client.get(
        url, {"v": table.version - 1, "s": table.status}, HTTP_HX_REQUEST="true"
    )
    assert older.status_code == 200 and older.content.decode().lstrip().startswith(
        '<div id="board"'
    )


def test_the_board_and_the_mistakes_are_404_for_another_teacher_and_a_student(
    client, table, mistakes, school, zed, other_school
):
    wrong, _missed = mistakes
    urls = [
        reverse("games:board_table", args=[table.pk]),
        reverse("games:board_session", args=[table.class_table.session_id]),
        reverse("games:board_session_mistakes", args=[table.class_table.session_id]),
        reverse("games:board_class_mistakes", args=[table.classroom_id]),
        reverse("games:board_mistake", args=[wrong.pk]),
    ]
    colleague = factories.teacher(school=school)  # same school, not this class's teacher
    stranger = factories.teacher(school=other_school)
    for user in (colleague, stranger, zed.user):
        client.force_login(user)
        assert [client.get(u).status_code for u in urls] == [404] * len(urls), user
    client.logout()
    for url in urls:
        answer = client.get(url)
        assert answer.status_code == 302 and answer["Location"].startswith(reverse("login"))


def test_bad_ids_are_404_never_500(teacher_client):
    for name in (
        "board_table",
        "board_session",
        "board_session_mistakes",
        "board_class_mistakes",
        "board_mistake",
    ):
        assert teacher_client.get(reverse(f"games:{name}", args=[987654])).status_code == 404
    assert teacher_client.get("/board/table/abc/").status_code == 404


def test_the_mistakes_list_tells_where_and_what_never_who(teacher_client, mistakes, table):
    for url in (
        reverse("games:board_session_mistakes", args=[table.class_table.session_id]),
        reverse("games:board_class_mistakes", args=[table.classroom_id]),
    ):
        html = teacher_client.get(url).content.decode()
        assert "Table 2, move 1" in html and "A wrong operation" in html
        assert "Table 2, move 2" in html and "“Nothing to do”, but there was an operation" in html
        assert ZED not in html and MAEL not in html


def test_yesterdays_games_are_not_in_the_class_list_of_today(teacher_client, mistakes, table):
    from datetime import timedelta

    Play.objects.filter(game=table).update(at=Play.objects.first().at - timedelta(days=1))
    html = teacher_client.get(reverse("games:board_class_mistakes", args=[table.classroom_id]))
    assert "No wrong or missed operation yet." in html.content.decode()


def test_a_wrong_operation_shows_the_cards_as_they_were_then_the_reason_and_the_solvers_answer(
    teacher_client, mistakes
):
    wrong, _missed = mistakes
    url = reverse("games:board_mistake", args=[wrong.pk])
    html = teacher_client.get(url).content.decode()
    # The table before move 1, rebuilt from the seed and the moves: 2 3 5 (R9.2).
    assert card_labels(html) == ["2", "3", "5"]
    assert "2 + 5 = 3" in html and "Find an operation!" in html
    assert "?reveal=1" in html and "makes 7" not in html  # nothing given away before the reveal
    assert ZED not in html and MAEL not in html
    shown = teacher_client.get(url, {"reveal": "1"}).content.decode()
    assert "2 + 5 makes 7, not 3." in shown  # R3.5: the engine's reason
    assert "2 + 3 = 5" in shown  # R5.6, R9.4: the solver's operation on the same cards
    assert shown.count("is-ruled") == 3  # the three cards of the answer light up
    assert ZED not in shown and MAEL not in shown


def test_a_missed_nothing_to_do_reveals_the_operation_the_engine_recorded(teacher_client, mistakes):
    _wrong, missed = mistakes
    html = teacher_client.get(
        reverse("games:board_mistake", args=[missed.pk]), {"reveal": "1"}
    ).content.decode()
    assert "Someone said “Nothing to do”." in html
    # The table before move 2: the 2 3 5 stayed, and Mael turned up one more card (R4.5).
    labels = card_labels(html)
    assert labels[:3] == ["2", "3", "5"] and len(labels) == 4
    assert missed.missed_operation and missed.missed_operation.replace("-", "−") in html  # R5.6
    assert ZED not in html and MAEL not in html


def test_a_mistake_that_no_longer_replays_is_said_so_not_a_500(teacher_client, mistakes, table):
    _wrong, missed = mistakes
    Game.objects.filter(pk=table.pk).update(seed=table.seed + 1, draw_order=[0, 1, 2])
    answer = teacher_client.get(reverse("games:board_mistake", args=[missed.pk]), {"reveal": "1"})
    assert answer.status_code == 200
    html = answer.content.decode()
    # Move 1's cards are not on that table: the engine refuses the replay, the page says so.
    assert "This moment of the game could not be rebuilt." in html
    assert card_labels(html) == []


def test_the_session_board_lists_its_tables_with_a_link_to_each(teacher_client, table):
    html = teacher_client.get(
        reverse("games:board_session", args=[table.class_table.session_id])
    ).content
    html = html.decode()
    assert reverse("games:board_table", args=[table.pk]) in html and "Table 2" in html
    assert reverse("games:board_session_mistakes", args=[table.class_table.session_id]) in html


def _turn_time_ran_out(game: Game, late: float = 1.0) -> None:
    from datetime import timedelta

    from django.utils import timezone

    Game.objects.filter(pk=game.pk).update(timer_deadline=timezone.now() - timedelta(seconds=late))


def test_a_board_left_alone_moves_a_due_turn_on_in_the_embedded_default(teacher_client, table):
    # R4.9
    _turn_time_ran_out(table)
    version = table.version
    teacher_client.get(reverse("games:board_table", args=[table.pk]))
    table.refresh_from_db()
    assert table.version > version


def test_a_board_leaves_a_just_due_turn_to_the_workers(teacher_client, table, monkeypatch):
    from games import scheduling

    monkeypatch.setattr(scheduling, "runs_in_process", lambda: False)
    # A grace of a minute: the page's request comes well within it however slow the box (it
    # had to come within 0.75 s of the real grace, which a loaded CI box once missed).
    monkeypatch.setattr(scheduling, "PAGE_DUE_GRACE", 60.0)
    _turn_time_ran_out(table, late=scheduling.PAGE_DUE_GRACE / 4)
    version = table.version
    assert teacher_client.get(reverse("games:board_table", args=[table.pk])).status_code == 200
    table.refresh_from_db()
    assert table.version == version  # the task or the beat sweep plays it, not a GET


def test_a_board_plays_a_turn_the_workers_could_not_get_to(teacher_client, table, monkeypatch):
    # R4.9: with Redis down no task or sweep runs; the board on the projector moves it on, once.
    from games import scheduling

    monkeypatch.setattr(scheduling, "runs_in_process", lambda: False)
    _turn_time_ran_out(table, late=scheduling.PAGE_DUE_GRACE + 1)
    version = table.version
    for _ in range(2):
        assert teacher_client.get(reverse("games:board_table", args=[table.pk])).status_code == 200
    table.refresh_from_db()
    assert table.version == version + 1


def test_the_class_boards_poll_plays_a_turn_the_workers_could_not_get_to(
    teacher_client, table, monkeypatch
):
    # R4.9: the class game's board on the projector follows the same policy, from the rows it
    # reads for its tables (issue 38: it read every running game's whole state at each poll).
    from games import scheduling

    monkeypatch.setattr(scheduling, "runs_in_process", lambda: False)
    monkeypatch.setattr(scheduling, "PAGE_DUE_GRACE", 60.0)  # however slow the box
    url = reverse("games:board_session", args=[table.class_table.session_id])
    version = table.version
    _turn_time_ran_out(table, late=15.0)  # due, within the grace: the workers' to play
    assert teacher_client.get(url).status_code == 200
    table.refresh_from_db()
    assert table.version == version
    _turn_time_ran_out(table, late=scheduling.PAGE_DUE_GRACE + 1)  # no worker came
    for _ in range(2):
        assert teacher_client.get(url, HTTP_HX_REQUEST="true").status_code in (200, 204)
    table.refresh_from_db()
    assert table.version == version + 1
