"""A move's prepared writes (games.services.writes, issue 38) leave the rows the ORM left.

The same game is played twice from the same seed and clocks, once through the ORM's writes
(Move.objects.create, game.save() of every column) and once through the prepared statements,
to its end (R6.3: the finish sets status, finished_at and clears the deadlines): the game's,
the moves' and the plays' rows are compared field by field (the plays written by bulk_create
there, by plays_insert here). After every prepared UPDATE the
stored row is the instance in memory, column for column (what game.save() would have stored):
a column a move changes but GAME_MOVE_FIELDS misses fails here. R9.2: moves are append-only;
a doubled move number is still refused by the constraint, nothing changed. This runs on the
suite's database (PostgreSQL in CI); SQLite's is tests/site/test_sqlite_class.py's.
"""

from __future__ import annotations

import pytest
from django.db import IntegrityError
from django.forms.models import model_to_dict
from django.utils import timezone

from games import services
from games.models import Game, Move, Play
from games.services import moves, plays, writes
from tests.factories import tick_to_end

SKIP = {"id", "created_at"}  # each row's own
CLOCKS = ("started_at", "timer_deadline", "bot_due_at", "phase_started_at", "last_move_at")


def _orm_insert(game, *, number, seat, payload, events, by):
    return Move.objects.create(
        game=game, number=number, seat=seat, payload=payload, events=events, by_user=by
    )


def _row(obj, skip=()) -> dict:
    values = {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}
    return {k: v for k, v in values.items() if k not in SKIP and k not in skip}


def _game(make_game, anna, seed):
    players = [{"student": anna}, {"bot": "medium"}, {"bot": "hard"}]
    return make_game(players, draw=[], seed=seed, turn_time=5, challenge_window=3)


@pytest.mark.django_db
def test_prepared_writes_leave_the_orms_rows(make_game, anna, monkeypatch):
    orm = _game(make_game, anna, seed=4242)
    prepared = _game(make_game, anna, seed=4242)
    Game.objects.filter(pk=prepared.pk).update(**{c: getattr(orm, c) for c in CLOCKS})
    start = timezone.now()

    with monkeypatch.context() as m:
        m.setattr(moves, "move_insert", _orm_insert)
        m.setattr(moves, "game_update", lambda game: game.save())
        m.setattr(plays, "plays_insert", Play.objects.bulk_create)
        tick_to_end(orm, start)

    updates = []
    real_update = writes.game_update

    def checked_update(game):
        real_update(game)
        stored = Game.objects.get(pk=game.pk)
        assert _row(stored) == _row(game)  # every column, as game.save() would store it
        updates.append(game.version)

    monkeypatch.setattr(moves, "game_update", checked_update)
    tick_to_end(prepared, start)

    assert len(updates) > 10 and prepared.status == Game.Status.FINISHED
    assert _row(prepared, {"seed"}) != {} and orm.finished_at is not None
    assert _row(Game.objects.get(pk=prepared.pk)) == _row(Game.objects.get(pk=orm.pk))
    mine = list(Move.objects.filter(game=prepared).order_by("number"))
    theirs = list(Move.objects.filter(game=orm).order_by("number"))
    assert len(mine) == len(theirs) == prepared.version
    for a, b in zip(mine, theirs, strict=True):
        assert _row(a, {"game_id"}) == _row(b, {"game_id"})
        assert a.created_at is not None
    rows = [list(Play.objects.filter(game=g).order_by("at", "pk")) for g in (prepared, orm)]
    assert len(rows[0]) == len(rows[1]) > 0
    numbers = [{m.pk: m.number for m in ms} for ms in (mine, theirs)]
    for a, b in zip(*rows, strict=True):
        assert _row(a, {"game_id", "move_id"}) == _row(b, {"game_id", "move_id"})
        assert numbers[0][a.move_id] == numbers[1][b.move_id]


@pytest.mark.django_db
def test_the_prepared_insert_answers_the_row_it_wrote(make_game, anna, bo, teacher):
    game = make_game([{"student": anna}, {"student": bo}])
    row = writes.move_insert(
        game, number=game.version + 1, seat=0, payload={"type": "x"}, events=[], by=teacher
    )
    stored = Move.objects.get(pk=row.pk)
    assert model_to_dict(stored) == model_to_dict(row) and stored.created_at == row.created_at
    assert row._state.db == "default" and not row._state.adding


@pytest.mark.django_db
def test_a_doubled_move_number_is_still_refused_with_nothing_changed(make_game, anna, bo):
    """R9.2: a move number is written once; the constraint refuses the second, and the move
    (its Play rows, the game's row) is rolled back with it."""
    game = make_game([{"student": anna}, {"student": bo}])
    game.refresh_from_db()
    # A row already holds the number the next move takes.
    Move.objects.create(game=game, number=game.version + 1, payload={"type": "stray"})
    before = _row(Game.objects.get(pk=game.pk))
    counts = Move.objects.filter(game=game).count(), Play.objects.filter(game=game).count()
    with pytest.raises(IntegrityError):
        services.move_submit(
            game_id=game.pk, seat=0, seen_version=game.version, move={"type": "nothing"}
        )
    assert _row(Game.objects.get(pk=game.pk)) == before
    after = Move.objects.filter(game=game).count(), Play.objects.filter(game=game).count()
    assert after == counts


@pytest.mark.django_db
def test_the_plays_insert_writes_several_rows_as_bulk_create(make_game, anna, bo):
    game = make_game([{"student": anna}, {"student": bo}])
    now = timezone.now()

    def made():
        return [
            Play(
                student=student,
                game=game,
                kind=kind,
                at=now,
                text=text,
                ok=ok,
                operation={"cards": [3, 4], "value": 7} if ok else None,
                skills=["add"] if ok else [],
                tier=1,
                number_range=10,
                reaction_ms=None if ok is None else 1200,
            )
            for student, kind, text, ok in (
                (anna, Play.Kind.ANNOUNCE, "3 + 4 = 7", True),
                (bo, Play.Kind.CHALLENGE, "Kavet 'm eus!", None),
                (anna, Play.Kind.NOTHING, "", False),
            )
        ]

    for count in (1, 3):
        writes.plays_insert(made()[:count])
        Play.objects.bulk_create(made()[:count])
    written = list(Play.objects.filter(game=game).order_by("pk"))
    assert len(written) == 8
    ours, theirs = written[:1] + written[2:5], written[1:2] + written[5:]
    assert [_row(p) for p in ours] == [_row(p) for p in theirs]
