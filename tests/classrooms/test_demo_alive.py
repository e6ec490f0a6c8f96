"""The demo stays alive (issue 28): its running class game plays on by itself under a fake clock,
a newcomer never meets "No move for 31 minutes", a real tablet's seat is left to the tablet, and
a new class game starts when the last one is over."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from classgames.models import ClassSession
from classgames.selectors import live_tables
from classrooms.models import Classroom, User
from demo.alive import DEMO_FLAG, demo_keep_alive, demo_play_on
from demo.clock import demo_clock
from demo.data import DEMO_CLASSES
from demo.school import demo_school_build
from demo.simulate import live_play
from demo.tasks import demo_keep_alive_sweep
from games.models import Game, Move, Seat
from tests import factories

pytestmark = pytest.mark.django_db

STEP = timedelta(seconds=15)  # a page's poll, or the beat, now and then


@pytest.fixture
def demo_live(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    demo_school_build(history=False)
    spec = next(s for s in DEMO_CLASSES if s.live)
    classroom = Classroom.objects.get(code=spec.code)
    teacher = User.objects.get(username="teacher")
    start = timezone.now()
    with demo_clock(start) as clock:
        session = live_play(spec=spec, classroom=classroom, teacher=teacher, clock=clock, now=start)
    return session, start


def stuck_flags(session, now) -> list[str]:
    return [f for t in live_tables(session, now) for f in t["flags"] if "No move for" in f]


def test_the_demo_game_plays_on_and_starts_again_when_over(demo_live):
    session, start = demo_live
    assert session.settings[DEMO_FLAG] is True
    moves_before = Move.objects.count()
    moment, seen = start, [session.pk]
    while moment - start < timedelta(minutes=45):
        moment += STEP
        with demo_clock(moment) as clock:
            demo_keep_alive_sweep()  # what the beat runs; the pages call the same code
            current = ClassSession.objects.filter(
                classroom=session.classroom, status=ClassSession.Status.RUNNING
            ).first()
            assert current is not None, f"the demo has no running class game at {moment}"
            # Whenever the newcomer looks, the tables have just moved.
            assert stuck_flags(current, clock()) == []
        if current.pk != seen[-1]:
            seen.append(current.pk)
    assert len(seen) >= 2, "the demo's class game never ended and started again"
    assert Move.objects.count() > moves_before + 100
    session.refresh_from_db()
    assert session.status == ClassSession.Status.FINISHED
    restarted = ClassSession.objects.get(pk=seen[1])
    assert restarted.settings[DEMO_FLAG] is True
    # The same tables again.
    names = sorted(
        Seat.objects.filter(game__class_table__session=restarted).values_list("name", flat=True)
    )
    assert names == sorted(
        Seat.objects.filter(game__class_table__session=session).values_list("name", flat=True)
    )


def test_a_demo_left_alone_for_half_an_hour_looks_freshly_played(demo_live):
    session, start = demo_live
    later = start + timedelta(minutes=31)
    with demo_clock(later) as clock:
        assert stuck_flags(session, clock()) != []  # what a newcomer met before
        demo_keep_alive(session=session, now=clock())
        assert stuck_flags(session, clock()) == []
        for game in Game.objects.filter(class_table__session=session, status=Game.Status.RUNNING):
            assert later - timedelta(minutes=1) < game.last_move_at <= later


def test_a_seat_a_real_tablet_has_open_is_left_to_it(demo_live):
    session, start = demo_live
    game = Game.objects.filter(class_table__session=session).order_by("pk").first()
    gwen = Seat.objects.get(game=game, name="Gwen")
    played = Move.objects.filter(game=game, seat=gwen.position).count()
    moment = start
    for _step in range(80):  # 20 minutes with Gwen's tablet open at her table
        moment += STEP
        Seat.objects.filter(pk=gwen.pk).update(last_seen_at=moment)
        with demo_clock(moment):
            demo_play_on(session=session, now=moment)
    assert Move.objects.filter(game=game, seat=gwen.position).count() == played
    # Her classmates at the other table played on meanwhile.
    other = Game.objects.filter(class_table__session=session).order_by("pk").last()
    assert other.last_move_at > start + timedelta(minutes=5)


def test_only_the_demo_and_only_where_no_worker_runs(demo_live, settings, classroom, teacher):
    session, start = demo_live
    # Where workers run (REDIS_URL set: not eager), a page writes nothing; the beat does it.
    settings.CELERY_TASK_ALWAYS_EAGER = False
    from kavet_site.celery import app

    eager, app.conf.task_always_eager = app.conf.task_always_eager, False
    try:
        version = sorted(
            Game.objects.filter(class_table__session=session).values_list("pk", "version")
        )
        assert demo_keep_alive(session=session, now=start + timedelta(minutes=31)) == 0
        assert (
            sorted(Game.objects.filter(class_table__session=session).values_list("pk", "version"))
            == version
        )
    finally:
        app.conf.task_always_eager = eager
    # Any other class game is never touched, even in the embedded default.
    anna = factories.student(classroom=classroom, name="Anna")
    bo = factories.student(classroom=classroom, name="Bo")
    game = factories.class_table(classroom=classroom, teacher=teacher, students=[anna, bo])
    version = game.version
    with demo_clock(start + timedelta(minutes=31)) as clock:
        assert demo_play_on(session=game.class_table.session, now=clock()) == 0
    game.refresh_from_db()
    assert game.version == version


def test_the_live_view_and_the_board_drive_it_where_no_worker_runs(demo_live, client):
    session, start = demo_live
    client.force_login(User.objects.get(username="teacher"))
    with demo_clock(start + timedelta(minutes=31)):  # tasks in-process, as under `make demo`
        page = client.get(f"/teacher/class-games/{session.pk}/").content.decode()
        assert "No move for" not in page and "Gwen" in page
    with demo_clock(start + timedelta(minutes=62)) as clock:
        assert client.get(f"/board/session/{session.pk}/").status_code == 200
        current = ClassSession.objects.filter(
            classroom=session.classroom, status=ClassSession.Status.RUNNING
        ).first()
        assert current is not None and stuck_flags(current, clock()) == []


def test_the_beat_sweep_costs_one_query_on_a_site_without_the_demo(
    classroom, teacher, django_assert_num_queries
):
    anna = factories.student(classroom=classroom, name="Anna")
    bo = factories.student(classroom=classroom, name="Bo")
    factories.class_table(classroom=classroom, teacher=teacher, students=[anna, bo])
    with django_assert_num_queries(1):
        assert demo_keep_alive_sweep() == 0
