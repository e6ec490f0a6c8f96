"""The demo school: weeks of real play, reports and a running class game, made once and the same everywhere."""

from __future__ import annotations

import io
import statistics
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db.models import F, Max, Sum
from django.utils import timezone

from classgames.models import ClassSession
from classrooms.audit.models import AuditEvent
from classrooms.models import Classroom, LevelChange, ParentLink, School, Student, User
from classrooms.services import CLASS_CODE_ALPHABET
from demo.data import LIVE_MIN_MOVES
from demo.school import DEMO_PASSWORD
from games import engine
from games.models import Game, Move, Play, Seat
from reports.models import LevelRecommendation, WeeklyReport

MODELS = (
    School,
    User,
    Classroom,
    Student,
    LevelChange,
    ParentLink,
    ClassSession,
    Game,
    Seat,
    Move,
    Play,
    WeeklyReport,
    LevelRecommendation,
)


def demo(*args: str) -> str:
    out = io.StringIO()
    call_command("demo_school", *args, stdout=out)
    return out.getvalue()


def sign_in(client, username: str) -> None:
    """Sign in as a demo account with the demo password the command prints.

    The password is checked on the row, then the session is opened with force_login: the
    throttled sign-in (django-axes) needs the request, which client.login() does not give.
    """
    user = User.objects.get(username=username)
    assert user.check_password(DEMO_PASSWORD)
    client.force_login(user)


def counts() -> dict:
    return {m.__name__: m.objects.count() for m in MODELS}


def fingerprint() -> dict:
    """What a rerun must leave untouched, down to the last move and the last report build."""
    return {
        **counts(),
        "versions": Game.objects.aggregate(v=Sum("version"))["v"],
        # The running class game alone is brought to the present on each run (live_refresh).
        "last_move": Move.objects.filter(game__status=Game.Status.FINISHED).aggregate(
            m=Max("created_at")
        )["m"],
        "last_build": WeeklyReport.objects.aggregate(b=Max("built_at"))["b"],
        "levels": sorted(Student.objects.values_list("name", "number_range", "tier")),
    }


def finished_games() -> list[tuple]:
    """The finished games as any machine must make them: table, seed, moves, scores, when."""
    games = Game.objects.filter(status=Game.Status.FINISHED).order_by(
        "classroom__code", "started_at", "label"
    )
    return [
        (
            g.classroom.code,
            g.label,
            g.seed,
            g.version,
            g.started_at,
            g.finished_at,
            [(s.name, s.score) for s in g.seats.order_by("position")],
        )
        for g in games
    ]


@pytest.mark.django_db
def test_demo_has_weeks_of_real_play_reports_and_a_running_class_game(client):
    output = demo()
    check_history(output, client)

    first = fingerprint()
    games = finished_games()
    demo()  # a second run changes nothing: no game, move, play, report or level is added or redone
    assert fingerprint() == first

    # Opened 46 minutes after it was built, the running class game still looks freshly played
    # once the demo runs again (as it does at each start): no "No move for 46 minutes".
    live = Game.objects.filter(status=Game.Status.RUNNING)
    moves = Move.objects.filter(game__in=live)
    before = sorted(moves.values_list("number", "created_at"))
    old = timedelta(minutes=46)
    live.update(last_move_at=F("last_move_at") - old, started_at=F("started_at") - old)
    moves.update(created_at=F("created_at") - old)
    demo()
    now = timezone.now()
    for game in Game.objects.filter(status=Game.Status.RUNNING):
        assert now - timedelta(minutes=1) < game.last_move_at <= now
    after = sorted(moves.values_list("number", "created_at"))
    gaps = {b[1] - a[1] for a, b in zip(before, after, strict=True)}
    assert len(gaps) == 1  # every move moved by the same amount: the same game, played now
    sign_in(client, "teacher")
    session = ClassSession.objects.get(status=ClassSession.Status.RUNNING)
    page = client.get(f"/teacher/class-games/{session.pk}/").content.decode()
    assert "No move for" not in page and "Gwen" in page
    client.logout()

    # From scratch again: the same seeds, the same children's choices, the same games. The
    # activity log keeps a school (its rows protect it) until the retention rule erases them.
    AuditEvent.objects.erase_before(timezone.now() + timedelta(days=1))
    User.objects.all().delete()
    School.objects.all().delete()
    assert Game.objects.count() == Play.objects.count() == 0
    demo()
    assert finished_games() == games


