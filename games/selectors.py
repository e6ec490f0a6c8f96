"""Reads for the students' pages: their games and results, and what one seat sees of a table."""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connections, router
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

from classrooms import permissions
from classrooms.models import Student, User
from games import board, engine, scheduling, table_cache
from games.engine import events as ev
from games.engine.operations import OPERATOR_SYMBOLS
from games.engine.state import card_dict
from games.wording import (
    as_printed,
    end_speech,
    event_explanations,
    event_sentence,
    events_sentences,
    ranking_speech,
    ruling_texts,
    settlement_sentence,
    settlement_steps,
)
from kavet_site import prepared

from .models import Game, Seat

OPEN_STATUSES = (Game.Status.SETUP, Game.Status.RUNNING, Game.Status.PAUSED)
DONE_STATUSES = (Game.Status.FINISHED, Game.Status.ABANDONED)


def name_seats(seats: Sequence[Seat]) -> list[Seat]:
    """Number a table's unnamed computer players, so `display_name` needs no query per seat.

    `seats` must be the whole table (any order); returns them in seat order.
    """
    ordered = sorted(seats, key=lambda s: s.position)
    number = 0
    for seat in ordered:
        if seat.bot and not seat.name:
            number += 1
            seat._bot_number = number
    return ordered


def player_names(game: Game, seats: Sequence[Seat] | None = None) -> list[str]:
    """The players' names in seat order, as the reader's language shows them.

    Use it wherever the engine's `players` list becomes words: the engine's config holds the
    stored names, and an unnamed computer player is "" there.
    """
    if seats is None:
        seats = list(Seat.objects.filter(game=game))
    names = [s.display_name for s in name_seats(seats)]
    if names:
        return names
    return [str(p) for p in (game.config or {}).get("players") or []]


def student_of(user: User) -> Student | None:
    if not permissions.is_student(user):
        return None
    return (
        Student.objects.select_related("classroom", "classroom__school").filter(user=user).first()
    )


def open_game_for_student(*, student: Student) -> Game | None:
    """The student's game that has not ended (the one to rejoin), newest first."""
    seat = (
        Seat.objects.filter(student=student, game__status__in=OPEN_STATUSES)
        .select_related("game")
        .order_by("-game__created_at")
        .first()
    )
    return seat.game if seat else None


def recent_results(*, student: Student, limit: int = 5) -> list[dict[str, Any]]:
    """The student's last finished games: when, place, score, against whom."""
    seats = list(
        Seat.objects.filter(student=student, game__status__in=DONE_STATUSES)
        .select_related("game")
        .order_by("-game__finished_at")[:limit]
    )
    # Every player of those games in one query, not one query per game.
    tables: dict[int, list[Seat]] = {}
    for other in Seat.objects.filter(game__in=[s.game_id for s in seats]).order_by(
        "game", "position"
    ):
        tables.setdefault(other.game_id, []).append(other)
    out = []
    for seat in seats:
        table = name_seats(tables.get(seat.game_id, []))
        others = [s.display_name for s in table if s.pk != seat.pk]
        out.append(
            {
                "game": seat.game,
                "place": seat.place,
                "score": seat.score,
                "others": others,
                "abandoned": seat.game.status == Game.Status.ABANDONED,
            }
        )
    return out


@dataclass
class Countdown:
    kind: str
    seat: int | None
    deadline_ms: int
    seconds_left: int
    total: int


# How many sentences of recent play the screen reader hears, and how many moves the history
# (one tap away, in a <details>) and the ruling panel look back over.
NEWS_LINES = table_cache.NEWS_LINES
HISTORY_MOVES = table_cache.HISTORY_MOVES


def _untimed_turn(state: engine.GameState, players: list[str]) -> dict | None:
    """The player whose own time it is while their clock is off (R4.9, an untimed game)."""
    if not state.config.untimed or state.timer is not None:
        return None
    challenge = state.challenge or {}
    seat = {
        "turn": state.active,
        "challenge": challenge.get("challenger"),
        "chwech_offer": challenge.get("challenged"),
        "chwech_announce": challenge.get("challenged"),
    }.get(state.phase)
    if seat is None or seat not in state.config.untimed or not 0 <= seat < len(players):
        return None
    return {"seat": seat, "name": players[seat]}


