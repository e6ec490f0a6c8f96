"""Rows of a hand-written SELECT made into model instances as the ORM makes them.

The hottest reads (the request's user, a tablet's table, a teacher's class game) are one
statement written once per database alias instead of a query Django compiles on every request:
compiling was a quarter of a board fetch's CPU, and 4.5 % of the web workers' at 30 moves/s for
the teachers' polls alone (issue 38). `Columns` is one model's part of such a SELECT: its
columns (under a table alias), and its values in a row turned into an instance the way Django's
own iterator does (each field's database converters, then Model.from_db), so the instance is
the one the ORM would have given.
"""

from __future__ import annotations

import functools

from django.db import connections


class Columns:
    """The concrete columns of `model` in a SELECT, under the table alias `name`: all of them,
    or those of `fields` (names, the primary key among them; the others are deferred in the
    instances, as the ORM's only() and defer() leave them), in the model's order."""

    def __init__(self, alias: str, model, name: str, fields: tuple[str, ...] = ()) -> None:
        self.alias, self.model = alias, model
        connection = connections[alias]
        q = connection.ops.quote_name
        wanted = {model._meta.get_field(f) for f in fields}
        # In the model's order, as Model.from_db takes the values of some of its fields.
        fields = [f for f in model._meta.concrete_fields if not wanted or f in wanted]
        self.attnames = [f.attname for f in fields]
        self.columns = [f"{name}.{q(f.column)}" if name else q(f.column) for f in fields]
        self.converters = []
        for i, field in enumerate(fields):
            col = field.get_col(name or model._meta.db_table)
            found = connection.ops.get_db_converters(col) + field.get_db_converters(connection)
            if found:
                self.converters.append((i, found, col))

    def values(self, row, first: int = 0) -> list:
        """The values at row[first:] as the fields hold them (each field's converters run)."""
        values = list(row[first : first + len(self.attnames)])
        if self.converters:
            connection = connections[self.alias]
            for index, found, col in self.converters:
                value = values[index]
                for convert in found:
                    value = convert(value, col, connection)
                values[index] = value
        return values

    def instance(self, row, first: int = 0):
        """The instance of the values at row[first:], or None where they are NULL (a LEFT JOIN
        that found nothing)."""
        if row[first] is None:
            return None
        return self.model.from_db(self.alias, self.attnames, self.values(row, first))


class Statement:
    """A hand-written statement made once per database alias (and whatever else its SQL
    depends on): `Subclass.of(alias, ...)` builds it (`Subclass(alias, ...)`: its SQL, in
    `sql`, its `alias` and Columns) the first time and keeps it; `fetch` runs it."""

    _made: dict
    alias: str
    sql: str

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls._made = {}

    @classmethod
    def of(cls, *key):
        made = cls._made.get(key)
        if made is None:
            made = cls._made[key] = cls(*key)
        return made

    def fetch(self, params: list) -> list:
        """Its rows for `params`, run through `cursor` (on PostgreSQL, prepared once per
        connection): every Statement's hot read goes this one way."""
        with cursor(self.alias) as c:
            c.execute(self.sql, params)
            return c.fetchall()


def cursor(alias: str):
    """A cursor of `alias` for the hand-written hot statements (the Statements, the move's
    locked read and writes): on PostgreSQL one whose statements the server prepares, once per
    connection, and then only binds and runs.

    Django's cursors bind parameters on the client (psycopg's ClientCursor: the statement is
    sent as text with its values in it, parsed and planned by the server every time) and
    prepare nothing (prepare_threshold None, for connection poolers in transaction mode). For
    these few statements, written once and run on every move and every board fetch, the
    planning was most of PostgreSQL's work: a tablet's table read (four tables joined) cost
    0.74-0.78 ms of the server's CPU as text, 0.16-0.21 ms prepared (benchmarks/README.md).
    The connections stay Django's (its pool keeps them, and their prepared statements, between
    requests); the cursor is Django's wrapper around psycopg's server-binding cursor, so errors,
    query logging and the tests' query counts are as for any other cursor. Other databases, or
    PostgreSQL with DB_PREPARE=0 (settings): the connection's own cursor.
    """
    connection = connections[alias]
    if connection.vendor != "postgresql":
        return connection.cursor()
    connection.close_if_health_check_failed()  # what Django's cursor() does first
    connection.ensure_connection()
    raw = connection.connection
    if raw.prepare_threshold is None:  # DB_PREPARE=0 (settings): as every other statement
        return connection.cursor()
    made = raw.cursor_factory
    raw.cursor_factory = _preparing_cursor()
    try:
        return connection.cursor()  # Django's create_cursor: its time zone, its wrapper
    finally:
        raw.cursor_factory = made


@functools.cache
def _preparing_cursor():
    """Django's server-binding cursor class (its PostgreSQL backend's, for psycopg 3) whose
    every statement is prepared (psycopg keeps each connection's prepared statements)."""
    from django.db.backends.postgresql.base import ServerBindingCursor

    class PreparingCursor(ServerBindingCursor):
        def execute(self, query, params=None, *, prepare=None, binary=None):
            return super().execute(query, params, prepare=True, binary=binary)

        def _send_query_prepared(self, name, pgq, *, binary=None):
            # The statement Django's query log reads (last_executed_query: cursor._query),
            # which psycopg keeps only for a statement it does not prepare.
            self._query = pgq
            return super()._send_query_prepared(name, pgq, binary=binary)

    return PreparingCursor
