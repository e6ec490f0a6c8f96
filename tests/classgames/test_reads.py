"""classgames.reads: the class game's tables and seats read by statements made once, the very
instances the ORM's querysets give (issue 38: the live view and the class board read them at
every poll, and Django compiling those querysets cost more than running them).

Each read is compared with the queryset it replaced: the same rows in the same order, the same
values in the same fields, the same fields deferred; the seats in each game's prefetch cache and
each seat's game set, so what the pages do with them asks nothing more.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import Prefetch
from django.test.utils import CaptureQueriesContext

from classgames import reads
from classgames.models import ClassSession, ClassTable
from games.models import Game, Seat
from games.services import game_create, game_end, game_start
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def session():
    """A class game of four tables (one with a computer player, one ended, one never started)
    beside another class game of the same class, whose tables must never show."""
    school = factories.school()
    teacher = factories.teacher(school=school)
    room = factories.classroom(school=school, teachers=[teacher])
    kids = [factories.student(classroom=room, name=f"Kid {i}") for i in range(8)]
    ours = ClassSession.objects.create(
        classroom=room, created_by=teacher, status=ClassSession.Status.RUNNING
    )
    factories.class_table(classroom=room, students=kids[:3], session=ours, label="1")
    ended = factories.class_table(classroom=room, students=kids[3:5], session=ours, label="2")
    game_end(game=ended, by=teacher)
    with_bot = game_create(
        school=school,
        classroom=room,
        label="3",
        players=[{"student": kids[5]}, {"bot": "easy"}, {"bot": "hard", "name": "Robo"}],
        settings={"turn_time": 120, "challenge_window": 0},
    )
    ClassTable.objects.create(game=with_bot, session=ours)
    game_start(game=with_bot)
    unstarted = game_create(
        school=school,
        classroom=room,
        label="4",
        players=[{"student": kids[6]}, {"student": kids[7]}],
        settings={},
    )
    ClassTable.objects.create(game=unstarted, session=ours)
    theirs = ClassSession.objects.create(
        classroom=room, created_by=teacher, status=ClassSession.Status.RUNNING
    )
    factories.class_table(classroom=room, students=kids[:2], session=theirs, label="9")
    return ours


def same(made, orm) -> None:
    """Two lists of instances alike: the same rows, values and deferred fields."""
    assert [type(m) for m in made] == [type(o) for o in orm]
    assert [m.pk for m in made] == [o.pk for o in orm]
    for m, o in zip(made, orm, strict=True):
        assert m.get_deferred_fields() == o.get_deferred_fields(), m
        loaded = [f.attname for f in type(o)._meta.concrete_fields]
        loaded = [name for name in loaded if name not in o.get_deferred_fields()]
        assert {n: getattr(m, n) for n in loaded} == {n: getattr(o, n) for n in loaded}, m
        assert m._state.db == o._state.db and not m._state.adding


@pytest.mark.parametrize(
    "fields", [reads.MARK_FIELDS, reads.LIVE_FIELDS, reads.BOARD_FIELDS, reads.PULSE_FIELDS]
)
def test_the_games_are_the_querysets(session, fields):
    made = reads.session_games(session, fields)
    assert len(made) == 4
    same(made, list(session.games.order_by("pk").only(*fields)))


def test_the_games_of_some_tables_are_those_of_the_class_game_alone(session):
    ids = list(session.games.order_by("pk").values_list("pk", flat=True))
    others = list(Game.objects.exclude(pk__in=ids).values_list("pk", flat=True))
    for only in ([ids[2]], [ids[3], ids[0]], [ids[1], *others], others, []):
        orm = session.games.order_by("pk").only(*reads.LIVE_FIELDS).filter(pk__in=only)
        same(reads.session_games(session, reads.LIVE_FIELDS, only=only), list(orm))
        assert reads.session_pulse(session, only=only) == [
            row for row in reads.session_pulse(session) if row[0] in only
        ]


def test_the_pulse_is_the_values_the_orm_reads(session):
    assert reads.session_pulse(session) == list(
        session.games.order_by("pk").values_list(*reads.PULSE_FIELDS)
    )


@pytest.mark.parametrize("fields", [reads.SEAT_FIELDS, reads.SEAT_MARK_FIELDS])
def test_the_seats_are_the_querysets(session, fields):
    # (by the game's id: order_by("game") would follow the games' own ordering, newest first;
    # the callers group the seats by game, each game's in the order of their positions)
    orm = Seat.objects.filter(game__in=session.games.all()).order_by("game_id", "position")
    made = reads.session_seats(session, fields)
    assert len(made) == 3 + 2 + 3 + 2
    same(made, list(orm.only(*fields)))


def test_the_seats_come_with_their_games_as_a_prefetch_leaves_them(session):
    ids = list(session.games.order_by("pk").values_list("pk", flat=True))
    for only in (None, [ids[2]], [ids[0], ids[3]]):
        games = session.games.order_by("pk").defer("draw_order")
        if only is not None:
            games = games.filter(pk__in=only)
        orm = list(games.prefetch_related(Prefetch("seats", Seat.objects.order_by("position"))))
        made = reads.session_games(
            session, reads.LIVE_FIELDS, only=only, with_seats=reads.SEAT_FIELDS
        )
        same(made, orm)
        with CaptureQueriesContext(connection) as asked:
            for game, orm_game in zip(made, orm, strict=True):
                same(list(game.seats.all()), list(orm_game.seats.all()))
                assert all(seat.game is game for seat in game.seats.all())
        assert not asked.captured_queries  # the pages ask nothing more of them


def test_the_live_views_rows_give_its_pulse_in_one_read(session):
    from classgames import selectors

    with CaptureQueriesContext(connection) as asked:
        games = selectors.live_marked_games(session)
    assert len(asked.captured_queries) == 1
    assert reads.pulse_of(games) == reads.session_pulse(session)


def _scans(plan: dict):
    yield plan
    for child in plan.get("Plans", []):
        yield from _scans(child)


@pytest.mark.parametrize(
    "model,fields,count",
    [(Seat, reads.SEAT_FIELDS, 0), (Seat, reads.SEAT_MARK_FIELDS, 0), (Game, reads.LIVE_FIELDS, 0)],
)
def test_each_table_looks_its_rows_up_by_its_game_whatever_the_plan(session, model, fields, count):
    """The statement is prepared (kavet_site.prepared), so PostgreSQL may keep one generic plan
    for every class game: a plain join let it hash the whole seats table for each live poll. The
    rows are looked up table by table (LATERAL), even when the planner would rather hash."""
    if connection.vendor != "postgresql":
        pytest.skip("the LATERAL form is PostgreSQL's (SQLite plans each statement anew)")
    import json

    ours = session
    sql = reads._SessionRows.of("default", model, fields, count).sql.replace("%s", "$1")
    with connection.cursor() as c:
        c.execute("SET LOCAL plan_cache_mode = force_generic_plan")  # the plan kept for all
        c.execute("SET LOCAL enable_nestloop = off")  # what made the plain join hash
        c.execute(f"PREPARE kavet_session_rows AS {sql}")
        try:
            c.execute(f"EXPLAIN (FORMAT JSON) EXECUTE kavet_session_rows({ours.pk})")
            plan = c.fetchone()[0]
        finally:
            c.execute("DEALLOCATE kavet_session_rows")
        plan = json.loads(plan) if isinstance(plan, str) else plan
    table = model._meta.db_table
    looked_up = [n for n in _scans(plan[0]["Plan"]) if n.get("Relation Name") == table]
    assert looked_up, plan
    for node in looked_up:
        conditions = " ".join(node.get(k, "") for k in ("Index Cond", "Recheck Cond", "Filter"))
        assert "t.game_id" in conditions, node  # by the class game's own table, never all
