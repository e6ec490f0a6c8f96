"""games.tasks.arm_due_games (issue 39, gap 5): on a worker's (re)connection, a tick is queued at
the moment of every deadline falling due soon; what is already due is the sweep's."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services, tasks
from games.models import Game

pytestmark = pytest.mark.django_db


def test_a_tick_is_queued_at_each_coming_deadline_and_only_those(monkeypatch, make_game, anna, bo):
    now = timezone.now()
    soon = make_game([{"student": anna}, {"student": bo}])
    due = make_game([{"student": anna}, {"student": bo}])
    later = make_game([{"student": anna}, {"student": bo}])
    Game.objects.filter(pk=soon.pk).update(
        timer_deadline=now + timedelta(seconds=7), bot_due_at=None
    )
    Game.objects.filter(pk=due.pk).update(
        timer_deadline=now - timedelta(seconds=1), bot_due_at=None
    )
    Game.objects.filter(pk=later.pk).update(
        timer_deadline=tasks.ARM_HORIZON + now + timedelta(minutes=1),
        bot_due_at=now + timedelta(seconds=3),  # its computer player comes first
    )
    queued: list = []
    monkeypatch.setattr(timezone, "now", lambda: now)
    monkeypatch.setattr(
        tasks, "enqueue", lambda task, args, **options: queued.append((args, options)) or True
    )
    assert tasks.arm_due_games() == 2
    assert sorted(queued) == sorted(
        [
            ((soon.pk,), {"eta": now + timedelta(seconds=7.05)}),
            ((later.pk,), {"eta": now + timedelta(seconds=3.05)}),
        ]
    )
    assert services.due_game_ids(now=now) == [due.pk]  # the sweep plays that one


def test_a_worker_arms_the_deadlines_each_time_it_connects(settings):
    assert "games.tasks.arm_due_games" in settings.KAVET_SWEEPS_ON_CONNECT
