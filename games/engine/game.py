"""The game of Kavet 'm eus as a pure state machine: state, moves, events, the end and the score (R4–R7)."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .cards import Card, DeckSpec, build_deck
from .checker import check_operation
from .errors import EngineError, Refusal
from .operations import Operation, Verdict
from .rules import RuleSet
from .skills import skills_of
from .solver import find_operation

PHASES = ("turn", "window", "chwech_offer", "chwech_announce", "challenge", "over")
PLACES = {"pevar": "PEVAR", "pemp": "PEMP", "daou": "DAOU"}
MOVE_TYPES = ("announce", "nothing", "challenge", "ok", "chwech", "timeout", "replace")
TIMER_KINDS = ("turn", "window", "challenge", "chwech")
BOT_STRENGTHS = ("easy", "medium", "hard")
FALSE_CHALLENGE_PENALTY = 3  # R5.5
DAOU_PENALTY = 5  # R6.2
PEMP_PENALTY = 2  # R6.2

Move = dict[str, Any]
Event = dict[str, Any]


def _refusal(code: str, **params: Any) -> Refusal:
    return Refusal(code, params)


def _echo(value: Any, limit: int = 20) -> str:
    """A short text of an untrusted value for a refusal: str() of nested or huge data can raise."""
    if isinstance(value, str):
        return value[:limit]
    if value is None or isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value) if -(10**limit) < value < 10**limit else "(too large)"
    return type(value).__name__


def _config_error(code: str, **params: Any) -> EngineError:
    return EngineError(code, params)


# --- configuration -------------------------------------------------------------------------


@dataclass
class GameConfig:
    """The settings a teacher chose for one game; treated as immutable once the game starts."""

    players: list[str]
    rules: RuleSet = field(default_factory=RuleSet)
    deck: DeckSpec | None = None  # None: the standard deck at the rules' number range (R1.1, R1.2)
    challenge_window: int = 10  # R5.1, 0 turns challenges off
    challenge_time: int = 60  # R5.3, also the time for a C'HWEC'H decision and re-announcement
    turn_time: int = 120  # R4.9, 0 = no limit
    starter: int = 0  # R4.1
    nothing_true_penalty: int = FALSE_CHALLENGE_PENALTY  # R5.5, 4 in the German edition
    lesson: bool | None = None  # R5.6, None = on at tier 1

    def __post_init__(self) -> None:
        self.players = [str(p) for p in self.players]
        if not 2 <= len(self.players) <= 6:
            raise _config_error("config_invalid", field="players", count=len(self.players))
        if self.deck is None:
            self.deck = DeckSpec(max_number=self.rules.max_number)
        self.deck.validate()
        if self.deck.max_number != self.rules.max_number:
            # R1.2: the deck follows the number range; a card above the range would be unplayable.
            raise _config_error(
                "config_invalid",
                field="deck",
                deck=self.deck.max_number,
                rules=self.rules.max_number,
            )
        for name in ("challenge_window", "challenge_time", "turn_time"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 3600:
                raise _config_error("config_invalid", field=name, value=value)
        if not isinstance(self.starter, int) or not 0 <= self.starter < len(self.players):
            raise _config_error("config_invalid", field="starter", value=self.starter)
        if self.nothing_true_penalty not in (3, 4):
            raise _config_error(
                "config_invalid", field="nothing_true_penalty", value=self.nothing_true_penalty
            )

    @property
    def lesson_on(self) -> bool:
        return self.rules.tier == 1 if self.lesson is None else self.lesson

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "rules": self.rules.to_dict(),
            "deck": self.deck.to_dict(),
            "challenge_window": self.challenge_window,
            "challenge_time": self.challenge_time,
            "turn_time": self.turn_time,
            "starter": self.starter,
            "nothing_true_penalty": self.nothing_true_penalty,
            "lesson": self.lesson,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameConfig:
        data = dict(data)
        data["rules"] = RuleSet.from_dict(data["rules"])
        if data.get("deck") is not None:
            data["deck"] = DeckSpec.from_dict(data["deck"])
        return cls(**data)


@lru_cache(maxsize=64)
def deck_of(spec: DeckSpec) -> tuple[Card, ...]:
    """The cards of a deck by id; cached because every move looks cards up."""
    return tuple(build_deck(spec))


def card_dict(card: Card) -> dict[str, Any]:
    """A card as the views and events show it."""
    return {
        "id": card.id,
        "kind": card.kind,
        "value": card.value,
        "event": card.event,
        "label": card.label,
    }


# --- state ---------------------------------------------------------------------------------


@dataclass
class GameState:
    """Plain, serialisable data: every card id sits in exactly one place (R9.1)."""

    config: GameConfig
    seed: int
    draw: list[int]  # next card first; never leaves the server (R1.5)
    table: list[int]
    piles: list[list[int]]  # won cards, last won at the end
    held: list[list[int]]  # cards taken with TRI (R7.4)
    events_row: list[list[int]]  # unused event cards in front of each player (R7.1)
    laid: list[dict[str, list[int]]]  # tricks laid on PEVAR / PEMP (R7.5, R7.6)
    skips: list[int]  # turns each seat must still skip (R4.7)
    phase: str = "turn"
    active: int = 0
    version: int = 0
    rng_draws: int = 0  # how many random draws TRI made; with the seed it makes the RNG state
    timer_started: int = 0  # version at which the running time limit started
    pending: dict[str, Any] | None = None  # the announcement or "nothing" under review (R5)
    challenge: dict[str, Any] | None = None  # {"challenger", "challenged"}
    anchor: int | None = None  # after a right challenge, play resumes after this seat (R5.4)
    passes: list[int] = field(
        default_factory=list
    )  # seats that passed with the draw pile empty (R6.1)
    bots: list[str | None] = field(default_factory=list)
    result: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        self._cards = deck_of(self.config.deck)  # looked up on every move: keep it at hand

    @property
    def n_seats(self) -> int:
        return len(self.config.players)

    @property
    def cards(self) -> tuple[Card, ...]:
        return self._cards

    @property
    def timer(self) -> dict[str, Any] | None:
        """The time limit running now, for the web layer to stamp a deadline on."""
        cfg = self.config
        if self.phase == "turn":
            kind, seat, seconds = "turn", self.active, cfg.turn_time
        elif self.phase == "window":
            kind, seat, seconds = "window", None, cfg.challenge_window
        elif self.phase in ("chwech_offer", "chwech_announce"):
            kind, seat, seconds = "chwech", self.challenge["challenged"], cfg.challenge_time
        elif self.phase == "challenge":
            kind, seat, seconds = "challenge", self.challenge["challenger"], cfg.challenge_time
        else:
            return None
        if not seconds:
            return None
        return {"kind": kind, "seconds": seconds, "seat": seat, "id": self.timer_started}

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def clone(self) -> GameState:
        return GameState(
            config=self.config,
            seed=self.seed,
            draw=list(self.draw),
            table=list(self.table),
            piles=[list(p) for p in self.piles],
            held=[list(h) for h in self.held],
            events_row=[list(e) for e in self.events_row],
            laid=[{k: list(v) for k, v in d.items()} for d in self.laid],
            skips=list(self.skips),
            phase=self.phase,
            active=self.active,
            version=self.version,
            rng_draws=self.rng_draws,
            timer_started=self.timer_started,
            # Records are replaced, never changed in place, except the list of OKs (R5.1).
            pending={**self.pending, "oks": list(self.pending["oks"])} if self.pending else None,
            challenge=dict(self.challenge) if self.challenge is not None else None,
            anchor=self.anchor,
            passes=list(self.passes),
            bots=list(self.bots),
            result=self.result,  # set once, when the game ends
        )

    def to_dict(self) -> dict[str, Any]:
        data = {name: copy.deepcopy(getattr(self, name)) for name in _STATE_FIELDS}
        data["config"] = self.config.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameState:
        fields = {name: copy.deepcopy(data[name]) for name in _STATE_FIELDS if name in data}
        return cls(config=GameConfig.from_dict(data["config"]), **fields)

    # Small lookups used by the rules below.
    def value_of(self, card_id: int) -> int | str:
        card = self.cards[card_id]
        return "X" if card.kind == "x" else card.value

    def event_of(self, card_id: int) -> str | None:
        return self.cards[card_id].event

    def event_held(self, seat: int, name: str) -> int | None:
        for cid in self.events_row[seat]:
            if self.cards[cid].event == name:
                return cid
        return None


_STATE_FIELDS = (
    "seed",
    "draw",
    "table",
    "piles",
    "held",
    "events_row",
    "laid",
    "skips",
    "phase",
    "active",
    "version",
    "rng_draws",
    "timer_started",
    "pending",
    "challenge",
    "anchor",
    "passes",
    "bots",
    "result",
)


def all_places(state: GameState) -> list[int]:
    """Every card id in the game, one entry per place it sits in (R9.1)."""
    ids = list(state.draw) + list(state.table)
    for seat in range(state.n_seats):
        ids += state.piles[seat] + state.held[seat] + state.events_row[seat]
        for trick in state.laid[seat].values():
            ids += trick
    return ids


def check_invariants(state: GameState) -> None:
    """Raise AssertionError when a card is lost, doubled or misplaced (R9.1)."""
    ids = all_places(state)
    n = len(state.cards)
    assert sorted(ids) == list(range(n)), (
        f"card conservation broken: {len(ids)} places for {n} cards"
    )
    assert state.phase in PHASES, state.phase
    for cid in state.table:
        assert state.cards[cid].kind != "event", "an event card lies on the table (R4.2)"
    for seat in range(state.n_seats):
        for cid in state.events_row[seat]:
            assert state.cards[cid].kind == "event", "a non-event card in an event row"
            assert state.cards[cid].event != "TRI", "TRI goes to the pile at once (R7.4)"
        if state.laid[seat].get("pemp"):
            assert len(state.laid[seat]["pemp"]) % 2 == 0, "an odd trick on PEMP (R7.6)"
        assert state.skips[seat] >= 0
    if state.phase == "over":
        assert state.result is not None
        assert not any(state.held) and not any(state.events_row), (
            "held/event cards left at the end (R6.2)"
        )
    if state.phase in ("window", "chwech_offer", "chwech_announce", "challenge"):
        assert state.pending is not None
    if state.phase in ("chwech_offer", "chwech_announce", "challenge"):
        assert state.challenge is not None


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
        {
            "type": "game_started",
            "players": list(config.players),
            "starter": config.starter,
            "rules": config.rules.to_dict(),
            "cards": n,
        }
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
        {
            "type": "announced",
            "seat": seat,
            "role": role,
            "text": record["text"],
            "cards": list(record["cards"]),
            "place": record["place"],
        }
    )
    if role == "turn":
        if s.config.challenge_window > 0:
            _open_window(s, record, events)
        else:
            _settle_announcement(s, record, events)  # R4.6, R5.6: the engine referees alone
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
        events.append({"type": "said_nothing", "seat": seat, "role": "challenge", "timeout": False})
        _false_challenge(s, "no_valid_operation", events)
    elif s.phase == "chwech_announce":
        if seat != s.challenge["challenged"]:
            raise _refusal("not_your_turn", active=s.challenge["challenged"])
        events.append({"type": "said_nothing", "seat": seat, "role": "chwech", "timeout": False})
        _chwech_wrong(s, events)
    else:
        raise _refusal("wrong_phase", phase=s.phase)


def _move_ok(s: GameState, seat: int, move: Move, events: list[Event]) -> None:
    if s.phase != "window":
        raise _refusal("wrong_phase", phase=s.phase)
    pending = s.pending
    if seat == pending["seat"]:
        raise _refusal("own_announcement")
    if seat in pending["oks"]:
        raise _refusal("already_answered")
    pending["oks"].append(seat)
    events.append({"type": "ok", "seat": seat})
    if len(pending["oks"]) == s.n_seats - 1:  # R5.1: every other player pressed OK
        _close_window(s, "all_ok", events)


def _move_challenge(s: GameState, seat: int, move: Move, events: list[Event]) -> None:
    if s.phase in ("chwech_offer", "chwech_announce", "challenge"):
        raise _refusal("too_late", challenger=s.challenge["challenger"])  # R5.1: first call wins
    if s.phase != "window":
        raise _refusal("wrong_phase", phase=s.phase)
    pending = s.pending
    if seat == pending["seat"]:
        raise _refusal("own_announcement")
    if seat in pending["oks"]:
        raise _refusal("already_answered")
    challenged = pending["seat"]
    s.challenge = {"challenger": seat, "challenged": challenged}
    events.append(
        {"type": "challenge_called", "seat": seat, "against": challenged, "kind": pending["kind"]}
    )
    # R5.5: the referee knows at once when there was nothing to find fault with.
    if pending["kind"] == "announce" and pending["ok"]:
        _false_challenge(s, "correct_announcement", events)
    elif pending["kind"] == "nothing" and pending["was_true"]:
        _false_challenge(s, "true_nothing", events)
    elif s.event_held(challenged, "CHWECH") is not None:
        s.phase = "chwech_offer"  # R5.2, R7.7
        events.append({"type": "chwech_offered", "seat": challenged})
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
    events.append({"type": "chwech_decided", "seat": seat, "use": use})
    s.phase = "chwech_announce" if use else "challenge"


def _move_timeout(s: GameState, seat: None, move: Move, events: list[Event]) -> None:
    timer = s.timer
    kind = move.get("kind")
    if kind not in TIMER_KINDS:
        raise _refusal("bad_move", field="kind")
    if timer is None or timer["kind"] != kind or move.get("timer", timer["id"]) != timer["id"]:
        # A deadline stamped for a time limit that has since ended.
        raise _refusal("stale_timeout", kind=kind)
    events.append({"type": "timeout", "kind": kind, "seat": timer["seat"]})
    if s.phase == "turn":
        _say_nothing(s, s.active, events, timeout=True)  # R4.9
    elif s.phase == "window":
        _close_window(s, "timeout", events)  # R5.1
    elif s.phase == "chwech_offer":
        events.append({"type": "chwech_decided", "seat": timer["seat"], "use": False})
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
    events.append({"type": "replaced", "seat": seat, "bot": bot})


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


def _judge(s: GameState, seat: int, move: Move) -> dict[str, Any]:
    """Check an announcement against the table and the seat's held cards; refuse an invalid one."""
    available = s.table + s.held[seat]
    values = [s.value_of(c) for c in available]
    x_values = None
    tokens = move.get("tokens")
    text = move.get("text")
    if tokens is not None:
        if not isinstance(tokens, list) or len(tokens) > 200:
            raise _refusal("bad_move", field="tokens")
        position = {cid: i for i, cid in enumerate(available)}
        announcement: Any = []
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
        raw_x = move.get("x_values") or {}
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
    return {
        "type": "verdict",
        "seat": record["seat"],
        "role": role,
        "text": record["text"],
        "ok": record["ok"],
        **record["verdict"],
        "operation": record["operation"],
        "cards": list(record["cards"]),
    }


