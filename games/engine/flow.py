"""The flow of play (R4), the challenge (R5) and C'HWEC'H (R7.7): what follows a move."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from . import events as ev
from .end import _finish, _give_from_pile
from .operations import Operation
from .rules import RuleSet
from .skills import skills_of
from .solver import find_operation
from .state import FALSE_CHALLENGE_PENALTY, PLACES, Event, GameState, card_dict


def operation_dict(op: Operation, ids: Sequence[int], rules: RuleSet) -> dict[str, Any]:
    """An operation as JSON-able facts for the UI and the progress records."""
    x_by_id = [
        [ids[op.positions.index(p)], v] for p, v in sorted(op.x_values.items()) if p in op.positions
    ]
    return {
        "text": op.text,
        "cards": list(ids),
        "values": [v for v in op.cards],
        "result": op.value,
        "operators": sorted(op.operators),
        "steps": list(op.steps),
        "n_operands": op.n_operands,
        "size": len(ids),
        "x_values": x_by_id,
        "skills": sorted(skills_of(op, rules)),
    }


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _verdict_event(record: dict[str, Any], role: str) -> Event:
    """The referee's ruling on an announcement, shown once it may be revealed."""
    return ev.Verdict(
        seat=record["seat"],
        role=role,
        text=record["text"],
        ok=record["ok"],
        **record["verdict"],
        operation=record["operation"],
        cards=list(record["cards"]),
    ).to_dict()


def _nothing_event(record: dict[str, Any], role: str) -> Event:
    return ev.NothingRuled(
        seat=record["seat"], role=role, was_true=record["was_true"], possible=record["possible"]
    ).to_dict()


def player_operation(s: GameState, seat: int) -> Operation | None:
    """An operation this seat could make with the table and its own held cards, or None."""
    table = [s.value_of(c) for c in s.table]
    held = [s.value_of(c) for c in s.held[seat]]
    return find_operation(table, s.config.rules, held=held)


def _operation_ids(s: GameState, seat: int, op: Operation) -> list[int]:
    available = s.table + s.held[seat]
    return [available[p] for p in op.positions]


# --- the flow of play (R4) -----------------------------------------------------------------


def _rng(s: GameState) -> random.Random:
    """A generator derived from the seed and a counter, so the state stays plain JSON (R9.2)."""
    rng = random.Random(f"{s.seed}/{s.rng_draws}")
    s.rng_draws += 1
    return rng


def _turn_up(s: GameState, seat: int, count: int, events: list[Event]) -> None:
    turned = 0
    while turned < count and s.draw:  # R4.8: an empty draw pile turns up nothing
        cid = s.draw.pop(0)
        card = s.cards[cid]
        events.append(ev.TurnedUp(seat=seat, card=card_dict(card)).to_dict())
        if card.kind == "event":
            _take_event_card(s, seat, cid, events)  # R4.2: and another card in its place
            continue
        s.table.append(cid)
        turned += 1


def _take_event_card(s: GameState, seat: int, cid: int, events: list[Event]) -> None:
    name = s.event_of(cid)
    events.append(ev.EventCard(seat=seat, card=cid, event=name).to_dict())
    if name != "TRI":
        s.events_row[seat].append(cid)  # R7.1
        return
    # R7.4: one random card from the pile of every other player who has one, then TRI to the pile.
    for step in range(1, s.n_seats):
        other = (seat + step) % s.n_seats
        if s.piles[other]:
            taken = s.piles[other].pop(_rng(s).randrange(len(s.piles[other])))
            s.held[seat].append(taken)
            events.append(
                ev.TriTook(seat=seat, from_=other, card=card_dict(s.cards[taken])).to_dict()
            )
    s.piles[seat].append(cid)


def _start_turn(s: GameState, seat: int, count: int, events: list[Event]) -> None:
    s.active = seat
    s.phase = "turn"
    events.append(ev.Turn(seat=seat).to_dict())
    _turn_up(s, seat, count, events)  # R4.1 (three at the start), R4.5 (one after a pass)
    _check_end(s, events)


def _play_on(s: GameState, seat: int, events: list[Event]) -> None:
    """After a trick the winner turns up max(1, 3 − cards left) and stays active (R4.4)."""
    s.passes = []
    s.active = seat
    s.phase = "turn"
    _turn_up(s, seat, max(1, 3 - len(s.table)), events)
    _check_end(s, events)


