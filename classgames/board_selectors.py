"""Reads for the class board (a projector): a table seen by nobody in particular, and the
mistake of the day — a wrong or missed operation, rebuilt from the game's seed and moves."""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field
from datetime import datetime, time
from typing import Any
from zoneinfo import ZoneInfo

import segno
from django.db.models import Q, QuerySet
from django.http import Http404
from django.utils import timezone

from classgames import reads
from classgames.models import ClassTable, session_id_of
from classrooms import permissions
from classrooms.models import Classroom
from games import engine
from games.engine import events as ev
from games.engine.game import card_dict
from games.engine.operations import OPERATOR_SYMBOLS
from games.models import Game, Move, Play, Seat
from games.selectors import name_seats, table_context
from games.wording import TIMEOUT_CODE, as_printed, verdict_message


def board_table_context(*, game: Game) -> dict[str, Any]:
    """The table as a spectator sees it (seat None: R1.5, nothing a tablet keeps to itself).

    The same view model as the tablets' (games.selectors.table_context), with no seat: no
    legal moves, no held-card builder, no poll token.
    """
    # The class game it is a table of, if any: its stream and its tables (game_get read it).
    return {**table_context(game=game, seat=None), "session_id": session_id_of(game)}


def seated(seat: Seat, game: Game) -> bool:
    """A child sits at the table once their tablet has opened it since the game started (the
    stamp games.services.table_visit writes); a computer player always sits."""
    if seat.bot:
        return True
    return (
        seat.last_seen_at is not None
        and game.started_at is not None
        and seat.last_seen_at >= game.started_at
    )


def board_session_tables(session) -> list[dict[str, Any]]:
    """The tables of a class game, for the board's chooser: label, status, players, and which
    children sit at their table already (their names light up as they do)."""
    games = reads.session_games(session, reads.BOARD_FIELDS)
    seats: dict[int, list[Seat]] = {}
    for seat in reads.session_seats(session, reads.SEAT_FIELDS):
        seats.setdefault(seat.game_id, []).append(seat)
    tables = []
    for g in games:
        named = name_seats(seats.get(g.pk, []))
        tables.append(
            {
                "game": g,
                "label": g.display_label,
                "status": g.get_status_display(),
                "players": [s.display_name for s in named],
                "seats": [
                    {"name": s.display_name, "bot": bool(s.bot), "seated": seated(s, g)}
                    for s in named
                ],
            }
        )
    return tables


def board_session_fingerprint(tables: list[dict[str, Any]]) -> str:
    """What the projector's join screen shows, in a word: its poll gets a 204 while it holds.
    The tables' labels, statuses and who sits, not their moves (the screen shows none): a move
    answers the board's fetch with a 204, not the screen again (issue 38)."""
    body = ";".join(
        f"{t['game'].pk}.{t['game'].status}.{t['label']}.{','.join(t['players'])}."
        + "".join("b" if s["bot"] else "1" if s["seated"] else "0" for s in t["seats"])
        for t in tables
    )
    return hashlib.blake2b(body.encode(), digest_size=8).hexdigest()


def running_session_id(classroom: Classroom) -> int | None:
    """The class game going on in this class (its newest), if any: the class board shows it."""
    table = (
        ClassTable.objects.filter(
            game__classroom=classroom,
            game__kind=Game.Kind.CLASS,
            session__status__in=["running", "paused"],
        )
        .order_by("-session__created_at", "-game_id")
        .only("session_id")
        .first()
    )
    return table.session_id if table else None


def join_qr_svg(url: str) -> str:
    """The QR code of a join URL as an SVG document (segno: error correction M, dark on white,
    a quiet zone of 4 modules so a tablet's camera finds it on a projected screen)."""
    qr = segno.make(url, error="m")
    out = io.BytesIO()
    qr.save(out, kind="svg", scale=8, border=4, dark="#0f2236", light="#ffffff", xmldecl=False)
    return out.getvalue().decode()


# --- the mistake of the day -------------------------------------------------------------------

WRONG = "wrong"
MISSED = "missed"


def _mistakes_filter() -> Q:
    """A wrong operation (R3.5 wrong, never merely invalid) or a false "nothing to do" (R5.6)."""
    wrong = Q(kind=Play.Kind.ANNOUNCE, ok=False, verdict_kind="wrong")
    missed = Q(kind=Play.Kind.NOTHING, missed=True)
    return wrong | missed


def _mistakes(user, games: QuerySet[Game]) -> QuerySet[Play]:
    plays = permissions.readable(user, Play).filter(game__in=games).filter(_mistakes_filter())
    return plays.filter(move__isnull=False).select_related("game", "move")


def school_today_start(classroom: Classroom) -> datetime:
    """Midnight today in the school's time zone (a school's day, not the server's)."""
    try:
        zone = ZoneInfo(classroom.school.time_zone)
    except (KeyError, ValueError):
        zone = timezone.get_current_timezone()
    today = timezone.now().astimezone(zone).date()
    return datetime.combine(today, time.min, tzinfo=zone)


@dataclass
class MistakeRow:
    """One line of the list: where and what, never who."""

    play_id: int
    table: str
    move: int
    kind: str
    timeout: bool = False


