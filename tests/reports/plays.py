"""A small factory for recorded plays: games, seats and Play rows written directly."""
from __future__ import annotations

import itertools
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from classrooms.models import Classroom, Student
from games.models import Game, Move, Play, Seat

PARIS = ZoneInfo("Europe/Paris")
_seed = itertools.count(1)


def paris(*args: int) -> datetime:
    """A moment written in the school's time zone (the test school is in Paris)."""
    return datetime(*args, tzinfo=PARIS)


def game(*, classroom: Classroom, students: list[Student], started_at: datetime | None = None,
         minutes: int | None = None, kind: str = "class", tricks: list[dict] | None = None) -> Game:
    """A finished game with a seat per student (position = index), and trick_won events."""
    g = Game.objects.create(
        school=classroom.school, classroom=classroom, kind=kind, status=Game.Status.FINISHED,
        seed=next(_seed), started_at=started_at,
        finished_at=started_at + timedelta(minutes=minutes) if started_at and minutes else None,
    )
    Seat.objects.bulk_create([Seat(game=g, position=i, student=s, name=s.name)
                              for i, s in enumerate(students)])
    if tricks:
        Move.objects.create(game=g, number=1, seat=0, payload={"type": "announce"},
                            events=[{"type": "trick_won", "placed": None, "to": None, **t}
                                    for t in tricks])
    return g


def play(student: Student, game: Game, at: datetime, *, kind: str = "announce", ok: bool | None = True,
         skills: tuple[str, ...] = (), text: str = "", code: str = "", verdict_kind: str = "",
         reaction_ms: int | None = None, tier: int | None = None, number_range: int | None = None,
         challenge_outcome: str = "", missed: bool = False, missed_operation: str = "",
         n_cards: int = 3, save: bool = True) -> Play:
    row = Play(
        student=student, game=game, kind=kind, at=at, ok=ok, skills=list(skills), text=text,
        code=code, verdict_kind=verdict_kind or ("wrong" if ok is False and kind == "announce" else ""),
        reaction_ms=reaction_ms, tier=tier or student.tier,
        number_range=number_range or student.number_range, challenge_outcome=challenge_outcome,
        missed=missed, missed_operation=missed_operation, n_cards=n_cards if ok else 0,
    )
    if save:
        row.save()
    return row