def _nothing_event(record: dict[str, Any], role: str) -> Event:
    return {
        "type": "nothing_ruled",
        "seat": record["seat"],
        "role": role,
        "was_true": record["was_true"],
        "possible": record["possible"],
    }


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
        events.append({"type": "turned_up", "seat": seat, "card": card_dict(card)})
        if card.kind == "event":
            _take_event_card(s, seat, cid, events)  # R4.2: and another card in its place
            continue
        s.table.append(cid)
        turned += 1


def _take_event_card(s: GameState, seat: int, cid: int, events: list[Event]) -> None:
    name = s.event_of(cid)
    events.append({"type": "event_card", "seat": seat, "card": cid, "event": name})
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
                {"type": "tri_took", "seat": seat, "from": other, "card": card_dict(s.cards[taken])}
            )
    s.piles[seat].append(cid)


def _start_turn(s: GameState, seat: int, count: int, events: list[Event]) -> None:
    s.active = seat
    s.phase = "turn"
    events.append({"type": "turn", "seat": seat})
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
        events.append({"type": "skipped", "seat": nxt})
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
        {
            "type": "trick_won",
            "seat": seat,
            "cards": list(ids),
            "size": len(ids),
            "placed": place,
            "to": owner,
        }
    )


def _open_window(s: GameState, record: dict[str, Any], events: list[Event]) -> None:
    s.pending = record
    s.phase = "window"
    events.append(
        {
            "type": "window_opened",
            "seat": record["seat"],
            "kind": record["kind"],
            "seconds": s.config.challenge_window,
        }
    )


