"""The game row locked and its table read in one statement: what a move reads under its lock.

`locked_table(game_id)` answers what `_locked` and `_seats` (games.services.base) answer, the
game locked first (`FOR NO KEY UPDATE OF` the game row alone), its class and what names its
group (signals.table_group.related) read unlocked beside it, and every seat with its student:
one round trip instead of two, and a statement written once per database alias instead of an
ORM query compiled on every move (the ORM's compile was most of a move's locked read). Rows
become model instances as Django's select_related makes them (the fields' converters,
Model.from_db, the related caches); tests/games/test_locked_table.py compares both.
"""

from __future__ import annotations

from django.db import connections, router

from classrooms.models import Classroom, Student
from games import permissions, signals
from kavet_site import prepared

from ..models import Game, Seat


class _Part:
    """One model's columns in the statement: their range, their converters, their instance."""

    def __init__(self, connection, alias: str, model, name: str, columns: list[str]) -> None:
        q = connection.ops.quote_name
        self.model = model
        fields = model._meta.concrete_fields
        self.first = len(columns)
        self.attnames = [f.attname for f in fields]
        self.converters = []
        for i, field in enumerate(fields):
            columns.append(f"{name}.{q(field.column)}")
            col = field.get_col(name)
            found = connection.ops.get_db_converters(col) + field.get_db_converters(connection)
            if found:
                self.converters.append((self.first + i, found, col))
        self.last = len(columns)

    def instance(self, alias: str, row):
        values = list(row[self.first : self.last])
        if values[0] is None:
            return None  # the LEFT JOIN found nothing (no class, no group, no seat)
        connection = connections[alias]
        for index, found, col in self.converters:
            value = values[index - self.first]
            for convert in found:
                value = convert(value, col, connection)
            values[index - self.first] = value
        return self.model.from_db(alias, self.attnames, values)


class LockedTable:
    """The statement of one database alias (written once, on first use)."""

    _made: dict[tuple[str, tuple[str, ...]], LockedTable] = {}

    @classmethod
    def of(cls, alias: str) -> LockedTable | None:
        """None where the one statement cannot stand in for the ORM's (a group relation that
        is not a reverse one-to-one of the game): the caller reads as before."""
        related = signals.table_group.related
        key = (alias, related)
        if key not in cls._made:
            try:
                cls._made[key] = cls(alias, related)
            except _Unsupported:
                cls._made[key] = None
        return cls._made[key]

    def __init__(self, alias: str, related: tuple[str, ...]) -> None:
        self.alias = alias
        connection = connections[alias]
        q = connection.ops.quote_name

        def table(model) -> str:
            return q(model._meta.db_table)

        def column(model, name: str) -> str:
            return q(model._meta.get_field(name).column)

        columns: list[str] = []
        self.game = _Part(connection, alias, Game, "g", columns)
        self.classroom = _Part(connection, alias, Classroom, "c", columns)
        joins = [
            f" LEFT JOIN {table(Classroom)} c ON c.{q(Classroom._meta.pk.column)}"
            f" = g.{column(Game, 'classroom')}"
        ]
        self.groups = []  # (the reverse one-to-one, its part)
        for i, name in enumerate(related):
            rel = Game._meta.get_field(name) if "__" not in name else None
            if rel is None or not (rel.one_to_one and rel.auto_created):
                raise _Unsupported(name)
            alias_name = f"r{i}"
            part = _Part(connection, alias, rel.related_model, alias_name, columns)
            joins.append(
                f" LEFT JOIN {table(rel.related_model)} {alias_name}"
                f" ON {alias_name}.{q(rel.field.column)} = g.{q(Game._meta.pk.column)}"
            )
            self.groups.append((rel, part))
        self.seat = _Part(connection, alias, Seat, "s", columns)
        self.student = _Part(connection, alias, Student, "st", columns)
        joins.append(
            f" LEFT JOIN {table(Seat)} s ON s.{column(Seat, 'game')} = g.{q(Game._meta.pk.column)}"
        )
        joins.append(
            f" LEFT JOIN {table(Student)} st ON st.{q(Student._meta.pk.column)}"
            f" = s.{column(Seat, 'student')}"
        )
        lock = ""
        if connection.features.has_select_for_update:
            lock = (
                " FOR NO KEY UPDATE"
                if connection.features.has_select_for_no_key_update
                else (" FOR UPDATE")
            )
            if connection.features.has_select_for_update_of:
                lock += " OF g"
        select = f"SELECT {', '.join(columns)} FROM {table(Game)} g{''.join(joins)}"
        where = f" WHERE g.{q(Game._meta.pk.column)} = %s"
        order = f" ORDER BY s.{column(Seat, 'position')}{lock}"
        self.sql = select + where + order
        # A player's move: the game only if they sit at it (own_seats' rule), so a move from
        # anyone else locks nothing and reads nothing of it.
        self.sql_for_player = (
            f"{select}{where} AND {permissions.own_table_where(alias, 'g')}{order}"
        )

    def read(
        self, game_id: int, player: tuple[int, int] | None = None
    ) -> tuple[Game, dict[int, Seat]]:
        """The game (locked) and its seats by position; Game.DoesNotExist when there is none,
        or, given a player (games.permissions.player: their school and user), none they sit at."""
        with prepared.cursor(self.alias) as cursor:
            if player is None:
                cursor.execute(self.sql, [game_id])
            else:
                cursor.execute(self.sql_for_player, [game_id, *player])
            rows = cursor.fetchall()
        if not rows:
            raise Game.DoesNotExist(f"no game {game_id}")
        first = rows[0]
        game = self.game.instance(self.alias, first)
        Game._meta.get_field("classroom").set_cached_value(
            game, self.classroom.instance(self.alias, first)
        )
        for rel, part in self.groups:
            group = part.instance(self.alias, first)
            rel.set_cached_value(game, group)
            if group is not None:
                rel.field.set_cached_value(group, game)
        seats = {}
        game_field, student_field = Seat._meta.get_field("game"), Seat._meta.get_field("student")
        for row in rows:
            seat = self.seat.instance(self.alias, row)
            if seat is None:
                continue  # a game with no seat yet (the LEFT JOIN's one row)
            game_field.set_cached_value(seat, game)
            student_field.set_cached_value(seat, self.student.instance(self.alias, row))
            seats[seat.position] = seat
        return game, seats


class _Unsupported(Exception):
    pass


def locked_table(
    game_id: int, player: tuple[int, int] | None = None
) -> tuple[Game, dict[int, Seat]] | None:
    """The game locked and its seats by position, in one statement (only a game the player sits
    at, given one); None where it cannot be (the caller then reads with _locked and _seats)."""
    made = LockedTable.of(router.db_for_write(Game))
    return None if made is None else made.read(game_id, player)
