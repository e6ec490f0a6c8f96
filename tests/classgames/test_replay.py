"""Replays: who each ruling is credited to, the operation that was possible at each false
"nothing to do" and each missed chance, and who may open the child's and the parent's replay."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse
from django.utils import timezone

from classgames import selectors
from classrooms.models import ParentLink
from games import engine, services
from reports import services as report_services
from reports.progress import week_start_of
from reports.selectors import school_tz
from tests import factories

pytestmark = pytest.mark.django_db


def _text(response) -> str:
    return html.unescape(response.content.decode())


def _is_right(game, text: str) -> bool:
    """The engine's own check of a shown operation on the opening table 2 3 5 (R9.4)."""
    rules = engine.GameConfig.from_dict(game.config).rules
    return engine.check_operation(text, [2, 3, 5], rules).ok


def _move(game, seat: int, **move):
    game.refresh_from_db()
    out = services.move_submit(game_id=game.pk, seat=seat, seen_version=game.version, move=move)
    assert out.applied, out
    return out


@pytest.fixture
def mael(classroom):
    return factories.student(classroom=classroom, name="Maël", picture_code="0-1-2")


@pytest.fixture
def nolwenn(classroom):
    return factories.student(classroom=classroom, name="Nolwenn", picture_code="3-4-5")


@pytest.fixture
def false_challenge_game(make_game, mael, nolwenn):
    """Maël announces a right operation on 2 3 5; Nolwenn calls "Kavet 'm eus!" (R5.5)."""
    game = make_game([{"student": mael}, {"student": nolwenn}])
    _move(game, 0, type="announce", text="2 + 3 = 5")
    _move(game, 1, type="challenge")
    services.game_end(game=game)
    game.refresh_from_db()
    return game


def test_a_false_challenge_credits_the_operation_to_its_author_and_the_challenge_to_the_challenger(
    client, teacher, false_challenge_game
):  # R5.5
    replay = selectors.game_replay(false_challenge_game)
    step = replay["steps"][1]
    assert step["who"] == "Nolwenn"  # the move is Nolwenn's challenge...
    assert [(v["who"], v["ok"], v["text"]) for v in step["verdicts"]] == [
        ("Maël", True, "2 + 3 = 5")  # ...the right operation is Maël's
    ]
    assert [(o["challenger"], o["challenged"], o["ok"]) for o in step["outcomes"]] == [
        ("Nolwenn", "Maël", False)
    ]
    client.force_login(teacher)
    url = reverse("classrooms:game_replay", args=[false_challenge_game.pk])
    page = _text(client.get(url))
    assert "Maël's operation is right: 2 + 3 = 5" in page
    assert "“Kavet 'm eus!” by Nolwenn: False challenge!" in page
    assert "Nolwenn's operation" not in page


def test_a_false_nothing_to_do_and_a_missed_chance_show_the_possible_operation(
    make_game, mael, nolwenn
):  # R5.6
    game = make_game([{"student": mael}, {"student": nolwenn}])
    _move(game, 0, type="nothing")  # 2 3 5 on the table: 2 + 3 = 5 was possible
    _move(game, 1, type="ok")  # nobody challenges: a missed chance
    services.game_end(game=game)
    step = selectors.game_replay(game)["steps"][1]
    assert [(m["kind"], m["who"], m["unchallenged"]) for m in step["missed"]] == [
        ("nothing", "Maël", True)
    ]
    assert _is_right(game, step["missed"][0]["operation"])
    assert step["tone"] == "bad"


def test_a_wrong_operation_nobody_challenged_is_a_missed_chance_with_an_operation(
    make_game, mael, nolwenn
):  # R4.6, R5.6
    game = make_game([{"student": mael}, {"student": nolwenn}])
    _move(game, 0, type="announce", text="2 + 5 = 3")
    _move(game, 1, type="ok")
    services.game_end(game=game)
    step = selectors.game_replay(game)["steps"][1]
    assert [(v["who"], v["ok"]) for v in step["verdicts"]] == [("Maël", False)]
    assert [m["kind"] for m in step["missed"]] == ["chance"]
    assert _is_right(game, step["missed"][0]["operation"])


def test_the_child_replays_only_their_own_finished_games(
    client, classroom, false_challenge_game, mael, make_game
):
    url = reverse("classrooms:student_replay", args=[false_challenge_game.pk])
    client.force_login(mael.user)
    home = client.get(reverse("games:student_home")).content.decode()
    assert url in home  # from "My last games"
    page = _text(client.get(url))
    assert "Maël's operation is right: 2 + 3 = 5" in page and "Nolwenn" in page
    other = factories.student(classroom=classroom, name="Klervi")
    client.force_login(other.user)
    assert client.get(url).status_code == 404  # a game they did not sit at
    running = make_game([{"student": mael}, {"student": other}])
    client.force_login(mael.user)
    assert client.get(reverse("classrooms:student_replay", args=[running.pk])).status_code == 404


def test_the_parent_sees_no_other_childs_name(client, school, false_challenge_game, mael, nolwenn):
    parent = factories.parent(school=school)
    ParentLink.objects.create(parent=parent, student=mael)
    url = reverse("classrooms:parent_replay", args=[mael.pk, false_challenge_game.pk])
    week = week_start_of(timezone.now(), school_tz(school))
    report_services.report_build(student=mael, week_start=week)
    client.force_login(parent)
    report = client.get(reverse("reports:child", args=[mael.pk])).content.decode()
    assert url in report  # the week's games, each with its replay
    page = _text(client.get(url))
    assert "Maël" in page and "Player 2" in page
    assert "Nolwenn" not in page  # not in the players, the rulings, the sentences or the scores
    assert "“Kavet 'm eus!” by Player 2: False challenge!" in page
    # Nolwenn's replay through Maël's parent, or Maël's game through a stranger: 404.
    assert (
        client.get(
            reverse("classrooms:parent_replay", args=[nolwenn.pk, false_challenge_game.pk])
        ).status_code
        == 404
    )
    client.force_login(factories.parent(school=school))
    assert client.get(url).status_code == 404


def test_a_teacher_of_another_class_gets_404(client, school, false_challenge_game, mael):
    stranger = factories.teacher(school=school)
    factories.classroom(school=school, teachers=[stranger], name="Elsewhere")
    client.force_login(stranger)
    assert (
        client.get(reverse("classrooms:game_replay", args=[false_challenge_game.pk])).status_code
        == 404
    )
    url = reverse("classrooms:parent_replay", args=[mael.pk, false_challenge_game.pk])
    assert client.get(url).status_code == 404