def _close_window(s: GameState, reason: str, events: list[Event]) -> None:
    record = s.pending
    s.pending = None
    events.append({"type": "window_closed", "reason": reason})
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
    events.append({"type": "said_nothing", "seat": seat, "role": "turn", "timeout": timeout})
    if s.config.challenge_window > 0:
        _open_window(s, record, events)
    else:
        _settle_nothing(s, record, events)


def _settle_nothing(s: GameState, record: dict[str, Any], events: list[Event]) -> None:
    seat = record["seat"]
    events.append(_nothing_event(record, "turn"))
    if not record["was_true"] and s.config.lesson_on:
        events.append({"type": "lesson", "seat": seat, "operation": record["possible"]})  # R5.6
    _pass_turn(s, seat, events)


# --- the challenge (R5) and C'HWEC'H (R7.7) ------------------------------------------------


def _reveal(record: dict[str, Any]) -> Event:
    return (
        _verdict_event(record, "turn")
        if record["kind"] == "announce"
        else _nothing_event(record, "turn")
    )


def _right_challenge(s: GameState, challenger_record: dict[str, Any], events: list[Event]) -> None:
    """R5.4: the challenger wins the trick and plays on; the challenged skips their next turn."""
    record = s.pending
    challenger, challenged = s.challenge["challenger"], s.challenge["challenged"]
    events.append(_reveal(record))
    _win_trick(s, challenger, challenger_record["cards"], challenger_record["place"], events)
    s.skips[challenged] += 1
    events.append({"type": "skip_due", "seat": challenged})
    events.append(
        {
            "type": "challenge_ruled",
            "outcome": "right",
            "challenger": challenger,
            "challenged": challenged,
            "reason": "challenger_correct",
            "immediate": False,
        }
    )
    s.pending = None
    s.challenge = None
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
        {
            "type": "cards_given",
            "from": challenger,
            "to": challenged,
            "cards": given,
            "count": len(given),
            "reason": "false_challenge",
        }
    )
    s.skips[challenger] += 1
    events.append({"type": "skip_due", "seat": challenger})
    events.append(
        {
            "type": "challenge_ruled",
            "outcome": "false",
            "challenger": challenger,
            "challenged": challenged,
            "reason": reason,
            "immediate": reason in ("correct_announcement", "true_nothing"),
        }
    )
    s.pending = None
    s.challenge = None
    if record["kind"] == "announce" and record["ok"]:
        _win_trick(s, challenged, record["cards"], record["place"], events)
        _play_on(s, challenged, events)
    else:
        _pass_turn(s, challenged, events)