def _due_ms(game: Game) -> int | None:
    """When this table's tablet asks for the table again by itself: as the next move falls due
    (a computer player, a time limit), once a page may apply it (games.scheduling.page_due_grace:
    at once in-process, where no worker plays it, a second later where workers run)."""
    due = game.next_due_at
    if due is None:
        return None
    return int((due.timestamp() + scheduling.page_due_grace()) * 1000)


def table_context(
    *,
    game: Game,
    seat: Seat | None,
    since: int | None = None,
    seats: Sequence[Seat] | None = None,
) -> dict[str, Any]:
    """Everything the table page shows to one seat (never the draw pile, R1.5).

    `seats`: the whole table when the caller has it already (a move's answer: the seats the
    service read under its lock), else they are read here."""
    seats = name_seats(seats if seats is not None else Seat.objects.filter(game=game))
    position = seat.position if seat is not None else None
    ctx: dict[str, Any] = {
        "game": game,
        "seat": seat,
        "seats": seats,
        "version": game.version,
        "status": game.status,
        "now_ms": int(timezone.now().timestamp() * 1000),
        "due_ms": _due_ms(game),
    }
    if not game.state:
        ctx["view"] = None
        return ctx
    state = read_state(game)
    view = engine.seat_view(state, position)
    players = player_names(game, seats)
    view["players"] = players
    for seat_data in view["seats"]:  # the names the table shows, in the reader's language
        if 0 <= seat_data.get("seat", -1) < len(players):
            seat_data["name"] = players[seat_data["seat"]]
    rules = view["rules"]
    mine = seat_part(game=game, seat=seat, view=view)
    # The last few things that happened, told in words on every tablet; what is new since the
    # version this tablet saw (several moves after a Wi-Fi gap) is marked, so a child who looked
    # away for a moment still reads what the computer players just did.
    # The same for every seat at this version: read once per version of the table.
    recent = table_cache.shared_moves(game, HISTORY_MOVES)
    told = table_cache.shared_told(
        game,
        table_cache.told_name(get_language()),
        recent,
        lambda m: [str(line) for line in events_sentences(m.events, players)],
        players,
    )
    news = table_cache.news(told, since)
    fresh = [m for m in recent if since is not None and m.number > since] or recent[-1:]
    recent_events = [e for m in fresh for e in m.events]
    if not recent:
        news = [(_start_sentence(players, state.config.starter), True)]
    countdown = None
    timer = view.get("timer")
    if timer and game.timer_deadline and game.status == Game.Status.RUNNING:
        left = max(0, int((game.timer_deadline - timezone.now()).total_seconds() + 0.999))
        countdown = Countdown(
            kind=timer["kind"],
            seat=timer.get("seat"),
            deadline_ms=int(game.timer_deadline.timestamp() * 1000),
            seconds_left=left,
            total=timer["seconds"],
        )
    result = view.get("result")
    ranking = []
    if result:
        ranking = sorted(
            (
                {
                    "seat": i,
                    "name": players[i],
                    "score": result["scores"][i],
                    "place": result["places"][i],
                    "cards": (result.get("cards") or [None] * len(players))[i],
                }
                for i in range(len(players))
            ),
            key=lambda r: (r["place"], r["seat"]),
        )
    elif game.status == Game.Status.ABANDONED:
        ranking = sorted(
            (
                {
                    "seat": s.position,
                    "name": s.display_name,
                    "score": s.score,
                    "place": s.place,
                    "cards": None,
                }
                for s in seats
            ),
            key=lambda r: (r["place"] or 99, r["seat"]),
        )
    # A settlement that moves no card (R6.2 with nothing to give or take) is not told.
    settlements = [
        settlement_sentence(item, players)
        for item in (result or {}).get("settlements", [])
        if item.get("count", 0) > 0
    ]
    pending = view.get("pending")
    ruling = ruling_panel([e for m in recent for e in m.events], players, position)
    history = [(n, lines) for n, lines in reversed(told) if lines]
    ctx.update(
        ruling=ruling,
        history=history,
        # The longest part of the board to render, and the same on every tablet of the table.
        history_html=mark_safe(  # noqa: S308 - rendered by our template, escaped there
            table_cache.shared_value(
                game,
                f"history.{get_language()}",
                lambda: str(board.render_history({"history": history})),
            )
        ),
        ruled_cards=set(ruling["cards"]) if ruling else set(),
        read_aloud=read_aloud_setting(game),
        view=view,
        state_phase=view["phase"],
        players=players,
        rules=rules,
        news=news,
        countdown=countdown,
        untimed_seats=set(state.config.untimed),
        untimed_turn=_untimed_turn(state, players),
        result=result,
        ranking=ranking,
        settlements=settlements,
        # R6.2 played on the end screen as cards moving (static/js/table.js), each step said.
        ranking_speech=ranking_speech(ranking),
        settlement_steps=settlement_steps(result, players, [card_dict(c) for c in state.cards]),
        end_speech=end_speech(
            abandoned=game.status == Game.Status.ABANDONED,
            settlements=settlements,
            ranking=ranking,
        )
        if game.status in DONE_STATUSES
        else "",
        operator_keys=operator_keys(rules),
        pending=pending,
        pending_text=as_printed((pending or {}).get("text", "")),
        pending_who=players[pending["seat"]] if pending else "",
        challenge_name=players[view["challenge"]["challenger"]] if view.get("challenge") else "",
        active_name=players[view["active"]] if view["phase"] != "over" else "",
        challenge=view.get("challenge"),
        lesson=_lesson(recent_events, position),
        bot_seats={s.position for s in seats if s.bot},
        show_steps=bool(rules.get("show_steps")),
        is_over=game.status in DONE_STATUSES,
        **mine,
    )
    if game.kind == Game.Kind.PRACTICE and game.draw_order:  # "Learn to play": the coach
        from games import tutorial

        ctx["tutorial"] = tutorial.tutorial_context(game=game, seat=seat)
    return ctx