def check_history(output: str, client) -> None:
    """What a school trying the demo must find: dated games, mistakes, levels, reports, a live game."""
    now = timezone.now()
    anna = Student.objects.get(name="Anna")
    for code in ("KAVETA", "KAVETB"):
        # Codes of the real alphabet (no O, no 1): what a child types is what the class has.
        assert set(code) <= set(CLASS_CODE_ALPHABET)
        classroom = Classroom.objects.get(code=code)
        finished = Game.objects.filter(
            classroom=classroom, status=Game.Status.FINISHED, kind=Game.Kind.CLASS
        )
        assert 6 <= finished.count() <= 10
        weeks = {g.started_at.isocalendar()[:2] for g in finished}
        assert len(weeks) >= 4  # several school weeks, so the weekly reports have a history
        for game in finished:
            # Played through the services: a replay of its stored moves ends where it ended (R9.2).
            moves = list(game.moves.order_by("number").values_list("payload", flat=True))
            state = engine.replay(engine.GameConfig.from_dict(game.config), game.seed, moves)
            assert state.is_over and state.to_dict() == game.state
            assert (
                game.class_table.session is not None
                and game.class_table.session.status == ClassSession.Status.FINISHED
            )
            # Dated in the past, lasting minutes as a class game does, moves in order.
            assert game.started_at < game.finished_at < now - timedelta(hours=12)
            assert timedelta(minutes=1) < game.finished_at - game.started_at < timedelta(hours=1)
            stamps = list(game.moves.order_by("number").values_list("created_at", flat=True))
            assert stamps == sorted(stamps) and game.started_at <= stamps[0]
            # Each table plays at its weakest student's level (R2.3).
            levels = [Seat.objects.get(pk=s.pk).student for s in game.seats.exclude(student=None)]
            assert game.config["rules"]["max_number"] <= max(s.number_range for s in levels)
        # Every child of the class played and has a report for each week of the history.
        for student in Student.objects.filter(classroom=classroom):
            assert Play.objects.filter(student=student, kind=Play.Kind.ANNOUNCE).exists(), (
                student.name
            )
            assert WeeklyReport.objects.filter(student=student).count() == 5

    plays = Play.objects.filter(student=anna)
    assert plays.filter(ok=False).exists()  # children make mistakes, and the reports count them
    reactions = [p.reaction_ms for p in plays.filter(kind=Play.Kind.ANNOUNCE) if p.reaction_ms]
    assert 3_000 < statistics.median(reactions) < 60_000  # a child's pace, not a loop's

    # Weaker children are slower than stronger ones, as the reports' "quickly" expects.
    def median_ms(name: str) -> float:
        return statistics.median(
            Play.objects.filter(student__name=name, kind=Play.Kind.ANNOUNCE)
            .exclude(reaction_ms=None)
            .values_list("reaction_ms", flat=True)
        )

    assert median_ms("Dewi") > median_ms("Elouan")

    # Level history: Corentin was moved up to numbers up to 20 weeks ago, before later games.
    corentin = Student.objects.get(name="Corentin")
    changes = list(LevelChange.objects.filter(student=corentin).order_by("changed_at"))
    assert [(c.number_range, c.tier) for c in changes] == [(10, 1), (20, 1)]
    assert changes[-1].changed_at < now - timedelta(days=7)
    before = Play.objects.filter(student=corentin, at__lt=changes[-1].changed_at)
    assert before.exists() and set(before.values_list("number_range", flat=True)) == {10}

    # The parent sees Anna's report with its charts; the teacher sees the class grid.
    sign_in(client, "parent")
    page = client.get(f"/reports/child/{anna.pk}/")
    assert page.status_code == 200 and b"<svg" in page.content
    client.logout()
    sign_in(client, "teacher")
    page = client.get(f"/reports/class/{anna.classroom_id}/")
    assert page.status_code == 200
    assert all(name.encode() in page.content for name in ("Anna", "Bleuenn", "Dewi"))

    # The reports propose a level up for Corentin (he practises a lot); the teacher sees it on
    # the class page with Accept and Dismiss, not only in the reports.
    corentin_advice = LevelRecommendation.objects.get(
        student__name="Corentin", status=LevelRecommendation.Status.OPEN
    )
    assert (corentin_advice.number_range, corentin_advice.tier) == (20, 2)
    page = client.get(f"/teacher/classes/{corentin.classroom_id}/").content.decode()
    assert "Level proposals" in page and f'id="rec-{corentin_advice.pk}"' in page
    assert f"/reports/proposal/{corentin_advice.pk}/accept/" in page

    # One class game runs now in KAVETB, each table waiting for a child's move from a tablet.
    session = ClassSession.objects.get(status=ClassSession.Status.RUNNING)
    assert session.classroom.code == "KAVETB"
    tables = list(session.games.all())
    assert len(tables) == 2
    for game in tables:
        assert game.status == Game.Status.RUNNING and game.version >= LIVE_MIN_MOVES
        assert game.seats.exclude(bot="").exists() and game.last_move_at <= now
        active = game.seats.get(position=game.state["active"])
        assert game.state["phase"] == "turn" and active.student is not None
        assert active.student.name in output  # the command says who can play from a tablet
    assert client.get(f"/teacher/class-games/{session.pk}/").status_code == 200
    assert (
        "KAVETA" in output
        and "cat, sun, apple" in output
        and f"/reports/child/{anna.pk}/" in output
    )


@pytest.mark.django_db
def test_bare_demo_school_has_accounts_and_levels_but_no_play(client):
    output = demo("--no-history")
    first = counts()
    assert first["School"] == 1 and first["Classroom"] == 2
    assert first["Student"] >= 10 and first["ParentLink"] == 1
    assert first["Game"] == first["Play"] == first["WeeklyReport"] == 0
    assert set(Student.objects.values_list("number_range", flat=True)) == {10, 20}
    assert set(Student.objects.values_list("tier", flat=True)) == {1, 2, 3}
    assert "kavet-demo" in output and "KAVETB" in output
    demo("--no-history")
    assert counts() == first
    sign_in(client, "teacher")
    teacher = User.objects.get(username="teacher")
    assert teacher.role == User.Role.TEACHER and teacher.classrooms.count() == 2
    assert not Student.objects.first().user.has_usable_password()