def _chwech_correct(s: GameState, record: dict[str, Any], events: list[Event]) -> None:
    """R7.7: the second chance worked; the trick is won and the challenge called off."""
    challenger, challenged = s.challenge["challenger"], s.challenge["challenged"]
    chwech = s.event_held(challenged, "CHWECH")
    s.events_row[challenged].remove(chwech)
    _win_trick(s, challenged, record["cards"], record["place"], events)
    s.piles[challenged].append(chwech)
    events.append(
        {
            "type": "challenge_ruled",
            "outcome": "called_off",
            "challenger": challenger,
            "challenged": challenged,
            "reason": "chwech_correct",
            "immediate": False,
        }
    )
    s.pending = None
    s.challenge = None
    _play_on(s, challenged, events)


def _chwech_wrong(s: GameState, events: list[Event]) -> None:
    """R7.7: a wrong second chance gives C'HWEC'H to the challenger; the challenge goes on."""
    challenger, challenged = s.challenge["challenger"], s.challenge["challenged"]
    chwech = s.event_held(challenged, "CHWECH")
    s.events_row[challenged].remove(chwech)
    s.piles[challenger].append(chwech)
    events.append(
        {
            "type": "cards_given",
            "from": challenged,
            "to": challenger,
            "cards": [chwech],
            "count": 1,
            "reason": "chwech_wrong",
        }
    )
    s.phase = "challenge"