def seat_part(*, game: Game, seat: Seat | None, view: dict[str, Any]) -> dict[str, Any]:
    """What of the table is this seat's own (`view`: engine.seat_view for it): its legal moves,
    its row of the table, and the affordances they open (whose turn, the builder, the trick's
    places). The rest of the board is the same on every tablet of the table (games.table_cache).
    """
    position = seat.position if seat is not None else None
    legal = (
        list(view["legal"])
        if game.status == Game.Status.RUNNING and not (seat and seat.bot)
        else []
    )
    me = view["seats"][position] if position is not None else None
    events = {c["event"] for c in me["events"]} if me else set()
    return {
        "legal": legal,
        "me": me,
        "explain": event_explanations(events, view["rules"]),
        "my_turn": bool(legal) and ("announce" in legal or "nothing" in legal),
        "can_build": "announce" in legal,
        "can_place": {
            p for p, e in (("pevar", "PEVAR"), ("pemp", "PEMP"), ("daou", "DAOU")) if e in events
        },
    }


def operator_keys(rules: dict[str, Any]) -> list[tuple[str, str]]:
    """The signs' keys of the builder at this table's level, then the parentheses and "="."""
    keys = [
        (op, OPERATOR_SYMBOLS[op])
        for op in (rules.get("operators") or "")
        if op in OPERATOR_SYMBOLS
    ]
    return keys + [("(", "("), (")", ")"), ("=", "=")]


def read_state(game: Game) -> engine.GameState:
    """The game's stored state as the engine's GameState, parsed once per instance and stored
    state: a move's answer reads it for the table's board and for each seat's own parts (five
    parses of the same state, a deep copy each: 2-3 % of the web workers' CPU at 30 moves/s,
    issue 38). For reading only (seat_view, the views): the services parse their own
    (games.services.base), the one state they change."""
    cached = game.__dict__.get("_read_state")
    if cached is not None and cached[0] is game.state:
        return cached[1]
    state = engine.GameState.from_dict(game.state)
    game.__dict__["_read_state"] = (game.state, state)
    return state


