"""The poll's presence stamp (the live view's quiet tablet) and the first turn's fair start (R4.9)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Game, Move, Seat
from games.polling import poll_token
from games.services import PRESENCE_RESOLUTION

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true", "HTTP_X_KAVET_POLL": "1"}


def poll(client, game, position, user, v=0, s="running"):
    return client.get(
        reverse("games:table", args=[game.pk]),
        {"v": v, "s": s, "t": poll_token(game, position, user.pk)},
        **HX,
    )


def test_an_unchanged_poll_stamps_the_seat_and_the_live_view_sees_a_quiet_tablet(
    client, make_game, anna, bo
):
    from classgames.selectors import TABLET_QUIET_SECONDS, live_table

    game = make_game([{"student": anna}, {"student": bo}])
    assert poll(client, game, 1, bo.user).status_code == 204
    seen = Seat.objects.get(game=game, position=1).last_seen_at
    assert seen is not None and (timezone.now() - seen).total_seconds() < PRESENCE_RESOLUTION
    # Bo's tablet stops polling: some minutes later the teacher's live view says so.
    later = seen + timedelta(seconds=TABLET_QUIET_SECONDS + 120)
    game = Game.objects.prefetch_related("seats").get(pk=game.pk)
    flags = " ".join(live_table(game, later)["flags"])
    assert "Bo's tablet has been quiet for" in flags
    assert "Anna's tablet" not in flags  # never seen: nothing to say about her tablet


def test_a_poll_never_applies_a_due_move_itself(client, make_game, anna, bo, settings):  # R4.9
    settings.KAVET_FIRST_TURN_GRACE = 0
    game = make_game([{"student": anna}, {"student": bo}], turn_time=30)
    Game.objects.filter(pk=game.pk).update(timer_deadline=timezone.now() - timedelta(seconds=1))
    from django.test import RequestFactory

    from games.polling import poll_unchanged

    request = RequestFactory().get(
        "/", {"v": 0, "s": "running", "t": poll_token(game, 0, anna.user.pk)}
    )
    assert poll_unchanged(request, game.pk) is False  # due: "changed", for the full path
    assert not Move.objects.filter(game=game).exists()
    # The full path applies it once, through the service (no worker in the embedded default).
    client.force_login(anna.user)
    response = poll(client, game, 0, anna.user)
    assert response.status_code == 200
    assert list(Move.objects.filter(game=game).values_list("payload__type", flat=True)) == [
        "timeout"
    ]


def test_the_first_turn_clock_waits_for_the_first_players_tablet(
    client, make_game, anna, bo
):  # R4.9
    game = make_game([{"student": anna}, {"student": bo}], turn_time=120)
    grace = services.first_turn_grace()
    assert grace == 60
    # Anna is still signing in: her clock has not started; the table does not time her out.
    left = (game.timer_deadline - game.started_at).total_seconds()
    assert left == pytest.approx(grace + 120, abs=1)
    assert services.game_tick(game_id=game.pk, now=game.started_at + timedelta(seconds=121)) == 0
    # Her tablet opens the table 20 s after the start: her two minutes run from then.
    opened = game.started_at + timedelta(seconds=20)
    client.force_login(anna.user)
    seat = Seat.objects.get(game=game, position=0)
    game = services.table_visit(game=game, seat=seat, now=opened)
    assert game.timer_deadline == opened + timedelta(seconds=120)
    assert Seat.objects.get(pk=seat.pk).last_seen_at == opened
    assert services.game_tick(game_id=game.pk, now=opened + timedelta(seconds=119)) == 0
    assert services.game_tick(game_id=game.pk, now=opened + timedelta(seconds=121)) == 1


def test_the_table_page_starts_the_waiting_clock_from_its_opening(
    client, make_game, anna, bo
):  # R4.9
    game = make_game([{"student": anna}, {"student": bo}], turn_time=120)
    client.force_login(anna.user)
    assert client.get(reverse("games:table", args=[game.pk])).status_code == 200
    game.refresh_from_db()
    left = (game.timer_deadline - timezone.now()).total_seconds()
    assert 115 < left <= 120


def test_a_first_player_who_never_comes_does_not_stall_the_table(make_game, anna, bo):  # R4.9
    game = make_game([{"student": anna}, {"student": bo}], turn_time=30)
    end = game.started_at + timedelta(seconds=services.first_turn_grace() + 30)
    assert services.game_tick(game_id=game.pk, now=end - timedelta(seconds=1)) == 0
    assert services.game_tick(game_id=game.pk, now=end + timedelta(seconds=1)) == 1
    assert Move.objects.get(game=game).payload["type"] == "timeout"


def test_the_grace_period_is_a_setting(make_game, anna, bo, settings):  # R4.9
    settings.KAVET_FIRST_TURN_GRACE = 10
    game = make_game([{"student": anna}, {"student": bo}], turn_time=30)
    assert (game.timer_deadline - game.started_at).total_seconds() == pytest.approx(40, abs=1)


def test_a_computer_player_starting_plays_at_once(make_game, anna):  # R4.9, R8.2
    game = make_game([{"bot": "easy"}, {"student": anna}], turn_time=30)
    assert (game.timer_deadline - game.started_at).total_seconds() == pytest.approx(30, abs=1)
    assert game.bot_due_at is not None and game.bot_due_at < game.timer_deadline


# --- where workers run, but none gets to the table (Redis down): the tablets' polls play on ----


def _workers_run(monkeypatch) -> None:
    from games import scheduling

    monkeypatch.setattr(scheduling, "runs_in_process", lambda: False)


def test_a_poll_leaves_a_just_due_turn_to_the_workers(client, make_game, anna, bo, monkeypatch):
    from games import scheduling

    _workers_run(monkeypatch)
    # A grace of a minute: the page's request comes well within it however slow the box (it
    # had to come within 0.75 s of the real grace, which a loaded CI box once missed).
    monkeypatch.setattr(scheduling, "PAGE_DUE_GRACE", 60.0)
    game = make_game([{"student": anna}, {"student": bo}], turn_time=30)
    just = timezone.now() - timedelta(seconds=scheduling.PAGE_DUE_GRACE / 4)
    Game.objects.filter(pk=game.pk).update(timer_deadline=just)
    client.force_login(anna.user)
    # Nothing new to show yet: the cheap answer, and no move (the worker's task or sweep plays).
    assert poll(client, game, 0, anna.user).status_code == 204
    assert not Move.objects.filter(game=game).exists()


def test_a_poll_plays_a_timed_out_turn_the_workers_could_not_get_to(
    client, make_game, anna, bo, monkeypatch
):  # R4.9
    from games.scheduling import PAGE_DUE_GRACE

    _workers_run(monkeypatch)
    game = make_game([{"student": anna}, {"student": bo}], turn_time=30)
    late = timezone.now() - timedelta(seconds=PAGE_DUE_GRACE + 0.5)
    Game.objects.filter(pk=game.pk).update(timer_deadline=late)
    client.force_login(bo.user)
    response = poll(client, game, 0, bo.user)
    assert response.status_code == 200 and b'data-version="1"' in response.content
    # Both tablets poll again (and the sweep comes late): the timeout was applied once.
    client.force_login(anna.user)
    assert poll(client, game, 1, anna.user, v=1).status_code == 204
    assert poll(client, game, 0, anna.user, v=0).status_code == 200
    assert list(Move.objects.filter(game=game).values_list("payload__type", flat=True)) == [
        "timeout"
    ]


def test_a_poll_plays_a_computer_player_the_workers_could_not_get_to(
    client, make_game, anna, monkeypatch
):  # R8.2
    from games.scheduling import PAGE_DUE_GRACE

    _workers_run(monkeypatch)
    game = make_game([{"bot": "easy"}, {"student": anna}], turn_time=30)
    late = timezone.now() - timedelta(seconds=PAGE_DUE_GRACE + 0.5)
    Game.objects.filter(pk=game.pk).update(bot_due_at=late)
    client.force_login(anna.user)
    assert poll(client, game, 1, anna.user).status_code == 200
    assert Move.objects.filter(game=game, seat=0).count() >= 1
    played = Move.objects.filter(game=game).count()
    game.refresh_from_db()
    assert game.version == played  # one move per version: none doubled
    assert game.bot_due_at is None or game.bot_due_at > timezone.now()


def test_a_move_after_its_turn_ran_out_comes_second(make_game, anna, bo, monkeypatch):  # R4.9
    # No worker has applied the timeout yet (Redis down): the move finds it due under the lock,
    # applies it first, and is itself too late — the same outcome as with every worker up.
    _workers_run(monkeypatch)
    game = make_game([{"student": anna}, {"student": bo}], turn_time=30, challenge_window=0)
    Game.objects.filter(pk=game.pk).update(timer_deadline=timezone.now() - timedelta(seconds=0.2))
    out = services.move_submit(game_id=game.pk, seat=0, move={"type": "nothing"}, seen_version=0)
    assert not out.applied and out.refusal_code == "stale"
    assert out.game.version == 1
    assert list(Move.objects.filter(game=game).values_list("payload__type", flat=True)) == [
        "timeout"
    ]
    # Bo, whose turn it is now, plays on the version he sees.
    out = services.move_submit(game_id=game.pk, seat=1, move={"type": "nothing"}, seen_version=1)
    assert out.applied and out.game.version == 2