def _pass_turn(s: GameState, passer: int, events: list[Event]) -> None:
    """The turn goes to the next player who is not skipping (R4.5, R4.7, R5.4)."""
    if not s.draw:
        if passer not in s.passes:
            s.passes.append(passer)
        if len(s.passes) == s.n_seats:
            _finish(s, "all_said_nothing", events)  # R6.1, second half
            return
    start = passer if s.anchor is None else s.anchor
    if s.anchor is not None and (s.anchor + 1) % s.n_seats == passer:
        # R5.4: the seat after the challenged player is the challenger who has just played
        # on; that play-on was their turn, so play goes to the seat after them.
        start = passer
    s.anchor = None
    nxt = (start + 1) % s.n_seats
    while s.skips[nxt] > 0:  # ends: every pass consumes one pending skip
        s.skips[nxt] -= 1
        events.append(ev.Skipped(seat=nxt).to_dict())
        nxt = (nxt + 1) % s.n_seats
    _start_turn(s, nxt, 1, events)


def _check_end(s: GameState, events: list[Event]) -> None:
    """R6.1: the draw pile is empty and nobody can make an operation with the table and held cards."""
    if s.draw or s.phase == "over":
        return
    table_only: bool | None = None
    for seat in range(s.n_seats):
        if s.held[seat]:
            if player_operation(s, seat) is not None:
                return
        else:
            if table_only is None:
                table_only = player_operation(s, seat) is not None
            if table_only:
                return
    _finish(s, "no_operation", events)


def _win_trick(
    s: GameState, seat: int, ids: list[int], place: str | None, events: list[Event]
) -> None:
    for cid in ids:
        if cid in s.table:
            s.table.remove(cid)
        else:
            s.held[seat].remove(cid)  # R7.4: used held cards join the trick
    event_card = s.event_held(seat, PLACES[place]) if place else None
    owner = seat
    if event_card is None:
        place = None
        s.piles[seat].extend(ids)
    else:
        s.events_row[seat].remove(event_card)
        s.piles[seat].append(event_card)  # R7.3, R7.5, R7.6: the event card joins the pile
        if place == "daou":
            owner = (seat - 1) % s.n_seats  # R7.3: the right-hand neighbour
            s.piles[owner].extend(ids)
        else:
            s.laid[seat].setdefault(place, []).extend(ids)
    events.append(
        ev.TrickWon(seat=seat, cards=list(ids), size=len(ids), placed=place, to=owner).to_dict()
    )


def _open_window(s: GameState, record: dict[str, Any], events: list[Event]) -> None:
    s.pending = record
    s.phase = "window"
    events.append(
        ev.WindowOpened(
            seat=record["seat"], kind=record["kind"], seconds=s.config.challenge_window
        ).to_dict()
    )


def _answer_or_settle(s: GameState, record: dict[str, Any], events: list[Event]) -> None:
    """What a player said on their turn waits for the others' answers (R5.1), or without a
    challenge window is settled at once (R4.6, R5.6: the engine referees alone)."""
    if s.config.challenge_window > 0:
        _open_window(s, record, events)
    else:
        _settle(s, record, events)


def _close_window(s: GameState, reason: str, events: list[Event]) -> None:
    record = s.pending
    s.pending = None
    events.append(ev.WindowClosed(reason=reason).to_dict())
    _settle(s, record, events)


def _settle(s: GameState, record: dict[str, Any], events: list[Event]) -> None:
    if record["kind"] == "announce":
        _settle_announcement(s, record, events)
    else:
        _settle_nothing(s, record, events)


def _settle_announcement(s: GameState, record: dict[str, Any], events: list[Event]) -> None:
    """Nobody challenged: a correct operation wins its trick (R4.4), a wrong one wins nothing (R4.6)."""
    seat = record["seat"]
    events.append(_verdict_event(record, "turn"))
    if record["ok"]:
        _win_trick(s, seat, record["cards"], record["place"], events)
        _play_on(s, seat, events)
    else:
        _pass_turn(s, seat, events)


def _say_nothing(s: GameState, seat: int, events: list[Event], *, timeout: bool) -> None:
    op = player_operation(s, seat)
    record = {
        "kind": "nothing",
        "seat": seat,
        "was_true": op is None,
        "timeout": timeout,
        "possible": (
            operation_dict(op, _operation_ids(s, seat, op), s.config.rules)
            if op is not None
            else None
        ),
        "oks": [],
    }
    events.append(ev.SaidNothing(seat=seat, role="turn", timeout=timeout).to_dict())
    _answer_or_settle(s, record, events)


