"""The demo's clock: the moment the services believe it is while the demo's past is played."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

from celery import current_app as app
from django.utils import timezone


class DemoClock:
    """The moment the services believe it is while the demo's past is played.

    The demo's history is played through the real services (move_submit, game_tick, levels_set,
    student_create), which stamp rows with timezone.now(). Playing it under this clock dates the
    demo data where it belongs, the way it would have been written on those days: games that
    last minutes, and reaction times a child would have. Shifting real-time rows afterwards
    would leave games of a fraction of a second and reaction times of a few milliseconds, which
    is what the reports measure ("quickly", minutes played).
    """

    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment

    def set(self, moment: datetime) -> None:
        self.moment = moment

    def advance_to(self, moment: datetime) -> None:
        self.moment = max(self.moment, moment)


# The clock of the demo being played in this context (thread or task); None everywhere else.
_current: ContextVar[DemoClock | None] = ContextVar("demo_clock", default=None)
_real_now = timezone.now


def _now() -> datetime:
    clock = _current.get()
    return clock() if clock is not None else _real_now()


@contextmanager
def demo_clock(moment: datetime) -> Iterator[DemoClock]:
    """Date the demo data: timezone.now() answers the demo clock until the block ends.

    Only in the context that entered the block: another thread of the same process (a request
    served meanwhile, the push hub's subscriber) still reads the real time, and the real
    timezone.now is put back when the last demo block ends. Everything written meanwhile
    (auto_now_add fields included) is demo data being dated. Celery is kept in-process so that
    no worker is sent a computer player's move for a game this loop is already playing.
    """
    clock = DemoClock(moment)
    token = _current.set(clock)
    installed_here = timezone.now is not _now
    eager = app.conf.task_always_eager
    if installed_here:
        timezone.now = _now
    app.conf.task_always_eager = True
    try:
        yield clock
    finally:
        _current.reset(token)
        app.conf.task_always_eager = eager
        if installed_here:
            timezone.now = _real_now


def local_time(day: date, at: str, tz: ZoneInfo) -> datetime:
    """A local time of day on a school day ("10:15" on Tuesday)."""
    return datetime.combine(day, time.fromisoformat(at), tzinfo=tz)
