"""50 presses of "Kavet 'm eus!" at the same instant on PostgreSQL: exactly one wins (R5.1)."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from games import services
from games.models import Move, Play
from tests import factories
from tests.conftest import need_service

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_fifty_simultaneous_challenges_exactly_one_wins(make_game, classroom):  # R5.1
    need_service(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL) for row locks")
    kids = [factories.student(classroom=classroom, name=f"Kid{i}") for i in range(6)]
    game = make_game([{"student": k} for k in kids])
    services.move_submit(game_id=game.pk, seat=0, seen_version=0, move={"type": "nothing"})
    barrier = threading.Barrier(50)
    outcomes: list = []
    errors: list = []

    def press(seat: int) -> None:
        try:
            barrier.wait(timeout=20)
            outcomes.append(
                services.move_submit(
                    game_id=game.pk, seat=seat, seen_version=1, move={"type": "challenge"}
                )
            )
        except Exception as exc:  # collected, so the test fails with the cause
            errors.append(exc)
        finally:
            connections.close_all()

    # Five challengers (every seat but the announcer's), ten taps each, all at once.
    threads = [threading.Thread(target=press, args=(1 + i % 5,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    winners = [o for o in outcomes if o.applied]
    assert len(outcomes) == 50 and len(winners) == 1
    losers = [o for o in outcomes if not o.applied]
    assert all(o.refusal_code in ("too_late", "already_answered") for o in losers)
    assert all(o.message for o in losers)
    assert Move.objects.filter(game=game, payload__type="challenge").count() == 1
    assert Play.objects.filter(game=game, kind=Play.Kind.CHALLENGE).count() == 1


def test_a_due_time_out_met_by_polls_sweeps_and_a_late_move_at_once_is_applied_once(
    make_game, anna, bo, monkeypatch
):  # R4.9
    # Redis down, then back: the tablets' polls, the beat sweep and the player's own late tap
    # all find the same expired turn at the same instant; the game row's lock lets one apply it.
    from datetime import timedelta

    from django.utils import timezone

    from games import scheduling
    from games.models import Game

    need_service(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL) for row locks")
    monkeypatch.setattr(scheduling, "runs_in_process", lambda: False)
    game = make_game([{"student": anna}, {"student": bo}], turn_time=30)
    late = timezone.now() - timedelta(seconds=scheduling.PAGE_DUE_GRACE + 1)
    Game.objects.filter(pk=game.pk).update(timer_deadline=late)
    barrier = threading.Barrier(30)
    taps: list = []
    errors: list = []

    def poll() -> None:
        loaded = Game.objects.get(pk=game.pk)  # the row as the view loaded it
        barrier.wait(timeout=20)
        services.due_moves_apply(game=loaded)

    def sweep() -> None:
        barrier.wait(timeout=20)
        services.game_tick(game_id=game.pk)

    def tap() -> None:
        barrier.wait(timeout=20)
        taps.append(
            services.move_submit(game_id=game.pk, seat=0, seen_version=0, move={"type": "nothing"})
        )

    def run(job) -> None:
        try:
            job()
        except Exception as exc:  # collected, so the test fails with the cause
            errors.append(exc)
        finally:
            connections.close_all()

    jobs = [poll] * 15 + [sweep] * 10 + [tap] * 5
    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    game.refresh_from_db()
    assert list(Move.objects.filter(game=game).values_list("payload__type", flat=True)) == [
        "timeout"
    ]
    assert game.version == 1
    # The taps came after the time ran out: each is told the table moved on, none applied.
    assert len(taps) == 5 and not any(t.applied for t in taps)
    assert {t.refusal_code for t in taps} == {"stale"}
