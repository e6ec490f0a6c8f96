"""The teacher's live view applies a due time limit no worker has played (R4.9): the same policy
as a tablet's visit (games.services.due_moves_apply). Where workers run it leaves a move that
is only just due to them (games.scheduling.PAGE_DUE_GRACE) and plays one they could not get to —
Redis down — so a class game never freezes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games import scheduling
from games.models import Game, Move
from tests import factories

pytestmark = pytest.mark.django_db


def _due_table(classroom, teacher, students, late: float):
    """A class game's table whose first turn's time ran out `late` seconds ago."""
    game = factories.class_table(classroom=classroom, teacher=teacher, students=students)
    Game.objects.filter(pk=game.pk).update(timer_deadline=timezone.now() - timedelta(seconds=late))
    return game.class_table.session, game


def _look(client, teacher, session) -> int:
    client.force_login(teacher)
    return client.get(reverse("classrooms:session_live", args=[session.pk])).status_code


def test_the_live_view_moves_a_due_turn_on_in_the_embedded_default(
    client, teacher, classroom, anna, bo
):
    session, game = _due_table(classroom, teacher, [anna, bo], late=0.01)
    version = game.version
    assert _look(client, teacher, session) == 200
    game.refresh_from_db()
    assert game.version == version + 1  # R4.9: the turn timed out, once
    assert Move.objects.get(game=game, number=game.version).payload["type"] == "timeout"


def test_the_live_view_leaves_a_just_due_turn_to_the_workers(
    client, teacher, classroom, anna, bo, monkeypatch
):
    monkeypatch.setattr(scheduling, "runs_in_process", lambda: False)
    # A grace of a minute: the page's request comes well within it however slow the box (it
    # had to come within 0.75 s of the real grace, which a loaded CI box once missed).
    monkeypatch.setattr(scheduling, "PAGE_DUE_GRACE", 60.0)
    session, game = _due_table(classroom, teacher, [anna, bo], late=scheduling.PAGE_DUE_GRACE / 4)
    version = game.version
    assert _look(client, teacher, session) == 200
    game.refresh_from_db()
    assert game.version == version


def test_the_live_view_plays_a_turn_the_workers_could_not_get_to(
    client, teacher, classroom, anna, bo, monkeypatch
):
    monkeypatch.setattr(scheduling, "runs_in_process", lambda: False)
    session, game = _due_table(classroom, teacher, [anna, bo], late=scheduling.PAGE_DUE_GRACE + 1)
    version = game.version
    assert _look(client, teacher, session) == 200
    game.refresh_from_db()
    assert game.version == version + 1
    # Looked at again (or the sweep comes late): nothing is due any more, nothing doubles.
    assert _look(client, teacher, session) == 200
    game.refresh_from_db()
    assert game.version == version + 1
    assert Move.objects.filter(game=game, payload__type="timeout").count() == 1


def test_the_view_that_moved_a_due_turn_on_shows_the_table_as_it_now_stands(
    client, teacher, classroom, anna, bo
):
    """The poll reads the tables' rows once for the due turns and the marks; when it applied a
    move it reads them again, so the page's word is the tables' after the move: the next poll
    with that word answers 204, nothing to fetch again (R4.9)."""
    from classgames import selectors

    session, game = _due_table(classroom, teacher, [anna, bo], late=0.01)
    client.force_login(teacher)
    page = client.get(reverse("classrooms:session_live", args=[session.pk]))
    game.refresh_from_db()
    assert game.version == 1  # the turn timed out here
    marks = selectors.live_table_marks(session, timezone.now())
    word = selectors.live_shown(session.status, [mark for *_row, mark in marks])
    assert f"?v={word}" in page.content.decode()
    url = reverse("classrooms:session_live", args=[session.pk]) + f"?v={word}"
    assert client.get(url, headers={"HX-Request": "true"}).status_code == 204