def seat_context(*, game: Game, seat: Seat, seats: Sequence[Seat] | None = None) -> dict[str, Any]:
    """What the board's own parts of one seat read (games.table_cache's seat fragments): the
    seat's part, and the few things of the table its "whose turn" line and its form name."""
    state = read_state(game)
    view = engine.seat_view(state, seat.position)
    players = player_names(game, seats)
    rules = view["rules"]
    challenge = view.get("challenge")
    return {
        "game": game,
        "seat": seat,
        "version": game.version,
        "status": game.status,
        "state_phase": view["phase"],
        "rules": rules,
        "operator_keys": operator_keys(rules),
        "pending": view.get("pending"),
        "active_name": players[view["active"]] if view["phase"] != "over" else "",
        "challenge_name": players[challenge["challenger"]] if challenge else "",
        **seat_part(game=game, seat=seat, view=view),
    }


def _start_sentence(players: list[str], starter: int) -> str:
    from django.utils.translation import gettext as _

    return _("The game begins. %(name)s starts.") % {"name": players[starter]}


def _lesson(events: list[dict], position: int | None) -> dict | None:
    """R5.6: the operation that was possible after a false "nothing to do" nobody challenged."""
    for event in map(ev.event_from_dict, events):
        if isinstance(event, ev.Lesson):
            op = event.operation or {}
            return {
                "seat": event.seat,
                "mine": event.seat == position,
                "text": as_printed(op.get("text") or ""),
                "steps": op.get("steps") or [],
            }
    return None


def read_aloud_setting(game: Game) -> bool:
    """Whether this table's tablets read rulings and prompts aloud (Classroom.read_aloud).

    "auto" reads aloud when the class's lowest tier is 1 (children who may not read fluently yet).
    A game without a class (none today) reads aloud: it never blocks play, the button stays optional.
    """
    classroom = getattr(game, "classroom", None)
    if classroom is None:
        return True
    choice = getattr(classroom, "read_aloud", "auto")
    if choice in ("on", "off"):
        return choice == "on"
    lowest = _lowest_tier(classroom.pk)
    return lowest is None or lowest <= 1


def _lowest_tier(classroom_id: int) -> int | None:
    """The class's lowest tier, asked on every board: one plain statement (the ORM's aggregate
    compiled per board was a tenth of a busy web worker's samples, benchmarks/README.md)."""
    alias = router.db_for_read(Student)
    q = connections[alias].ops.quote_name
    meta = Student._meta
    with prepared.cursor(alias) as cursor:
        cursor.execute(
            f"SELECT MIN({q(meta.get_field('tier').column)}) FROM {q(meta.db_table)} "
            f"WHERE {q(meta.get_field('classroom').column)} = %s",
            [classroom_id],
        )
        return cursor.fetchone()[0]


# The events that begin a ruling: a turn's announcement or its "nothing to do" (R4.3, R4.5).
def _starts_ruling(event: ev.Event) -> bool:
    return isinstance(event, ev.Announced | ev.SaidNothing) and event.role == "turn"


def _operation_shown(op: dict[str, Any] | None) -> dict[str, Any]:
    """An operation's text and steps as the keys print them (R2.4)."""
    op = op or {}
    return {
        "text": as_printed(op.get("text", "")),
        "steps": [as_printed(s) for s in op.get("steps") or []],
    }