def _settle_nothing(s: GameState, record: dict[str, Any], events: list[Event]) -> None:
    seat = record["seat"]
    events.append(_nothing_event(record, "turn"))
    if not record["was_true"] and s.config.lesson_on:
        events.append(ev.Lesson(seat=seat, operation=record["possible"]).to_dict())  # R5.6
    _pass_turn(s, seat, events)


# --- the challenge (R5) and C'HWEC'H (R7.7) ------------------------------------------------


def _reveal(record: dict[str, Any]) -> Event:
    return (
        _verdict_event(record, "turn")
        if record["kind"] == "announce"
        else _nothing_event(record, "turn")
    )


def _end_challenge(
    s: GameState, events: list[Event], outcome: str, reason: str, *, immediate: bool = False
) -> None:
    """The challenge is ruled (R5.4, R5.5, R7.7): its event, and nothing pending any more."""
    events.append(
        ev.ChallengeRuled(
            outcome=outcome,
            challenger=s.challenge["challenger"],
            challenged=s.challenge["challenged"],
            reason=reason,
            immediate=immediate,
        ).to_dict()
    )
    s.pending = None
    s.challenge = None


def _right_challenge(s: GameState, challenger_record: dict[str, Any], events: list[Event]) -> None:
    """R5.4: the challenger wins the trick and plays on; the challenged skips their next turn."""
    record = s.pending
    challenger, challenged = s.challenge["challenger"], s.challenge["challenged"]
    events.append(_reveal(record))
    _win_trick(s, challenger, challenger_record["cards"], challenger_record["place"], events)
    s.skips[challenged] += 1
    events.append(ev.SkipDue(seat=challenged).to_dict())
    _end_challenge(s, events, "right", "challenger_correct")
    # Play later goes to whoever would have followed the challenged player. A challenged player
    # who was already playing on after a right challenge was out of turn: play still resumes
    # where that first challenge sent it.
    if s.anchor is None:
        s.anchor = challenged
    _play_on(s, challenger, events)


def _false_challenge(s: GameState, reason: str, events: list[Event]) -> None:
    """R5.5: the challenged takes cards from the challenger, who skips; play resumes where it was."""
    record = s.pending
    challenger, challenged = s.challenge["challenger"], s.challenge["challenged"]
    events.append(_reveal(record))
    count = FALSE_CHALLENGE_PENALTY
    if record["kind"] == "nothing" and record["was_true"]:
        count = s.config.nothing_true_penalty
    given = _give_from_pile(s, challenger, challenged, count)
    events.append(
        ev.CardsGiven(
            from_=challenger, to=challenged, cards=given, count=len(given), reason="false_challenge"
        ).to_dict()
    )
    s.skips[challenger] += 1
    events.append(ev.SkipDue(seat=challenger).to_dict())
    _end_challenge(
        s, events, "false", reason, immediate=reason in ("correct_announcement", "true_nothing")
    )
    if record["kind"] == "announce" and record["ok"]:
        _win_trick(s, challenged, record["cards"], record["place"], events)
        _play_on(s, challenged, events)
    else:
        _pass_turn(s, challenged, events)


def _chwech_correct(s: GameState, record: dict[str, Any], events: list[Event]) -> None:
    """R7.7: the second chance worked; the trick is won and the challenge called off."""
    challenged = s.challenge["challenged"]
    chwech = s.event_held(challenged, "CHWECH")
    s.events_row[challenged].remove(chwech)
    _win_trick(s, challenged, record["cards"], record["place"], events)
    s.piles[challenged].append(chwech)
    _end_challenge(s, events, "called_off", "chwech_correct")
    _play_on(s, challenged, events)


def _chwech_wrong(s: GameState, events: list[Event]) -> None:
    """R7.7: a wrong second chance gives C'HWEC'H to the challenger; the challenge goes on."""
    challenger, challenged = s.challenge["challenger"], s.challenge["challenged"]
    chwech = s.event_held(challenged, "CHWECH")
    s.events_row[challenged].remove(chwech)
    s.piles[challenger].append(chwech)
    events.append(
        ev.CardsGiven(
            from_=challenged, to=challenger, cards=[chwech], count=1, reason="chwech_wrong"
        ).to_dict()
    )
    s.phase = "challenge"
