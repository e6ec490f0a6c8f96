"""Windowed counters for rate limits, in the database: one atomic statement per count.

The tablet sign-in (wrong pictures, wrong class codes, new tablet ids), the parents' invite
codes and the password-reset emails count tries here. They used to live in the cache, which
degrades to "nothing stored" while Redis is down (kavet_site/cache.py): an outage then lifted
every limit, so a guesser could try pictures or codes without end. The database is shared by
every web process and is there whenever a page can be served at all, and an upsert counts
exactly under concurrency (two tablets trying at once both count), where the cache's
get-then-set fallback did not.

A window starts at the first count of a bucket and does not move with later counts; once it
is over the next count starts a new one. Expired rows are ignored by every read and deleted by
`sweep` (hourly, classrooms' beat schedule), and a bucket's own expired row is replaced on its
next count.

Where a limit must hold over *any* stretch of the window (not only within one fixed window,
whose end lets a second full window follow at once), `take` hands out one of a few slots
instead: a slot once taken stays taken for the whole window, so at most that many tries fall
within any `window` seconds.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from django.db import connection
from django.utils import timezone

from .models import Counter

_TABLE = Counter._meta.db_table


def _db_time(moment):
    return connection.ops.adapt_datetimefield_value(moment)


def hit(bucket: str, window: int) -> int:
    """Count one try in `bucket` (a window of `window` seconds from its first try): the new count.

    One INSERT ... ON CONFLICT DO UPDATE ... RETURNING (PostgreSQL, and SQLite since 3.35):
    concurrent tries each get their own number, and an expired window starts again at 1.
    """
    now = timezone.now()
    live, ends = _db_time(now), _db_time(now + timedelta(seconds=window))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {_TABLE} (bucket, count, expires_at) VALUES (%s, 1, %s) "
            f"ON CONFLICT (bucket) DO UPDATE SET "
            f"count = CASE WHEN {_TABLE}.expires_at > %s THEN {_TABLE}.count + 1 ELSE 1 END, "
            f"expires_at = CASE WHEN {_TABLE}.expires_at > %s THEN {_TABLE}.expires_at "
            f"ELSE excluded.expires_at END "
            f"RETURNING count",
            [bucket, ends, live, live],
        )
        return int(cursor.fetchone()[0])


def unhit(bucket: str) -> None:
    """Take back one count of a live window (a try that turned out not to be a wrong one)."""
    live = _db_time(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {_TABLE} SET count = count - 1 "
            f"WHERE bucket = %s AND count > 0 AND expires_at > %s",
            [bucket, live],
        )


def take(prefix: str, slots: int, window: int) -> str | None:
    """Take one of `slots` slots (`prefix` + number) for `window` seconds: its bucket, or None.

    A slot is free once its window is over. Each claim is one INSERT ... ON CONFLICT DO UPDATE
    ... WHERE (the row locked, its expiry read as it is now), so two tries never take the same
    slot; a try that loses a race goes on to the next free slot. Taken slots are read first in
    one query, so a full set costs one statement and a free one usually two.
    """
    now = timezone.now()
    live, ends = _db_time(now), _db_time(now + timedelta(seconds=window))
    names = [f"{prefix}{n}" for n in range(slots)]
    taken = set(
        Counter.objects.filter(bucket__in=names, expires_at__gt=now).values_list(
            "bucket", flat=True
        )
    )
    with connection.cursor() as cursor:
        for name in names:
            if name in taken:
                continue
            cursor.execute(
                f"INSERT INTO {_TABLE} (bucket, count, expires_at) VALUES (%s, 1, %s) "
                f"ON CONFLICT (bucket) DO UPDATE SET count = 1, expires_at = excluded.expires_at "
                f"WHERE {_TABLE}.expires_at <= %s "
                f"RETURNING bucket",
                [name, ends, live],
            )
            if cursor.fetchone() is not None:
                return name
    return None


def taken(prefix: str, slots: int) -> int:
    """How many of the slots `take` hands out under `prefix` are taken now."""
    names = [f"{prefix}{n}" for n in range(slots)]
    return Counter.objects.filter(bucket__in=names, expires_at__gt=timezone.now()).count()


def first_free(prefix: str, slots: int):
    """When the first of the slots `take` hands out under `prefix` is free again (None: one is)."""
    names = [f"{prefix}{n}" for n in range(slots)]
    live = Counter.objects.filter(bucket__in=names, expires_at__gt=timezone.now())
    if live.count() < slots:
        return None
    return live.order_by("expires_at").values_list("expires_at", flat=True).first()


def mark(bucket: str, window: int) -> None:
    """Keep `bucket` alive for `window` seconds from now (a note, not a count)."""
    ends = _db_time(timezone.now() + timedelta(seconds=window))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {_TABLE} (bucket, count, expires_at) VALUES (%s, 1, %s) "
            f"ON CONFLICT (bucket) DO UPDATE SET expires_at = excluded.expires_at",
            [bucket, ends],
        )


def counts(buckets: Iterable[str]) -> dict[str, int]:
    """The live count of each bucket (0 for none or an expired window), in one query."""
    wanted = list(dict.fromkeys(buckets))
    found = dict(
        Counter.objects.filter(bucket__in=wanted, expires_at__gt=timezone.now()).values_list(
            "bucket", "count"
        )
    )
    return {bucket: found.get(bucket, 0) for bucket in wanted}


def count(bucket: str) -> int:
    return counts([bucket])[bucket]


def ends(bucket: str):
    """When the live window of `bucket` is over (None when there is none)."""
    return (
        Counter.objects.filter(bucket=bucket, expires_at__gt=timezone.now())
        .values_list("expires_at", flat=True)
        .first()
    )


def live(prefix: str) -> list[str]:
    """The buckets starting with `prefix` whose window is not over."""
    return list(
        Counter.objects.filter(bucket__startswith=prefix, expires_at__gt=timezone.now())
        .order_by("bucket")
        .values_list("bucket", flat=True)
    )


def clear(*buckets: str, prefix: str = "") -> None:
    """Forget these buckets (and, with `prefix`, every bucket starting with it)."""
    if buckets:
        Counter.objects.filter(bucket__in=buckets).delete()
    if prefix:
        Counter.objects.filter(bucket__startswith=prefix).delete()


def sweep() -> int:
    """Delete the rows of windows that are over; how many."""
    deleted, _ = Counter.objects.filter(expires_at__lte=timezone.now()).delete()
    return deleted