@dataclass
class _Ruling:
    """One ruling read event by event (R3.5, R5): the announcement or "nothing to do" that opened
    it, then the challenge, C'HWEC'H's second try (R7.7), the outcome, the consequences, the
    lesson and the cards the panel points at."""

    players: list[str]
    position: int | None
    texts: Any
    main: dict[str, Any]
    cards: list[int]
    challenge: dict[str, Any] | None = None
    second: dict[str, Any] | None = None
    outcome: dict[str, Any] | None = None
    lesson: dict[str, Any] | None = None
    consequences: list[str] = field(default_factory=list)
    # What the next turn turned up (an event card, TRI's cards): said after the ruling, and
    # shown in the players' rows, not in the panel.
    told: list[str] = field(default_factory=list)

    def read(self, event: ev.Event) -> None:
        match event:
            case ev.ChallengeCalled():
                self.challenge = {
                    "seat": event.seat,
                    "who": _player(self.players, event.seat),
                    "mine": event.seat == self.position,
                    "said": "",
                    "gave_up": False,
                    "verdict": None,
                }
            case ev.Announced(role="challenge") if self.challenge:
                self.challenge["said"] = as_printed(event.text)
            case ev.Announced(role="chwech"):
                self.second = {"said": as_printed(event.text), "verdict": None}
            case ev.SaidNothing(role="challenge") if self.challenge:
                self.challenge["gave_up"] = True
            case ev.Verdict():
                self._verdict(event)
            case ev.NothingRuled():
                self.main["verdict"] = self.texts.nothing(event)
                if not event.was_true and event.possible:
                    self.lesson = _operation_shown(event.possible)
                    self.cards = list(event.possible.get("cards") or [])
            case ev.Lesson() if not self.lesson:
                self.lesson = _operation_shown(event.operation)
                self.cards = list((event.operation or {}).get("cards") or [])
            case ev.ChallengeRuled():
                self.outcome = self.texts.outcome(event)
            case _:
                self._tell(event)

    def _tell(self, event: ev.Event) -> None:
        """Where the cards went, a skipped turn, a player away (shown and said); what the next
        turn turned up (said)."""
        if isinstance(event, ev.EventCard | ev.TriTook):
            sentence = event_sentence(event, self.players)
            if sentence:
                self.told.append(sentence)
        # A skipped turn and a player away are told with the ruling they follow (issue 40).
        elif isinstance(event, ev.TrickWon | ev.CardsGiven | ev.SkipDue | ev.Skipped | ev.Replaced):
            sentence = self.texts.consequence(event)
            if sentence:
                self.consequences.append(sentence)

    def _verdict(self, event: ev.Verdict) -> None:
        verdict = self.texts.verdict(event)
        if event.role == "challenge" and self.challenge:
            self.challenge["verdict"] = verdict
            if event.ok:
                self.cards = list(event.cards or [])
            else:
                self.cards += [c for c in event.cards or [] if c not in self.cards]
        elif event.role == "chwech":
            self.second = self.second or {"said": as_printed(event.text), "verdict": None}
            self.second["verdict"] = verdict
        else:
            self.main["verdict"] = verdict

    @property
    def stage(self) -> str:
        if self.outcome is not None or self.main["verdict"] is not None:
            return "ruled"
        return "challenged" if self.challenge else "checking"


def ruling_panel(events: list[dict], players: list[str], position: int | None) -> dict | None:
    """The last ruling at the table, told causes first (R3.5, R5): what was said, by whom, the
    verdict with its reason, the challenge and its verdict, the outcome, then where the cards
    went. It stays on every tablet until the next turn's announcement or "nothing to do".

    `events` are the events of the recent moves in order; None when no ruling happened yet.
    """
    typed = [ev.event_from_dict(e) for e in events]
    start = next((i for i in range(len(typed) - 1, -1, -1) if _starts_ruling(typed[i])), None)
    if start is None:
        return None
    first = typed[start]
    announced = isinstance(first, ev.Announced)
    ruling = _Ruling(
        players=players,
        position=position,
        texts=ruling_texts(players),
        main={
            "seat": first.seat,
            "who": _player(players, first.seat),
            "mine": first.seat == position,
            "kind": "announce" if announced else "nothing",
            "said": as_printed(first.text) if announced else "",
            "timeout": bool(getattr(first, "timeout", False)),
            "verdict": None,
        },
        cards=list(first.cards or []) if announced else [],
    )
    for event in typed[start + 1 :]:
        ruling.read(event)
    panel = {
        "main": ruling.main,
        "challenge": ruling.challenge,
        "second": ruling.second,
        "outcome": ruling.outcome,
        "consequences": ruling.consequences,
        "told": ruling.told,
        "lesson": ruling.lesson,
        "stage": ruling.stage,
        "cards": ruling.cards,
        # The stored dicts, as they were: the key a tablet compares to know the panel changed.
        "key": zlib.crc32(json.dumps(events[start:], sort_keys=True, default=str).encode()),
    }
    panel["speech"] = ruling.texts.speech(panel)
    return panel


def _player(players: list[str], seat: Any) -> str:
    if isinstance(seat, int) and 0 <= seat < len(players):
        return players[seat]
    return "?"
