"""What each student did, for the reports: the Play rows written with every move (the skills of
an operation, the reaction time, the verdict of a challenge).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Subquery

from classrooms.models import Student
from games import engine
from games.wording import TIMEOUT_CODE

from ..models import Game, Move, Play, Seat

# --- what each student did, for the reports ----------------------------------------------------


def _skills(operation: dict | None) -> list[str]:
    """Play.skills: the engine's skills_of on the stored operation, as a sorted list of keys."""
    return sorted(engine.skills_of(operation)) if operation else []


def _reaction_ms(game: Game, now: datetime) -> int | None:
    start = game.phase_started_at or game.last_move_at
    if start is None:
        return None
    return max(0, int((now - start).total_seconds() * 1000))


def _verdict_record(event: dict) -> dict:
    """An announcement as a verdict event tells it."""
    return {
        "text": event["text"],
        "ok": event["ok"],
        "verdict": event,
        "operation": event.get("operation"),
        "cards": event.get("cards", []),
    }


def _announcement_record(after, events: list[dict], seat: int) -> dict | None:
    """The engine's judged announcement: still pending in a window, or told in a verdict event."""
    for event in events:
        if (
            event.get("type") == "verdict"
            and event.get("seat") == seat
            and event.get("role") != "turn"
        ):
            return _verdict_record(event)
    pending = after.pending
    if pending and pending.get("kind") == "announce" and pending.get("seat") == seat:
        return pending
    for event in events:
        if event.get("type") == "verdict" and event.get("seat") == seat:
            return _verdict_record(event)
    return None


def _nothing_record(after, events: list[dict], seat: int) -> dict | None:
    pending = after.pending
    if pending and pending.get("kind") == "nothing" and pending.get("seat") == seat:
        return pending
    for event in events:
        if event.get("type") == "nothing_ruled" and event.get("seat") == seat:
            return event
    return None


def _record_plays(
    game: Game,
    before,
    after,
    move: dict,
    events: list[dict],
    move_row: Move,
    seats: dict[int, Seat],
    now: datetime,
) -> None:
    rules = before.config.rules
    base = {
        "game": game,
        "move": move_row,
        "at": now,
        "tier": rules.tier,
        "number_range": rules.max_number,
    }
    reaction = _reaction_ms(game, now)

    def student_at(position: Any) -> Student | None:
        seat = seats.get(position)
        return seat.student if seat is not None and not seat.bot else None

    plays: list[Play] = []
    for event in events:
        etype = event.get("type")
        student = student_at(event.get("seat"))
        if student is None:
            continue
        if etype == "announced":
            record = _announcement_record(after, events, event["seat"]) or {}
            op = record.get("operation")
            verdict = record.get("verdict") or {}
            values = (op or {}).get("values") or []
            plays.append(
                Play(
                    student=student,
                    kind=Play.Kind.ANNOUNCE,
                    text=str(event.get("text", ""))[:200],
                    ok=record.get("ok"),
                    verdict_kind=verdict.get("kind") or "",
                    code=verdict.get("code") or "",
                    operation=op,
                    # What the child computed, correct or wrong (the engine judges the operation).
                    skills=_skills(op or {"text": str(event.get("text", ""))}),
                    n_cards=len(record.get("cards") or values),
                    uses_x="X" in values,
                    reaction_ms=reaction,
                    **base,
                )
            )
        elif etype == "said_nothing" and event.get("role") == "turn":
            record = _nothing_record(after, events, event["seat"]) or {}
            possible = record.get("possible") or {}
            was_true = record.get("was_true")
            plays.append(
                Play(
                    student=student,
                    kind=Play.Kind.NOTHING,
                    # A timed-out turn is told in words where it is shown, in the reader's language.
                    code=TIMEOUT_CODE if event.get("timeout") else "",
                    ok=was_true,
                    missed=was_true is False,
                    missed_operation=str(possible.get("text", ""))[:200],
                    operation=possible or None,
                    skills=_skills(possible) if was_true is False else [],
                    reaction_ms=reaction,
                    **base,
                )
            )
        elif etype == "challenge_called":
            plays.append(
                Play(
                    student=student,
                    kind=Play.Kind.CHALLENGE,
                    text="Kavet 'm eus!",
                    reaction_ms=reaction,
                    **base,
                )
            )
    if plays:
        Play.objects.bulk_create(plays)
    for event in events:
        if event.get("type") == "challenge_ruled":
            outcome = event.get("outcome", "")[:10]
            challenger = student_at(event.get("challenger"))
            challenged = student_at(event.get("challenged"))
            # The student's last unruled play of that kind, in one UPDATE each.
            if challenger is not None:
                last = (
                    Play.objects.filter(
                        game=game,
                        student=challenger,
                        kind=Play.Kind.CHALLENGE,
                        challenge_outcome="",
                    )
                    .order_by("-at", "-pk")
                    .values("pk")[:1]
                )
                Play.objects.filter(pk__in=Subquery(last)).update(challenge_outcome=outcome)
            if challenged is not None:
                last = (
                    Play.objects.filter(
                        game=game,
                        student=challenged,
                        kind__in=[Play.Kind.ANNOUNCE, Play.Kind.NOTHING],
                        challenge_outcome="",
                    )
                    .order_by("-at", "-pk")
                    .values("pk")[:1]
                )
                Play.objects.filter(pk__in=Subquery(last)).update(challenge_outcome=outcome)