def _give_from_pile(s: GameState, giver: int, receiver: int, count: int) -> list[int]:
    """The last-won cards of the giver's pile, fewer if the pile has fewer."""
    pile = s.piles[giver]
    given = pile[len(pile) - min(count, len(pile)) :]
    del pile[len(pile) - len(given) :]
    s.piles[receiver].extend(given)
    return given


# --- the end (R6) --------------------------------------------------------------------------


def _finish(s: GameState, reason: str, events: list[Event]) -> None:
    """R6.2, in its order: UNAN takes the table; held and event cards join their owner's pile;
    only then are an unused DAOU and an unused PEMP paid, so no card is sheltered from them.
    Payments come from the pile alone, never from the tricks laid on PEVAR or PEMP."""
    settlements: list[dict[str, Any]] = []
    n = s.n_seats
    for seat in range(n):  # (1) the rest is yours
        if s.event_held(seat, "UNAN") is not None:
            taken = list(s.table)
            s.piles[seat].extend(taken)
            s.table.clear()
            settlements.append({"kind": "unan", "seat": seat, "cards": taken, "count": len(taken)})
    # Who holds an unused DAOU / PEMP, read before the event cards leave the rows.
    daou = [seat for seat in range(n) if s.event_held(seat, "DAOU") is not None]
    pemp = [seat for seat in range(n) if s.event_held(seat, "PEMP") is not None]
    for seat in range(n):  # (2) held cards and event cards, used or not, join the pile
        s.piles[seat].extend(s.held[seat] + s.events_row[seat])
        s.held[seat].clear()
        s.events_row[seat].clear()
    for seat in daou:  # (3) an unused DAOU: 5 cards to the right-hand neighbour
        neighbour = (seat - 1) % n
        given = _give_from_pile(s, seat, neighbour, DAOU_PENALTY)
        settlements.append(
            {"kind": "daou", "seat": seat, "to": neighbour, "cards": given, "count": len(given)}
        )
    for seat in pemp:  # (4) an unused PEMP: 2 cards to each other player, the next seat first
        for step in range(1, n):
            other = (seat + step) % n
            given = _give_from_pile(s, seat, other, PEMP_PENALTY)
            settlements.append(
                {"kind": "pemp", "seat": seat, "to": other, "cards": given, "count": len(given)}
            )
    scores = scores_of(s)
    s.result = {
        "reason": reason,
        "scores": scores,
        "places": places_of(scores),
        "settlements": settlements,
        "cards": [len(s.piles[i]) + sum(len(t) for t in s.laid[i].values()) for i in range(n)],
    }
    s.phase = "over"
    s.pending = None
    s.challenge = None
    events.append({"type": "game_over", **copy.deepcopy(s.result)})


def score_of(s: GameState, seat: int) -> int:
    """R6.3: one point a card, the PEVAR trick again, minus half the PEMP trick.

    At any moment of the game: held cards and unused event cards count one each, as they will
    once they join the pile (R6.2); a game's final score is this after the settlements.
    """
    pevar = len(s.laid[seat].get("pevar", []))
    pemp = len(s.laid[seat].get("pemp", []))
    cards = len(s.piles[seat]) + len(s.held[seat]) + len(s.events_row[seat])
    return cards + 2 * pevar + pemp - pemp // 2


def scores_of(s: GameState) -> list[int]:
    """R6.3: every seat's score, in seat order (final once the game is over)."""
    return [score_of(s, seat) for seat in range(s.n_seats)]


def places_of(scores: Sequence[int]) -> list[int]:
    """R6.3: finishing places, 1 for the highest score; equal scores share the place."""
    return [1 + sum(other > mine for other in scores) for mine in scores]


__all__ = [
    "GameConfig",
    "GameState",
    "PHASES",
    "all_places",
    "apply_move",
    "check_invariants",
    "legal_moves",
    "new_game",
    "operation_dict",
    "places_of",
    "player_operation",
    "replay",
    "score_of",
    "scores_of",
    "start_game",
]
