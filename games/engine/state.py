"""The game's configuration and state: plain, serialisable data with its invariants (R9).

The game as boardgame.io splits it: the state here, the moves (moves.py) that the one
function apply_move applies, the flow of play and the challenge (flow.py), the end (end.py).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .cards import Card, DeckSpec, build_deck
from .errors import EngineError, Refusal
from .rules import RuleSet

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
    # R4.9: seats whose own time limits (their turn, their challenge, C'HWEC'H) never run out:
    # an untimed game for a child who needs one (WCAG 2.2.1); the others' clocks run as usual.
    untimed: tuple[int, ...] = ()

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
        if not isinstance(self.untimed, list | tuple) or any(
            not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(self.players)
            for seat in self.untimed
        ):
            raise _config_error("config_invalid", field="untimed", value=self.untimed)
        self.untimed = tuple(sorted(set(self.untimed)))
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
            "untimed": list(self.untimed),
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
        if not seconds or seat in cfg.untimed:
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
