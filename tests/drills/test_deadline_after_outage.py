"""Drill (issue 39, gap 5): a deadline stamped while Redis was down is kept to the moment once
Redis is back, not up to a beat period late.

A computer player's pause stamped while the broker is down has no task of its own (its queuing
failed); when the worker reconnects it queues a tick at the moment of everything falling due
soon (games.tasks.arm_due_games, KAVET_SWEEPS_ON_CONNECT), so the move is played within a
fraction of a second of its due time, where the 5 s beat sweep alone played it up to 5 s late.
The worker runs without beat here, so only that tick can play it.
"""

from __future__ import annotations

from dataclasses import replace

from django.utils import timezone

from games import services
from games.engine import bots
from games.models import Game, Move
from tests import factories
from tests.drills.conftest import wait_until

ON_TIME = 1.0  # seconds after its due time (the beat sweep alone: up to 5 s)
PAUSE = 6.0  # the computer player's pause in this drill, seconds


def test_a_pause_stamped_while_redis_was_down_is_played_on_time_after_it_returns(
    district, monkeypatch
):
    # The computer's pause is stamped here, by the move below: 6 s, so that it falls due after
    # the worker is back and has swept once (its 2-3 s of today fell due, on a loaded box, before
    # the worker had reconnected, and the drill measured the reconnection instead).
    monkeypatch.setitem(bots.PROFILES, "easy", replace(bots.PROFILES["easy"], delay=(PAUSE, PAUSE)))
    school = factories.school()
    classroom = factories.classroom(school=school)
    anna = factories.student(classroom=classroom, name="Anna", picture_code="0-1-2")
    game = services.game_create(
        school=school,
        classroom=classroom,
        # The computer player's pause (R8.2) falls due after the worker is back and has swept
        # once, so only a tick queued for its moment plays it on time.
        players=[{"student": anna}, {"bot": "easy", "name": "Robo"}],
        settings={"turn_time": 60, "challenge_window": 0},
        draw_order=[4, 6, 10],
        label="T1",
    )
    game = services.game_start(game=game)
    # No beat: its 5 s sweep would play the move anyway, up to 5 s late, and hide whether the
    # reconnection queued its tick (the phase of beat's period is luck: 0.74 s late in one run).
    district.worker(beat=False)

    district.redis.kill()
    outcome = services.move_submit(
        game_id=game.pk, seat=0, move={"type": "nothing"}, seen_version=game.version
    )
    assert outcome.applied
    game.refresh_from_db()
    due = game.bot_due_at
    assert due is not None  # Robo's pause, stamped while Redis is down: no task could be queued
    district.redis.start()
    assert timezone.now() < due, "Redis came back after the move was due: nothing to measure"

    played = wait_until(
        lambda: Move.objects.filter(game=game, seat=1).order_by("number").first(),
        timeout=30,
        step=0.05,
    )
    assert played, "the computer player's move was never played"
    late = (played.created_at - due).total_seconds()
    print(f"\nDRILL gap 5: the computer player moved {late:.2f} s after its due time")
    assert 0 <= late < ON_TIME, f"played {late:.2f} s after its due time"
    # Once: the tick, the sweep and the reconnection's sweep never play it twice.
    game = Game.objects.get(pk=game.pk)
    numbers = list(Move.objects.filter(game=game).values_list("number", flat=True))
    assert numbers == list(range(1, game.version + 1))
