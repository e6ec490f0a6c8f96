"""What each student did, for the reports: the Play rows written with every move (the skills of
an operation, the reaction time, the verdict of a challenge).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Subquery

from classrooms.models import Student
from games import engine
from games.engine import events as ev
from games.wording import TIMEOUT_CODE

from ..models import Game, Move, Play, Seat
from .writes import plays_insert

# --- what each student did, for the reports ----------------------------------------------------


def _skills(operation: dict | None) -> list[str]:
    """Play.skills: the engine's skills_of on the stored operation, as a sorted list of keys."""
    return sorted(engine.skills_of(operation)) if operation else []


# A reaction time is kept up to a day: a game left waiting for weeks (an untimed seat, a table
# paused over the holidays) must not overflow the column (PostgreSQL's integer: 24.8 days in ms).
REACTION_MS_MAX = 24 * 3600 * 1000


def _reaction_ms(game: Game, now: datetime) -> int | None:
    start = game.phase_started_at or game.last_move_at
    if start is None:
        return None
    return min(REACTION_MS_MAX, max(0, int((now - start).total_seconds() * 1000)))


def _pending_verdict(pending: dict) -> ev.Verdict:
    """An announcement still in its challenge window (the state's pending claim, R5), read as
    the verdict it will be told with."""
    verdict = pending.get("verdict") or {}
    return ev.Verdict(
        seat=pending.get("seat"),
        text=pending.get("text", ""),
        ok=pending.get("ok"),
        kind=verdict.get("kind"),
        code=verdict.get("code"),
        operation=pending.get("operation"),
        cards=pending.get("cards") or [],
    )


def _announcement_ruling(after, events: list[ev.Event], seat: int) -> ev.Verdict | None:
    """The engine's judged announcement: still pending in a window, or told in a verdict event."""
    verdicts = [e for e in events if isinstance(e, ev.Verdict) and e.seat == seat]
    for verdict in verdicts:
        if verdict.role != "turn":
            return verdict
    pending = after.pending
    if pending and pending.get("kind") == "announce" and pending.get("seat") == seat:
        return _pending_verdict(pending)
    return verdicts[0] if verdicts else None


def _nothing_ruling(after, events: list[ev.Event], seat: int) -> ev.NothingRuled | None:
    pending = after.pending
    if pending and pending.get("kind") == "nothing" and pending.get("seat") == seat:
        return ev.NothingRuled(
            seat=seat, was_true=pending.get("was_true"), possible=pending.get("possible")
        )
    for event in events:
        if isinstance(event, ev.NothingRuled) and event.seat == seat:
            return event
    return None


def _announce_play(event: ev.Announced, ruling: ev.Verdict | None, **base: Any) -> Play:
    op = ruling.operation if ruling is not None else None
    values = (op or {}).get("values") or []
    return Play(
        kind=Play.Kind.ANNOUNCE,
        text=str(event.text)[:200],
        ok=ruling.ok if ruling is not None else None,
        verdict_kind=(ruling.kind if ruling is not None else None) or "",
        code=(ruling.code if ruling is not None else None) or "",
        operation=op,
        # What the child computed, correct or wrong (the engine judges the operation).
        skills=_skills(op or {"text": str(event.text)}),
        n_cards=len((ruling.cards if ruling is not None else None) or values),
        uses_x="X" in values,
        **base,
    )


def _nothing_play(event: ev.SaidNothing, ruling: ev.NothingRuled | None, **base: Any) -> Play:
    possible = (ruling.possible if ruling is not None else None) or {}
    was_true = ruling.was_true if ruling is not None else None
    return Play(
        kind=Play.Kind.NOTHING,
        # A timed-out turn is told in words where it is shown, in the reader's language.
        code=TIMEOUT_CODE if event.timeout else "",
        ok=was_true,
        missed=was_true is False,
        missed_operation=str(possible.get("text", ""))[:200],
        operation=possible or None,
        skills=_skills(possible) if was_true is False else [],
        **base,
    )


def _record_plays(
    game: Game,
    before,
    after,
    move: dict,
    stored: list[dict],
    move_row: Move,
    seats: dict[int, Seat],
    now: datetime,
) -> None:
    rules = before.config.rules
    events = ev.read_events(stored)
    reaction = _reaction_ms(game, now)

    def student_at(position: Any) -> Student | None:
        seat = seats.get(position)
        return seat.student if seat is not None and not seat.bot else None

    plays: list[Play] = []
    for event in events:
        if not isinstance(event, (ev.Announced, ev.SaidNothing, ev.ChallengeCalled)):
            continue
        student = student_at(event.seat)
        if student is None:
            continue
        base = {
            "student": student,
            "game": game,
            "move": move_row,
            "at": now,
            "tier": rules.tier,
            "number_range": rules.max_number,
            "reaction_ms": reaction,
        }
        if isinstance(event, ev.Announced):
            ruling = _announcement_ruling(after, events, event.seat)
            plays.append(_announce_play(event, ruling, **base))
        elif isinstance(event, ev.SaidNothing) and event.role == "turn":
            ruling = _nothing_ruling(after, events, event.seat)
            plays.append(_nothing_play(event, ruling, **base))
        elif isinstance(event, ev.ChallengeCalled):
            plays.append(Play(kind=Play.Kind.CHALLENGE, text="Kavet 'm eus!", **base))
    if plays:
        plays_insert(plays)  # Play.objects.bulk_create(plays), a statement made once
    for event in events:
        if isinstance(event, ev.ChallengeRuled):
            outcome = event.outcome[:10]
            challenge = [Play.Kind.CHALLENGE]
            _outcome_set(game, student_at(event.challenger), challenge, outcome)
            claims = [Play.Kind.ANNOUNCE, Play.Kind.NOTHING]
            _outcome_set(game, student_at(event.challenged), claims, outcome)


def _outcome_set(game: Game, student: Student | None, kinds: list[str], outcome: str) -> None:
    """A challenge's outcome on the student's last unruled play of those kinds, in one UPDATE."""
    if student is None:
        return
    last = (
        Play.objects.filter(game=game, student=student, kind__in=kinds, challenge_outcome="")
        .order_by("-at", "-pk")
        .values("pk")[:1]
    )
    Play.objects.filter(pk__in=Subquery(last)).update(challenge_outcome=outcome)
