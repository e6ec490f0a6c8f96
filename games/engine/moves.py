"""The moves: starting a game, applying a move (the one judge of every move), the announcements' check (R3, R4, R5).

Each move handler refuses (Refusal, nothing changed) or changes the state and appends the
events it caused (games.engine.events names them); the flow that follows is flow.py's.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from . import events as ev
from .checker import check_operation
from .flow import (
    _answer_or_settle,
    _chwech_correct,
    _chwech_wrong,
    _close_window,
    _false_challenge,
    _jsonable,
    _right_challenge,
    _say_nothing,
    _start_turn,
    _verdict_event,
    operation_dict,
)
from .operations import Verdict
from .state import (
    BOT_STRENGTHS,
    PLACES,
    TIMER_KINDS,
    Event,
    GameConfig,
    GameState,
    Move,
    _config_error,
    _echo,
    _refusal,
    deck_of,
)

# --- starting a game -----------------------------------------------------------------------


def start_game(
    config: GameConfig, *, seed: int | None = None, draw_order: Sequence[int] | None = None
) -> tuple[GameState, list[Event]]:
    """A new game and the events of its opening (the first three cards turned up, R4.1)."""
    cards = deck_of(config.deck)
    n = len(cards)
    if draw_order is not None:
        order = [int(c) for c in draw_order]
        if len(set(order)) != len(order) or any(not 0 <= c < n for c in order):
            raise _config_error("draw_order_invalid", cards=n)
        # A prefix is enough for a scripted test; the other cards follow in deck order.
        seen = set(order)
        order += [c for c in range(n) if c not in seen]
        seed = 0 if seed is None else int(seed)
    else:
        seed = random.SystemRandom().randrange(2**53) if seed is None else int(seed)
        order = list(range(n))
        random.Random(seed).shuffle(order)  # R1.4
    seats = len(config.players)
    state = GameState(
        config=config,
        seed=seed,
        draw=order,
        table=[],
        piles=[[] for _ in range(seats)],
        held=[[] for _ in range(seats)],
        events_row=[[] for _ in range(seats)],
        laid=[{} for _ in range(seats)],
        skips=[0] * seats,
        bots=[None] * seats,
    )
    events: list[Event] = [
        ev.GameStarted(
            players=list(config.players),
            starter=config.starter,
            rules=config.rules.to_dict(),
            cards=n,
        ).to_dict()
    ]
    _start_turn(state, config.starter, 3, events)
    return state, events


def new_game(
    config: GameConfig, *, seed: int | None = None, draw_order: Sequence[int] | None = None
) -> GameState:
    """A new game from a seed (R1.4) or an explicit draw order (tests, replays)."""
    return start_game(config, seed=seed, draw_order=draw_order)[0]


def replay(
    config: GameConfig,
    seed: int | None,
    moves: Iterable[Move],
    draw_order: Sequence[int] | None = None,
) -> GameState:
    """The game that the seed and the moves give, step for step (R9.2)."""
    state = new_game(config, seed=seed, draw_order=draw_order)
    for move in moves:
        state, _ = apply_move(state, move)
    return state


# --- applying a move -----------------------------------------------------------------------


def apply_move(state: GameState, move: Move) -> tuple[GameState, list[Event]]:
    """The next state and the events a move caused; a Refusal leaves `state` as it was (R9.3)."""
    if not isinstance(move, dict):
        raise _refusal("bad_move")
    kind = move.get("type")
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise _refusal("unknown_move", type=_echo(move.get("type"), 40))
    if state.phase == "over":
        raise _refusal("game_over")
    seat = None if move["type"] == "timeout" else _seat_of(state, move)
    # Work on a copy so that a refusal raised half-way leaves the caller's state untouched.
    new = state.clone()
    events: list[Event] = []
    handler(new, seat, move, events)
    new.version = state.version + 1
    # A window keeps running while players press OK; every other move starts a new time limit.
    if not (move["type"] in ("ok", "replace") and new.phase == state.phase):
        new.timer_started = new.version
    return new, events


def legal_moves(state: GameState, seat: int | None) -> list[str]:
    """The kinds of move this seat may send now (for the buttons of the UI and the bots)."""
    if seat is None or state.phase == "over":
        return []
    phase = state.phase
    if phase == "turn":
        return ["announce", "nothing"] if seat == state.active else []
    if phase == "window":
        pending = state.pending
        if seat == pending["seat"] or seat in pending["oks"]:
            return []
        return ["challenge", "ok"]
    if phase == "chwech_offer":
        return ["chwech"] if seat == state.challenge["challenged"] else []
    if phase == "chwech_announce":
        return ["announce", "nothing"] if seat == state.challenge["challenged"] else []
    if phase == "challenge":
        return ["announce", "nothing"] if seat == state.challenge["challenger"] else []
    return []


def _seat_of(state: GameState, move: Move) -> int:
    seat = move.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.n_seats:
        raise _refusal("unknown_seat", seat=_echo(seat))
    return seat


def _move_announce(s: GameState, seat: int, move: Move, events: list[Event]) -> None:
    if s.phase == "turn":
        if seat != s.active:
            raise _refusal("not_your_turn", active=s.active)
        role = "turn"
    elif s.phase == "challenge":
        if seat != s.challenge["challenger"]:
            raise _refusal("not_your_turn", active=s.challenge["challenger"])
        role = "challenge"
    elif s.phase == "chwech_announce":
        if seat != s.challenge["challenged"]:
            raise _refusal("not_your_turn", active=s.challenge["challenged"])
        role = "chwech"
    else:
        raise _refusal("wrong_phase", phase=s.phase)
    record = _judge(s, seat, move)
    events.append(
        ev.Announced(
            seat=seat,
            role=role,
            text=record["text"],
            cards=list(record["cards"]),
            place=record["place"],
        ).to_dict()
    )
    if role == "turn":
        _answer_or_settle(s, record, events)
    elif role == "challenge":
        events.append(_verdict_event(record, "challenge"))
        if record["ok"]:
            _right_challenge(s, record, events)
        else:
            _false_challenge(
                s, "no_valid_operation", events
            )  # R5.3: a wrong one ends the challenge
    else:
        events.append(_verdict_event(record, "chwech"))
        if record["ok"]:
            _chwech_correct(s, record, events)
        else:
            _chwech_wrong(s, events)


def _move_nothing(s: GameState, seat: int, move: Move, events: list[Event]) -> None:
    if s.phase == "turn":
        if seat != s.active:
            raise _refusal("not_your_turn", active=s.active)
        _say_nothing(s, seat, events, timeout=False)
    elif s.phase == "challenge":
        if seat != s.challenge["challenger"]:
            raise _refusal("not_your_turn", active=s.challenge["challenger"])
        events.append(ev.SaidNothing(seat=seat, role="challenge", timeout=False).to_dict())
        _false_challenge(s, "no_valid_operation", events)
    elif s.phase == "chwech_announce":
        if seat != s.challenge["challenged"]:
            raise _refusal("not_your_turn", active=s.challenge["challenged"])
        events.append(ev.SaidNothing(seat=seat, role="chwech", timeout=False).to_dict())
        _chwech_wrong(s, events)
    else:
        raise _refusal("wrong_phase", phase=s.phase)


def _answerable(s: GameState, seat: int) -> dict[str, Any]:
    """The announcement `seat` may answer (OK or a challenge, R5.1): the window is open and
    the announcement is neither theirs nor answered by them already."""
    if s.phase != "window":
        raise _refusal("wrong_phase", phase=s.phase)
    pending = s.pending
    if seat == pending["seat"]:
        raise _refusal("own_announcement")
    if seat in pending["oks"]:
        raise _refusal("already_answered")
    return pending


def _move_ok(s: GameState, seat: int, move: Move, events: list[Event]) -> None:
    pending = _answerable(s, seat)
    pending["oks"].append(seat)
    events.append(ev.Ok(seat=seat).to_dict())
    if len(pending["oks"]) == s.n_seats - 1:  # R5.1: every other player pressed OK
        _close_window(s, "all_ok", events)


def _move_challenge(s: GameState, seat: int, move: Move, events: list[Event]) -> None:
    if s.phase in ("chwech_offer", "chwech_announce", "challenge"):
        raise _refusal("too_late", challenger=s.challenge["challenger"])  # R5.1: first call wins
    pending = _answerable(s, seat)
    challenged = pending["seat"]
    s.challenge = {"challenger": seat, "challenged": challenged}
    events.append(ev.ChallengeCalled(seat=seat, against=challenged, kind=pending["kind"]).to_dict())
    # R5.5: the referee knows at once when there was nothing to find fault with.
    if pending["kind"] == "announce" and pending["ok"]:
        _false_challenge(s, "correct_announcement", events)
    elif pending["kind"] == "nothing" and pending["was_true"]:
        _false_challenge(s, "true_nothing", events)
    elif s.event_held(challenged, "CHWECH") is not None:
        s.phase = "chwech_offer"  # R5.2, R7.7
        events.append(ev.ChwechOffered(seat=challenged).to_dict())
    else:
        s.phase = "challenge"  # R5.3


def _move_chwech(s: GameState, seat: int, move: Move, events: list[Event]) -> None:
    if s.phase != "chwech_offer":
        raise _refusal("wrong_phase", phase=s.phase)
    if seat != s.challenge["challenged"]:
        raise _refusal("not_your_turn", active=s.challenge["challenged"])
    use = move.get("use")
    if not isinstance(use, bool):
        raise _refusal("bad_move", field="use")
    events.append(ev.ChwechDecided(seat=seat, use=use).to_dict())
    s.phase = "chwech_announce" if use else "challenge"


def _move_timeout(s: GameState, seat: None, move: Move, events: list[Event]) -> None:
    timer = s.timer
    kind = move.get("kind")
    if kind not in TIMER_KINDS:
        raise _refusal("bad_move", field="kind")
    if timer is None or timer["kind"] != kind or move.get("timer", timer["id"]) != timer["id"]:
        # A deadline stamped for a time limit that has since ended.
        raise _refusal("stale_timeout", kind=kind)
    events.append(ev.Timeout(kind=kind, seat=timer["seat"]).to_dict())
    if s.phase == "turn":
        _say_nothing(s, s.active, events, timeout=True)  # R4.9
    elif s.phase == "window":
        _close_window(s, "timeout", events)  # R5.1
    elif s.phase == "chwech_offer":
        events.append(ev.ChwechDecided(seat=timer["seat"], use=False).to_dict())
        s.phase = "challenge"
    elif s.phase == "chwech_announce":
        _chwech_wrong(s, events)
    else:
        _false_challenge(s, "timeout", events)  # R5.3: running out counts as no valid operation


def _move_replace(s: GameState, seat: int, move: Move, events: list[Event]) -> None:
    bot = move.get("bot")
    if bot is not None and bot not in BOT_STRENGTHS:
        raise _refusal("bad_move", field="bot")
    s.bots[seat] = bot
    events.append(ev.Replaced(seat=seat, bot=bot).to_dict())


_HANDLERS: dict[str, Callable[[GameState, Any, Move, list[Event]], None]] = {
    "announce": _move_announce,
    "nothing": _move_nothing,
    "ok": _move_ok,
    "challenge": _move_challenge,
    "chwech": _move_chwech,
    "timeout": _move_timeout,
    "replace": _move_replace,
}


# --- judging an announcement ---------------------------------------------------------------


def _tokens_at(tokens: Any, position: dict[int, int]) -> list[dict[str, Any]]:
    """A tablet's keys pressed, each card by its position in the available cards."""
    if not isinstance(tokens, list) or len(tokens) > 200:
        raise _refusal("bad_move", field="tokens")
    announcement = []
    for token in tokens:
        if not isinstance(token, dict):
            raise _refusal("bad_move", field="tokens")
        if "card" in token:
            cid = token["card"]
            if type(cid) is not int or cid not in position:
                raise _refusal("card_unavailable", card=_echo(cid))
            announcement.append({"card": position[cid]})
        else:
            announcement.append(dict(token))
    return announcement


