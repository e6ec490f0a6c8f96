"""Erasing: a student's name scrubbed from the games they played (student_games_erase), and the
games past their keeping (games_erase_before; classrooms.retention decides the cut-off).
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import Q

from classrooms.models import School, Student, User
from games import signals

from ..models import Game, Move, Play, Seat

# --- erasing a student -------------------------------------------------------------------------

ERASED_NAME = "—"


def _scrub_players(data: dict, positions: set[int]) -> dict:
    """`data` with the player names at these positions replaced by ERASED_NAME."""
    players = data.get("players") if isinstance(data, dict) else None
    if not isinstance(players, list):
        return data
    return {
        **data,
        "players": [ERASED_NAME if i in positions else p for i, p in enumerate(players)],
    }


def student_games_erase(*, student: Student, by: User | None = None) -> None:
    """Scrub an erased student from every game they sat at; runs in the caller's transaction.

    Call it BEFORE locking the student row (classrooms.services.student_erase): the lock order
    is the game first, like every move (move_submit locks the game, then reads students).
    Every game where the student has a seat is locked by id; the games stay (the other
    children's scores are theirs), but the seat shows "—" and the player name is removed from
    the game's stored configuration, state and opening event. Their plays go with the
    student row (CASCADE). Outside a transaction, select_for_update refuses to run.
    """
    game_ids = Seat.objects.filter(student=student).values_list("game_id", flat=True)
    games = list(Game.objects.select_for_update(no_key=True).filter(pk__in=game_ids).order_by("pk"))
    positions: dict[int, set[int]] = {}
    for game_id, position in Seat.objects.filter(student=student).values_list(
        "game_id", "position"
    ):
        positions.setdefault(game_id, set()).add(position)
    for game in games:
        if game.pk not in positions:
            continue  # a seat that moved away between the two reads: nothing of theirs here
        game.config = _scrub_players(game.config, positions[game.pk])
        if isinstance(game.state, dict) and isinstance(game.state.get("config"), dict):
            game.state = {
                **game.state,
                "config": _scrub_players(game.state["config"], positions[game.pk]),
            }
        game.save(update_fields=["config", "state"])
        # The opening event carries the player names too.
        for move in Move.objects.filter(game=game, events__isnull=False):
            events = move.events
            if isinstance(events, list) and any(
                isinstance(e, dict) and "players" in e for e in events
            ):
                move.events = [
                    _scrub_players(e, positions[game.pk]) if isinstance(e, dict) else e
                    for e in events
                ]
                move.save(update_fields=["events"])
    Seat.objects.filter(student=student).update(name=ERASED_NAME, student=None)


# --- retention (classrooms.retention decides the cut-off) ------------------------------------


def _over_before(before: datetime) -> Q:
    """Games over before `before`: by when they ended, or when they were created if they never
    say when (a table set up but never started, an old game ended without a date); never a
    running or paused game, however old."""
    ended = Q(status__in=(Game.Status.FINISHED, Game.Status.ABANDONED)) & (
        Q(finished_at__lt=before) | Q(finished_at__isnull=True, created_at__lt=before)
    )
    return ended | Q(status=Game.Status.SETUP, created_at__lt=before)


def games_erase_before(
    *, before: datetime, batch: int = 200, school: School | None = None, dry_run: bool = False
) -> dict[str, int]:
    """Delete the games over before `before` (see _over_before) with their seats, moves and
    plays, then (signals.games_erased: classgames) the class games created before it that have
    no table left; returns the rows deleted per model label ({"games.Game": 3, ...}).

    Each batch of `batch` games is one short transaction that locks the game rows first, in id
    order, with select_for_update(no_key=False): a delete needs the full row lock (it conflicts
    with the key-share lock a new seat or move takes on its game), and taking it at once
    rather than upgrading from no-key cannot deadlock with a move. What hangs from the game
    goes after it (CASCADE), in the lock order of every move. Call it outside a transaction,
    so that each batch lets its locks go. Idempotent: a second run finds nothing. dry_run
    counts the same rows and changes nothing.
    """
    games = Game.objects.filter(_over_before(before))
    if school is not None:
        games = games.filter(school=school)
    counts = dict.fromkeys([m._meta.label for m in (Game, Seat, Move, Play)], 0)
    if dry_run:
        ids = games.values("pk")
        counts[Game._meta.label] = games.count()
        for model in (Seat, Move, Play):
            counts[model._meta.label] = model.objects.filter(game__in=ids).count()
        return _with_erased_above(counts, before=before, school=school, dry_run=True)
    while True:
        with transaction.atomic():
            ids = list(
                games.select_for_update(no_key=False)
                .order_by("pk")
                .values_list("pk", flat=True)[:batch]
            )
            if not ids:
                break
            _, deleted = Game.objects.filter(pk__in=ids).delete()
        for label, n in deleted.items():
            counts[label] = counts.get(label, 0) + n
    return _with_erased_above(counts, before=before, school=school, dry_run=False)


def games_over_before(before: datetime) -> Q:
    """The games the retention erases before `before` (for the apps above: what still holds)."""
    return _over_before(before)


def _with_erased_above(counts: dict[str, int], **erase) -> dict[str, int]:
    """The counts, with what the apps above erased after the games (signals.games_erased)."""
    for _receiver, erased in signals.games_erased.send(sender=Game, **erase):
        for label, n in (erased or {}).items():
            counts[label] = counts.get(label, 0) + n
    return counts
