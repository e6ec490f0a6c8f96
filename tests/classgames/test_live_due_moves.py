"""The teacher's live view applies due time limits only where no worker runs (R4.9): the
same policy as a tablet's visit (games.services.table_visit), never a write where real
workers and the beat sweep play the due moves."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games import tasks
from games.models import Game
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def due_table(school, classroom, teacher, anna, bo):
    """A class game's table whose first turn's time has just run out."""
    game = factories.class_table(classroom=classroom, teacher=teacher, students=[anna, bo])
    Game.objects.filter(pk=game.pk).update(timer_deadline=timezone.now() - timedelta(seconds=1))
    return game.session, game


def _look(client, teacher, session) -> int:
    client.force_login(teacher)
    return client.get(reverse("classrooms:session_live", args=[session.pk])).status_code


def test_the_live_view_moves_a_due_turn_on_in_the_embedded_default(client, teacher, due_table):
    session, game = due_table
    version = game.version
    assert _look(client, teacher, session) == 200
    game.refresh_from_db()
    assert game.version > version


def test_the_live_view_writes_nothing_where_real_workers_run(
    client, teacher, due_table, monkeypatch
):
    monkeypatch.setattr(tasks, "runs_in_process", lambda: False)
    session, game = due_table
    version = game.version
    assert _look(client, teacher, session) == 200
    game.refresh_from_db()
    assert game.version == version