def _x_values_at(raw_x: Any, position: dict[int, int]) -> dict[int, Any]:
    """The values named for X cards (R3.4), by card id, as values by position."""
    if not isinstance(raw_x, dict):
        raise _refusal("bad_move", field="x_values")
    x_values = {}
    for key, value in raw_x.items():
        # JSON turns the card-id keys into strings of digits.
        if isinstance(key, str) and key.isascii() and key.isdigit() and len(key) < 10:
            cid: Any = int(key)
        elif type(key) is int:
            cid = key
        else:
            raise _refusal("bad_move", field="x_values")
        if cid not in position:
            raise _refusal("card_unavailable", card=_echo(cid))
        x_values[position[cid]] = value
    return x_values


def _judge(s: GameState, seat: int, move: Move) -> dict[str, Any]:
    """Check an announcement against the table and the seat's held cards; refuse an invalid one."""
    available = s.table + s.held[seat]
    values = [s.value_of(c) for c in available]
    x_values = None
    tokens = move.get("tokens")
    text = move.get("text")
    if tokens is not None:
        position = {cid: i for i, cid in enumerate(available)}
        announcement: Any = _tokens_at(tokens, position)
        x_values = _x_values_at(move.get("x_values") or {}, position)
    elif isinstance(text, str):
        announcement = text
    else:
        raise _refusal("bad_move", field="text")
    verdict: Verdict = check_operation(announcement, values, s.config.rules, x_values=x_values)
    if verdict.kind == "invalid":
        raise _refusal(verdict.code or "invalid", **(verdict.params or {}))  # R3.5
    op = verdict.operation
    ids = [available[p] for p in op.positions] if op is not None else []
    # Past the checker, the tokens are well formed; only the X values it read are kept, so
    # whatever else came with the move never reaches the stored state.
    used_x = dict(op.x_values) if op is not None and tokens is not None else {}
    shown = _tokens_text(s, tokens, used_x, available) if tokens is not None else text[:200]
    place = move.get("place")
    _check_place(s, seat, place, ids)
    return {
        "kind": "announce",
        "seat": seat,
        "text": shown,
        "tokens": copy.deepcopy(tokens) if tokens is not None else None,
        "x_values": [[available[p], v] for p, v in sorted(used_x.items())],
        "cards": ids,
        "place": place,
        "ok": verdict.ok,
        "verdict": {
            "kind": verdict.kind,
            "code": verdict.code,
            "params": _jsonable(verdict.params),
        },
        "operation": operation_dict(op, ids, s.config.rules) if op is not None else None,
        "oks": [],
    }


def _check_place(s: GameState, seat: int, place: Any, ids: list[int]) -> None:
    if place is None:
        return
    if not isinstance(place, str) or place not in PLACES:
        raise _refusal("place_unknown", place=_echo(place))
    if s.event_held(seat, PLACES[place]) is None:
        raise _refusal("place_unavailable", place=place)
    if place == "pemp" and ids and len(ids) % 2:
        raise _refusal("place_odd_trick", place=place, count=len(ids))  # R7.6


def _tokens_text(s: GameState, tokens: list, x_values: dict[int, int], available: list[int]) -> str:
    """The structured announcement written out, so everyone sees what was said."""
    parts: list[str] = []
    xs: list[str] = []
    for token in tokens:
        if "card" in token:
            cid = token["card"]
            parts.append(s.cards[cid].label)
            if s.cards[cid].kind == "x":
                pos = available.index(cid)
                xs.append(f"X={x_values.get(pos, '?')}")
        elif "op" in token:
            parts.append(str(token["op"])[:2])
        elif "num" in token:
            parts.append(str(token["num"])[:12])
    text = " ".join(parts).replace("( ", "(").replace(" )", ")")
    return f"{text} ({', '.join(xs)})" if xs else text
