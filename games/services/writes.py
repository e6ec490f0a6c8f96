"""A move's writes as statements written once per database alias (issue 38).

The Move row, the game's row and the plays' rows were written through the ORM, compiled on
every move (Move.objects.create; game.save(), an UPDATE of every column of the game;
Play.objects.bulk_create). `move_insert` is the same INSERT (RETURNING the new id, on
PostgreSQL and SQLite alike), `plays_insert` the plays' INSERT (one statement per number of
rows), and `game_update` an UPDATE of the columns a move changes (GAME_MOVE_FIELDS: what
_apply_locked, _stamp_deadlines, _finish and _tick_locked set), each value taken through its
field's get_db_prep_save as the ORM does. R9.2: moves are append-only; the (game, number)
constraint still refuses a doubled move with the same IntegrityError, the transaction marked
for rollback as the ORM's save marks it. tests/games/test_prepared_writes.py compares the rows
with the ORM's.
"""

from __future__ import annotations

from django.db import connections, router, transaction
from django.utils import timezone

from classrooms.models import User
from kavet_site import prepared
from kavet_site.prepared import Statement

from ..models import Game, Move, Play

# Every column of the game's row a move (or the due moves before it) may change.
GAME_MOVE_FIELDS = (
    "state",
    "version",
    "last_move_at",
    "phase_started_at",
    "timer_deadline",
    "bot_due_at",
    "status",
    "finished_at",
)


class _Insert(Statement):
    """INSERT of `rows` rows of `model` (every column but the id); with `returning`, the id
    of the (one) row comes back where the database can say it."""

    def __init__(self, alias: str, model, rows: int, returning: bool) -> None:
        connection = connections[alias]
        q = connection.ops.quote_name
        meta = model._meta
        self.fields = [f for f in meta.concrete_fields if not f.primary_key]
        columns = ", ".join(q(f.column) for f in self.fields)
        row = "(" + ", ".join(["%s"] * len(self.fields)) + ")"
        self.sql = f"INSERT INTO {q(meta.db_table)} ({columns}) VALUES {', '.join([row] * rows)}"
        self.returning = returning and connection.features.can_return_columns_from_insert
        if self.returning:
            self.sql += f" RETURNING {q(meta.pk.column)}"


class _GameUpdate(Statement):
    def __init__(self, alias: str) -> None:
        connection = connections[alias]
        q = connection.ops.quote_name
        meta = Game._meta
        self.fields = [meta.get_field(name) for name in GAME_MOVE_FIELDS]
        sets = ", ".join(f"{q(f.column)} = %s" for f in self.fields)
        self.sql = f"UPDATE {q(meta.db_table)} SET {sets} WHERE {q(meta.pk.column)} = %s"


def move_insert(
    game: Game, *, number: int, seat: int | None, payload: dict, events: list, by: User | None
) -> Move:
    """Move.objects.create(game=game, number=..., ...) in a statement made once."""
    alias = router.db_for_write(Move, instance=game)
    row = Move(game=game, number=number, seat=seat, payload=payload, events=events, by_user=by)
    row.created_at = timezone.now()  # auto_now_add
    made = _Insert.of(alias, Move, 1, True)
    connection = connections[alias]
    params = [f.get_db_prep_save(getattr(row, f.attname), connection) for f in made.fields]
    with transaction.mark_for_rollback_on_error(alias), prepared.cursor(alias) as cursor:
        cursor.execute(made.sql, params)
        if made.returning:
            pk = cursor.fetchone()[0]
        else:
            pk = connection.ops.last_insert_id(cursor, Move._meta.db_table, Move._meta.pk.column)
    row.pk = pk
    row._state.adding = False
    row._state.db = alias
    return row


def plays_insert(plays: list[Play]) -> None:
    """Play.objects.bulk_create(plays) in a statement made once per database and number of
    rows (one, most moves; nothing reads their ids back)."""
    if not plays:
        return
    alias = router.db_for_write(Play)
    made = _Insert.of(alias, Play, len(plays), False)
    connection = connections[alias]
    params = [
        f.get_db_prep_save(f.pre_save(play, True), connection)
        for play in plays
        for f in made.fields
    ]
    with transaction.mark_for_rollback_on_error(alias), prepared.cursor(alias) as cursor:
        cursor.execute(made.sql, params)
    for play in plays:
        play._state.adding = False
        play._state.db = alias


def game_update(game: Game) -> None:
    """game.save() for what a move changes: the GAME_MOVE_FIELDS columns of the locked row."""
    alias = router.db_for_write(Game, instance=game)
    made = _GameUpdate.of(alias)
    connection = connections[alias]
    params = [f.get_db_prep_save(getattr(game, f.attname), connection) for f in made.fields]
    params.append(game.pk)
    with transaction.mark_for_rollback_on_error(alias), prepared.cursor(alias) as cursor:
        cursor.execute(made.sql, params)