def _rows(plays: QuerySet[Play]) -> list[MistakeRow]:
    rows = [
        MistakeRow(
            play_id=p.pk,
            table=p.game.display_label,
            move=p.move.number,
            kind=WRONG if p.kind == Play.Kind.ANNOUNCE else MISSED,
            timeout=p.code == TIMEOUT_CODE,
        )
        for p in plays.only("pk", "kind", "code", "game__label", "game__id", "move__number")
    ]
    # Table 2 before Table 10, then the moves in order.
    return sorted(rows, key=lambda r: (len(r.table), r.table, r.move))


def session_mistakes(user, session) -> list[MistakeRow]:
    """Every wrong or missed operation at the tables of one class game."""
    return _rows(_mistakes(user, session.games))


def classroom_mistakes_today(user, classroom: Classroom) -> list[MistakeRow]:
    """Every wrong or missed operation in the class's class games today (the school's day)."""
    games = Game.objects.filter(classroom=classroom, kind=Game.Kind.CLASS)
    return _rows(_mistakes(user, games).filter(at__gte=school_today_start(classroom)))


def mistake_play_get(user, play_id: int) -> Play:
    """A wrong or missed play of a class the user teaches, or 404 (a foreign id is no different)."""
    play = _mistakes(user, permissions.manageable(user, Game)).filter(pk=play_id).first()
    if play is None:
        raise Http404("no such mistake")
    return play


def _card(state: engine.GameState, cid: int, lit: set[int]) -> dict[str, Any]:
    card = card_dict(state.cards[cid])
    card["lit"] = cid in lit
    return card


@dataclass
class Mistake:
    """The moment of a mistake, rebuilt: the cards as they lay, what was said, and the answer."""

    play: Play
    table: str
    move: int
    kind: str
    timeout: bool
    rules: dict[str, Any]
    operators: list[str]
    cards: list[dict[str, Any]] = field(default_factory=list)
    held: list[dict[str, Any]] = field(default_factory=list)
    said: str = ""
    why: str = ""
    answer: str = ""
    steps: list[str] = field(default_factory=list)
    nothing_possible: bool = False
    rebuilt: bool = True


def _state_before(game: Game, number: int) -> engine.GameState:
    """R1.4, R9.2: the seed folded over the moves before this one."""
    config = engine.GameConfig.from_dict(game.config)
    payloads = Move.objects.filter(game=game, number__lt=number).order_by("number")
    return engine.replay(
        config, game.seed, (m.payload for m in payloads.only("payload")), draw_order=game.draw_order
    )


def _verdict_of(after, events: list[dict], seat: int) -> dict[str, Any]:
    """The engine's verdict on the announcement just applied: told now, or kept pending in the
    challenge window (R5.1) where the tablets do not see it yet."""
    for event in events:
        typed = ev.event_from_dict(event)
        if isinstance(typed, ev.Verdict) and typed.seat == seat:
            return event
    pending = after.pending or {}
    if pending.get("kind") == "announce" and pending.get("seat") == seat:
        return pending.get("verdict") or {}
    return {}


def mistake_moment(play: Play, *, reveal: bool) -> Mistake:
    """The table as it was just before the mistake, from the game's seed and moves, and — when
    revealed — the operation there was: the one the engine recorded for a false "nothing to do"
    (R5.6), the solver's largest trick for a wrong operation (R9.4: what it finds is correct)."""
    game, move = play.game, play.move
    kind = WRONG if play.kind == Play.Kind.ANNOUNCE else MISSED
    rules = (game.config or {}).get("rules") or {}
    ops = [op for op in (rules.get("operators") or "") if op in "+-*/^"]
    mistake = Mistake(
        play=play,
        table=game.display_label,
        move=move.number,
        kind=kind,
        timeout=play.code == TIMEOUT_CODE,
        rules=rules,
        operators=[OPERATOR_SYMBOLS.get(op, op) for op in ops],
    )
    try:
        before = _state_before(game, move.number)
    except engine.EngineError:
        mistake.rebuilt = False
        return mistake
    seat = move.seat if move.seat is not None else before.active
    if not 0 <= seat < before.n_seats:
        mistake.rebuilt = False
        return mistake
    available = before.table + before.held[seat]
    lit: set[int] = set()
    if kind == WRONG:
        mistake.said = as_printed(play.text)
    if reveal:
        operation = play.operation if kind == MISSED else None
        if operation and operation.get("cards"):
            lit = set(operation["cards"])
            mistake.answer = as_printed(operation.get("text", ""))
            mistake.steps = [as_printed(s) for s in operation.get("steps") or []]
        else:
            values = [before.value_of(c) for c in before.table]
            held = [before.value_of(c) for c in before.held[seat]]
            found = engine.best_operation(values, before.config.rules, held=held)
            if found is None:
                mistake.nothing_possible = True
            else:
                lit = {available[p] for p in found.positions}
                mistake.answer = as_printed(found.text)
                mistake.steps = [as_printed(s) for s in found.steps]
        if kind == WRONG:
            try:
                after, events = engine.apply_move(before, move.payload)
            except engine.EngineError:
                after, events = None, []
            verdict = _verdict_of(after, events, seat) if after is not None else {}
            mistake.why = verdict_message(verdict.get("code") or play.code, verdict.get("params"))
    mistake.cards = [_card(before, c, lit) for c in before.table]
    mistake.held = [_card(before, c, lit) for c in before.held[seat]]
    return mistake
