"""Computer players (R8): they decide from their seat's view alone, never from the draw pile."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .checker import check_operation
from .game import (
    BOT_STRENGTHS,
    DAOU_PENALTY,
    Event,
    GameConfig,
    GameState,
    Move,
    apply_move,
    start_game,
)
from .operations import Operation, Verdict
from .rules import RuleSet
from .solver import best_operation, find_operation
from .visibility import seat_view


@dataclass(frozen=True)
class Profile:
    """How a strength plays: chances that shape its habits (R8.2)."""

    best: float  # chance of looking for the largest trick rather than any trick
    miss: float  # chance of overlooking the operation it would have made
    slip: float  # chance of announcing a wrong operation, as a child might
    catch: float  # chance of checking another's announcement (and challenging a mistake)
    bluff: float  # chance of calling "Kavet 'm eus!" without having checked anything
    place: float  # chance of using PEVAR / PEMP / DAOU when it pays
    delay: tuple[float, float]  # seconds of a human-like pause before it plays its turn
    answer: tuple[float, float]  # seconds before it presses OK or challenges in a window


# The pauses are long enough for a child to see a computer's move shown and hear it read, and
# short enough that a child playing computers is not kept waiting (issue 40): 2-3 s for a turn,
# 1-2 s to answer a check window (R5.1), the easy player the slowest.
PROFILES: dict[str, Profile] = {
    "easy": Profile(
        best=0.0,
        miss=0.2,
        slip=0.05,
        catch=0.25,
        bluff=0.02,
        place=0.5,
        delay=(2.1, 2.4),
        answer=(1.1, 1.4),
    ),
    "medium": Profile(
        best=0.5,
        miss=0.05,
        slip=0.01,
        catch=0.7,
        bluff=0.0,
        place=0.8,
        delay=(2.0, 2.3),
        answer=(1.0, 1.3),
    ),
    "hard": Profile(
        best=1.0,
        miss=0.0,
        slip=0.0,
        catch=1.0,
        bluff=0.0,
        place=1.0,
        delay=(2.0, 2.2),
        answer=(1.0, 1.2),
    ),
}


def bot_delay(strength: str, rng: random.Random) -> float:
    """Seconds a computer player waits before playing its turn, so it feels like a person (R8.2)."""
    low, high = PROFILES[strength].delay
    return rng.uniform(low, high)


def bot_answer_delay(strength: str, rng: random.Random) -> float:
    """Seconds a computer player takes to press OK or call "Kavet 'm eus!" in a window (R5.1)."""
    low, high = PROFILES[strength].answer
    return rng.uniform(low, high)


def bot_rng(seed: int, version: int, seat: int) -> random.Random:
    """The random generator a computer player decides with at `version` of a game (R8).

    The one home of this seed formula: the live games (games.services) and the tutorial's
    search for a seed that plays its lesson both draw from it, so the lesson the tutorial
    checked is the lesson the child sees.
    """
    return random.Random(f"{seed}/bot/{version}/{seat}")


def bot_move(view: dict[str, Any], strength: str, rng: random.Random) -> Move | None:
    """The move a computer player sends now, or None when it is not expected to act."""
    if strength not in PROFILES:
        raise ValueError(f"unknown strength {strength!r}; choose from {', '.join(BOT_STRENGTHS)}")
    legal = view["legal"]
    if not legal:
        return None
    profile = PROFILES[strength]
    seat = view["seat"]
    phase = view["phase"]
    rules = RuleSet.from_dict(view["rules"])
    if phase == "window":
        return {"type": _window_answer(view, seat, rules, profile, rng), "seat": seat}
    if phase == "chwech_offer":
        # It only spends its second chance when it sees an operation to announce with it.
        op = _own_operation(view, seat, rules, profile, rng, careful=True)
        return {"type": "chwech", "seat": seat, "use": op is not None}
    careful = phase != "turn"  # backing a challenge, anyone looks harder
    op = _own_operation(view, seat, rules, profile, rng, careful=careful)
    if phase == "turn" and rng.random() < profile.slip:
        slip = _slip(view, rules)
        if slip is not None:
            return {"type": "announce", "seat": seat, "text": slip}
    if op is None:
        return {"type": "nothing", "seat": seat}
    return {
        "type": "announce",
        "seat": seat,
        "text": op.text,
        "place": _place(view, seat, op, profile, rng),
    }


def _values(cards: Sequence[dict[str, Any]]) -> list[int | str]:
    return ["X" if c["kind"] == "x" else c["value"] for c in cards]


def _own_operation(
    view: dict[str, Any],
    seat: int,
    rules: RuleSet,
    profile: Profile,
    rng: random.Random,
    *,
    careful: bool,
) -> Operation | None:
    if not careful and rng.random() < profile.miss:
        return None
    table = _values(view["table"])
    held = _values(view["seats"][seat]["held"])
    # R8.2: a hard player always looks for the largest trick; best_operation bounds its own
    # work, so a crowded table costs a bounded time, never a smaller trick than it could find.
    if rng.random() < profile.best:
        return best_operation(table, rules, held=held)
    return find_operation(table, rules, held=held)


def _slip(view: dict[str, Any], rules: RuleSet) -> str | None:
    """A wrong sum of three table numbers, the commonest slip of a young player."""
    return wrong_sum([c["value"] for c in view["table"] if c["kind"] == "number"])


def wrong_sum(numbers: list[int]) -> str | None:
    """The first "a + b = c" of three different numbers of `numbers` that is wrong, as a child
    would announce it; None when every such sum is right (or there are fewer than three)."""
    for i, a in enumerate(numbers):
        for j, b in enumerate(numbers):
            for k, c in enumerate(numbers):
                if len({i, j, k}) == 3 and a + b != c:
                    return f"{a} + {b} = {c}"
    return None


def _place(
    view: dict[str, Any], seat: int, op: Operation, profile: Profile, rng: random.Random
) -> str | None:
    """Whether to give the trick with DAOU or lay it on PEMP / PEVAR, and which (R7.1)."""
    events = {c["event"] for c in view["seats"][seat]["events"]}
    if not events or rng.random() >= profile.place:
        return None
    size = len(op.positions)
    others = len(view["players"]) - 1
    # Unused, DAOU costs 5 cards and PEMP 2 per other player at the end (R6.2): a small
    # trick given or halved now costs less.
    if "DAOU" in events and size <= DAOU_PENALTY:
        return "daou"
    if "PEMP" in events and size % 2 == 0 and size // 2 <= 2 * others:
        return "pemp"
    if "PEVAR" in events and (size >= 4 or view["draw_count"] < 6):
        return "pevar"
    return None


def _window_answer(
    view: dict[str, Any], seat: int, rules: RuleSet, profile: Profile, rng: random.Random
) -> str:
    if rng.random() < profile.bluff:
        return "challenge"
    if rng.random() >= profile.catch:
        return "ok"
    pending = view["pending"]
    other = pending["seat"]
    table = _values(view["table"])
    if pending["kind"] == "announce":
        verdict = recheck_announcement(view, rules)
        at_fault = verdict is not None and not verdict.ok
    else:
        # A "nothing to do" is false when the announcer's own cards allowed an operation (R5.4).
        at_fault = (
            find_operation(table, rules, held=_values(view["seats"][other]["held"])) is not None
        )
    if not at_fault:
        return "ok"
    # Challenge only with an operation of its own to announce (R5.3).
    mine = find_operation(table, rules, held=_values(view["seats"][seat]["held"]))
    return "challenge" if mine is not None else "ok"


def recheck_announcement(view: dict[str, Any], rules: RuleSet) -> Verdict | None:
    """Check the announcement under review as any player at the table could (R8.1, R8.3)."""
    pending = view["pending"]
    seat = pending["seat"]
    cards = view["table"] + view["seats"][seat]["held"]
    values = _values(cards)
    if pending.get("tokens") is not None:
        position = {c["id"]: i for i, c in enumerate(cards)}
        tokens: list[dict[str, Any]] = []
        for token in pending["tokens"]:
            if "card" in token:
                if token["card"] not in position:
                    return None
                tokens.append({"card": position[token["card"]]})
            else:
                tokens.append(dict(token))
        x_values = {position[cid]: v for cid, v in pending["x_values"] if cid in position}
        return check_operation(tokens, values, rules, x_values=x_values)
    return check_operation(pending["text"], values, rules)


# --- whole games between computer players (tests, CLI, benchmark) ------------------------------


@dataclass
class BotGame:
    """A finished game between computer players, with every move and event."""

    state: GameState
    moves: list[Move] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    timeouts: int = 0


def play_bot_game(
    config: GameConfig,
    strengths: Sequence[str],
    *,
    seed: int | None = None,
    draw_order: Sequence[int] | None = None,
    bot_seed: int | None = None,
    max_moves: int = 20_000,
    after_move: Callable[[GameState, Move, list[Event]], None] | None = None,
) -> BotGame:
    """Play a whole game between computer players; each sees only its seat's view."""
    if len(strengths) != len(config.players):
        raise ValueError("one strength per seat is needed")
    state, events = start_game(config, seed=seed, draw_order=draw_order)
    game = BotGame(state=state, events=list(events))
    rng = random.Random(state.seed if bot_seed is None else bot_seed)
    while state.phase != "over":
        if len(game.moves) >= max_moves:
            raise RuntimeError(f"the game did not end within {max_moves} moves")
        move = None
        for seat in _askers(state):
            move = bot_move(seat_view(state, seat), strengths[seat], rng)
            if move is not None:
                break
        if move is None:
            # Every bot let the time run out (possible only in a window where none answered).
            timer = state.timer
            if timer is None:
                raise RuntimeError(f"no bot acts in phase {state.phase} and no time limit runs")
            move = {"type": "timeout", "kind": timer["kind"]}
            game.timeouts += 1
        state, new_events = apply_move(state, move)
        game.moves.append(move)
        game.events.extend(new_events)
        if after_move is not None:
            after_move(state, move, new_events)
    game.state = state
    return game


def _askers(state: GameState) -> list[int]:
    """Seats in the order their answers reach the server: the next players first in a window."""
    if state.phase == "window":
        start = state.pending["seat"]
        return [(start + i) % state.n_seats for i in range(1, state.n_seats)]
    if state.phase == "turn":
        return [state.active]
    challenge = state.challenge
    if state.phase == "challenge":
        return [challenge["challenger"]]
    return [challenge["challenged"]]
