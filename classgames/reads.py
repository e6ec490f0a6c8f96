"""A class game's tables and seats as statements written once per database alias (issue 38).

The teacher's live view reads its class game's tables at every poll, and again for each table
that moved (the one-table fetch a push makes the page send), the class board at each of its
polls: Django building and compiling those querysets (the prefetch of the seats, a filter per
call) was 6-9 % of the web workers' CPU at 30 moves/s with 10,000 tablets, several times what
PostgreSQL spent running them. Here each read is one SELECT made once (kavet_site.prepared), its
rows made into the instances the ORM would have given: the same fields (the others deferred),
the same converters, the games' seats in their prefetch cache and each seat's game set, so
`game.seats.all()` and `seat.game` ask nothing more.
tests/classgames/test_reads.py compares them with the ORM's querysets.
"""

from __future__ import annotations

from django.db import connections, router

from games.models import Game, Seat
from kavet_site.prepared import Columns, Statement

from .models import ClassTable

# What the pulse and the marks of the live view read of a table (its moves, status and times).
PULSE_FIELDS = ("id", "version", "status", "timer_deadline", "bot_due_at")
MARK_FIELDS = (*PULSE_FIELDS, "last_move_at", "started_at", "phase_started_at")


def _names(model, *, without: tuple[str, ...] = ()) -> tuple[str, ...]:
    return tuple(f.name for f in model._meta.concrete_fields if f.name not in without)


# The live view's tables: every column but the shuffled draw pile; the class board's: nor the
# state (R1.5: the pile is no page's; the board's chooser shows no card).
LIVE_FIELDS = _names(Game, without=("draw_order",))
BOARD_FIELDS = _names(Game, without=("draw_order", "state"))
SEAT_FIELDS = _names(Seat)
SEAT_MARK_FIELDS = ("id", "game", "bot", "last_seen_at")


def _in(column: str, count: int) -> str:
    return f" AND {column} IN ({', '.join(['%s'] * count)})" if count else ""


class _SessionRows(Statement):
    """The rows of `model` (Game or Seat) of a class game's tables (of `count` of them, when
    counted), by table (and position)."""

    def __init__(self, alias: str, model, fields: tuple[str, ...], count: int) -> None:
        self.alias = alias
        connection = connections[alias]
        q = connection.ops.quote_name
        self.columns = Columns(alias, model, "r", fields)
        link = ClassTable._meta
        game_column = q(
            Game._meta.pk.column if model is Game else model._meta.get_field("game").column
        )
        game = f"r.{game_column}"
        order = (
            game if model is Game else f"{game}, r.{q(model._meta.get_field('position').column)}"
        )
        table, link_game = q(model._meta.db_table), f"t.{q(link.get_field('game').column)}"
        if connection.vendor == "postgresql":
            # Each of the class game's tables looks its rows up by its own game (an index
            # scan per table, as many rows as the class game has), whatever the plan: this
            # statement is prepared (kavet_site.prepared), and the generic plan PostgreSQL
            # keeps for a plain join guessed a class game's size from the average and
            # hashed the whole seats table for each live poll. OFFSET 0 keeps the planner
            # from flattening the lateral subquery back into that join.
            rows = (
                f" CROSS JOIN LATERAL (SELECT * FROM {table} x"
                f" WHERE x.{game_column} = {link_game} OFFSET 0) r"
            )
            source = f"{q(link.db_table)} t{rows}"
            game = link_game  # the tables asked for, picked before their rows are looked up
        else:
            source = f"{table} r INNER JOIN {q(link.db_table)} t ON {link_game} = {game}"
        self.sql = (
            f"SELECT {', '.join(self.columns.columns)} FROM {source}"
            f" WHERE t.{q(link.get_field('session').column)} = %s{_in(game, count)}"
            f" ORDER BY {order}"
        )

    def rows(self, session_id: int, only: list[int]) -> list:
        return self.fetch([session_id, *only])


def _only(only) -> list[int]:
    return sorted({int(pk) for pk in only}) if only is not None else []


def session_games(
    session, fields: tuple[str, ...], *, only=None, with_seats: tuple[str, ...] = ()
) -> list[Game]:
    """session.games.order_by("pk").only(*fields) (`only`: of those game ids alone), and with
    `with_seats` (the seats' fields) each game's seats as prefetch_related("seats") leaves them,
    by position, each with its game."""
    ids = _only(only)
    if only is not None and not ids:
        return []
    read = _SessionRows.of(router.db_for_read(Game), Game, tuple(fields), len(ids))
    games = [read.columns.instance(row) for row in read.rows(session.pk, ids)]
    if with_seats:
        by_game: dict[int, list[Seat]] = {game.pk: [] for game in games}
        for seat in session_seats(session, with_seats, only=only):
            if seat.game_id in by_game:
                by_game[seat.game_id].append(seat)
        game_field = Seat._meta.get_field("game")
        for game in games:
            seats = by_game[game.pk]
            for seat in seats:
                game_field.set_cached_value(seat, game)
            _prefetched(game, "seats", seats)
    return games


def session_seats(session, fields: tuple[str, ...], *, only=None) -> list[Seat]:
    """Seat.objects.filter(game__in=session.games).only(*fields), by table and position."""
    ids = _only(only)
    if only is not None and not ids:
        return []
    read = _SessionRows.of(router.db_for_read(Seat), Seat, tuple(fields), len(ids))
    return [read.columns.instance(row) for row in read.rows(session.pk, ids)]


def session_pulse(session, *, only=None) -> list[tuple]:
    """(id, version, status, timer_deadline, bot_due_at) of each table, in the order of ids."""
    return pulse_of(session_games(session, PULSE_FIELDS, only=only))


def pulse_of(games: list[Game]) -> list[tuple]:
    """session_pulse's rows of games read with the pulse's fields (PULSE_FIELDS or more)."""
    return [(g.pk, g.version, g.status, g.timer_deadline, g.bot_due_at) for g in games]


def _prefetched(instance, name: str, objects: list) -> None:
    """`objects` as what prefetch_related(name) leaves in `instance` (manager.all() reads it)."""
    queryset = getattr(instance, name).all()
    queryset._result_cache = objects
    queryset._prefetch_done = True
    instance.__dict__.setdefault("_prefetched_objects_cache", {})[name] = queryset
