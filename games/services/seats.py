"""The table's tablets: a seat's visit (the one writer of Seat.last_seen_at) and the moves a
page showing the table applies once they are due.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.db import connection, transaction
from django.utils import timezone

from games import scheduling
from kavet_site import prepared

from ..models import Game, Seat
from .base import _changed, _locked, _state
from .moves import game_tick

# Seconds between two presence stamps of one seat: a write on every poll would cost.
PRESENCE_RESOLUTION = 30

_GAME = Game._meta.db_table
_SEAT = Seat._meta.db_table

POLL_SQL_POSTGRES = (
    f'WITH touched AS (UPDATE "{_SEAT}" SET "last_seen_at" = %(now)s WHERE "id" IN ('
    f'SELECT "id" FROM "{_SEAT}" WHERE "game_id" = %(game)s AND "position" = %(position)s '
    f'AND "bot" = \'\' AND ("last_seen_at" IS NULL OR "last_seen_at" < %(stale)s) '
    f'FOR NO KEY UPDATE SKIP LOCKED) RETURNING "id") '
    f'SELECT "version", "status", "timer_deadline", "bot_due_at", NULL, NULL FROM "{_GAME}" '
    f'WHERE "id" = %(game)s'
)
POLL_SQL = (
    f'SELECT g."version", g."status", g."timer_deadline", g."bot_due_at", s."id", s."last_seen_at" '
    f'FROM "{_GAME}" g LEFT JOIN "{_SEAT}" s ON s."game_id" = g."id" AND s."position" = %(position)s '
    f'AND s."bot" = \'\' WHERE g."id" = %(game)s'
)
TOUCH_SQL = (
    f'UPDATE "{_SEAT}" SET "last_seen_at" = %(now)s WHERE "game_id" = %(game)s '
    f'AND "position" = %(position)s AND "bot" = \'\''
)


# --- the table's tablets -----------------------------------------------------------------------


def _aware(value: datetime) -> datetime:
    # SQLite hands raw datetimes back naive (stored in UTC); PostgreSQL gives them aware.
    return value if timezone.is_aware(value) else timezone.make_aware(value, UTC)


def _db_time(value: datetime):
    # Raw SQL bypasses the field's conversion (SQLite stores naive UTC text).
    return connection.ops.adapt_datetimefield_value(value)


def seat_poll_seen(*, game_id: int, position: int, now: datetime) -> tuple | None:
    """A tablet's poll (games.polling): stamp the seat's presence (Seat.last_seen_at, at most
    every PRESENCE_RESOLUTION seconds) and read the game's (version, status, timer_deadline,
    bot_due_at); None for an unknown game. One statement on PostgreSQL, which skips a seat
    row a move holds (the next poll stamps it); on SQLite a second one when the stamp is old.
    """
    params = {
        "game": game_id,
        "position": position,
        "now": _db_time(now),
        "stale": _db_time(now - timedelta(seconds=PRESENCE_RESOLUTION)),
    }
    postgres = connection.vendor == "postgresql"
    # Prepared once per connection (kavet_site.prepared): every 204 a poll answers asks it.
    with prepared.cursor(connection.alias) as cursor:
        cursor.execute(POLL_SQL_POSTGRES if postgres else POLL_SQL, params)
        row = cursor.fetchone()
        if row is None:
            return None
        version, status, deadline, bot_due, seat_id, seen = (
            _aware(v) if isinstance(v, datetime) else v for v in row
        )
        if seat_id is not None and (
            seen is None or (now - seen).total_seconds() >= PRESENCE_RESOLUTION
        ):
            cursor.execute(TOUCH_SQL, params)
    return version, status, deadline, bot_due


STREAMS_SQL_POSTGRES = (
    f'WITH wanted AS (SELECT unnest(%(games)s::bigint[]) AS "game_id", '
    f'unnest(%(positions)s::int[]) AS "position"), '
    f'touched AS (UPDATE "{_SEAT}" SET "last_seen_at" = %(now)s WHERE "id" IN ('
    f'SELECT s."id" FROM "{_SEAT}" s JOIN wanted w ON s."game_id" = w."game_id" '
    f'AND s."position" = w."position" JOIN "{_GAME}" g ON g."id" = s."game_id" '
    f'WHERE s."bot" = \'\' AND (s."last_seen_at" IS NULL OR s."last_seen_at" < %(stale)s) '
    f'AND (g."started_at" IS NULL OR s."last_seen_at" >= g."started_at") '
    f'FOR NO KEY UPDATE OF s SKIP LOCKED) RETURNING "id") '
    f'SELECT "id", "version", "status" FROM "{_GAME}" WHERE "id" = ANY(%(ids)s)'
)


def streams_seen(
    *, seats: set[tuple[int, int]], now: datetime, stale_after: float
) -> dict[int, tuple[int, str]]:
    """The tablets with a push stream open in this process (games.stream's keeper): stamp
    their seats' presence (Seat.last_seen_at, where older than `stale_after` seconds) and read
    their games' (version, status), by game id. Instead of each tablet's poll once a minute:
    one statement a process every half minute or so (issue 38).

    A seat not seen since its game started is left to its tablet's own visit (table_visit),
    which starts a first turn's clock that waited for it (R4.9). PostgreSQL skips a seat row
    a move holds (the next round stamps it), so this never waits for a lock nor deadlocks with
    a move.
    """
    if not seats:
        return {}
    pairs = sorted(seats)
    ids = sorted({game for game, _position in pairs})
    stale = now - timedelta(seconds=stale_after)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                STREAMS_SQL_POSTGRES,
                {
                    "games": [game for game, _ in pairs],
                    "positions": [position for _, position in pairs],
                    "ids": ids,
                    "now": now,
                    "stale": stale,
                },
            )
            return {game: (version, status) for game, version, status in cursor.fetchall()}
    games = {
        game: (version, status, started)
        for game, version, status, started in Game.objects.filter(pk__in=ids).values_list(
            "pk", "version", "status", "started_at"
        )
    }
    stamp = [
        pk
        for pk, game, position, seen in Seat.objects.filter(game_id__in=ids, bot="").values_list(
            "pk", "game_id", "position", "last_seen_at"
        )
        if (game, position) in seats
        and (seen is None or seen < stale)
        and (games[game][2] is None or (seen is not None and seen >= games[game][2]))
    ]
    if stamp:
        Seat.objects.filter(pk__in=stamp).update(last_seen_at=now)
    return {game: (version, status) for game, (version, status, _) in games.items()}


def table_visit(*, game: Game, seat: Seat, now: datetime | None = None) -> Game:
    """A tablet has the table open (the page, or a poll that found it changed): the one service

    the table's GET calls, once. It stamps the seat's presence (Seat.last_seen_at, a stamp,
    not game state), starts the first player's turn clock if it was waiting for this tablet
    (R4.9, a fair start), and applies the time limits and computer players that are due
    (due_moves_apply). Returns the game as it is now. The game row is locked only when the
    clock or a due move needs it.
    """
    now = now or timezone.now()
    seen, started = seat.last_seen_at, game.started_at
    first_sight = started is not None and (seen is None or seen < started)
    if not seat.bot and (first_sight or (now - seen).total_seconds() >= PRESENCE_RESOLUTION):
        Seat.objects.filter(pk=seat.pk).update(last_seen_at=now)
        seat.last_seen_at = now
    if game.status != Game.Status.RUNNING or not game.state:
        return game
    changed = False
    if first_sight and not seat.bot and game.state.get("timer_started") == 0:
        timer = _state(game).timer
        if timer and timer.get("kind") == "turn" and timer.get("seat") == seat.position:
            changed = _first_turn_open(game_id=game.pk, position=seat.position, now=now)
    changed = due_moves_apply(game=game, now=now) or changed
    if changed:
        game.refresh_from_db()
    return game


def page_due(
    *, status: str, timer_deadline: datetime | None, bot_due_at: datetime | None, now: datetime
) -> bool:
    """True when a page showing this game should apply its due move now: the game runs and
    its time limit or computer player is games.scheduling.page_due_grace() overdue. From the row as
    the page already read it (no query): the cheap "is anything due" of every poll."""
    if status != Game.Status.RUNNING:
        return False
    due = [t for t in (timer_deadline, bot_due_at) if t is not None]
    if not due or min(due) > now:
        return False
    return min(due) <= now - timedelta(seconds=scheduling.page_due_grace())


def due_moves_apply(*, game: Game, now: datetime | None = None) -> bool:
    """The one policy for a page that shows a running game (a tablet's table, the projector
    board, the teacher's live view): a due time limit or computer player that no one has
    applied yet is applied here, with one game_tick under the game's lock — the same call
    the worker makes, so whichever comes second finds nothing due. Where workers run it waits
    for games.scheduling.page_due_grace(), so that normally the worker plays and the request stays
    light; with Redis down (no task, no beat) the tablets' polls keep the game going. True when
    a move was applied."""
    now = now or timezone.now()
    if not page_due(
        status=game.status,
        timer_deadline=game.timer_deadline,
        bot_due_at=game.bot_due_at,
        now=now,
    ):
        return False
    return bool(game_tick(game_id=game.pk, now=now))


def _first_turn_open(*, game_id: int, position: int, now: datetime) -> bool:
    """The first player's tablet opened the table: their turn clock runs from now (R4.9)."""
    with transaction.atomic():
        game = _locked(game_id)
        if game.status != Game.Status.RUNNING or not game.state:
            return False
        state = _state(game)
        timer = state.timer
        if (
            timer is None
            or timer.get("kind") != "turn"
            or state.timer_started != 0
            or timer.get("seat") != position
            or game.timer_deadline is None
        ):
            return False
        deadline = max(now, game.started_at) + timedelta(seconds=timer["seconds"])
        if deadline < game.timer_deadline:
            game.timer_deadline = deadline
            if game.bot_due_at is not None and game.bot_due_at > deadline:
                game.bot_due_at = deadline
            game.save(update_fields=["timer_deadline", "bot_due_at"])
            _changed(game)
            return True
    return False
