"""A practice game against computers, driven through games.services on a clock the caller holds.

What issue 40 measured by hand: a child who answers everything at once, against the two easy
computers the home page offers (games.forms.PracticeForm's initial choice), waits how long over
10 of their turns, and how often a check window runs out with only computers left to answer?
Used by tests/games/test_flow_waiting.py and benchmarks/bench_flow_waiting.py.

Time passes only while the child has nothing to do: then the clock jumps to the game's next due
moment (its time limit or a computer's move) and game_tick applies what is due, as the beat
sweep, a computer's countdown task or a tablet's poll would. django.utils.timezone.now is the
held clock throughout, so the services stamp their deadlines on it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from unittest import mock

from django.utils import timezone

from games import engine, services
from games.engine.flow import player_operation
from games.models import Game, Move


class HeldClock:
    """timezone.now() for the services, moved only by the driver."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance_to(self, moment: datetime) -> float:
        waited = max(0.0, (moment - self.now).total_seconds())
        self.now = max(self.now, moment)
        return waited


@contextmanager
def held_clock() -> Iterator[HeldClock]:
    clock = HeldClock(timezone.now())
    with mock.patch("django.utils.timezone.now", clock):
        yield clock


@dataclass
class Waiting:
    """What the child went through: seconds waited, their turns, windows that ran out."""

    turns: int = 0
    waited: float = 0.0
    waits: list[float] = field(default_factory=list)  # before each turn after the first
    windows: int = 0
    windows_run_out: int = 0
    windows_run_out_on_computers: int = 0  # nobody but computers still had to answer
    games: int = 0


def _child_move(state: engine.GameState, seat: int) -> dict:
    """What a child who answers at once sends: OK to a window, an operation or "nothing"."""
    legal = engine.legal_moves(state, seat)
    if "ok" in legal:
        return {"type": "ok"}
    if state.phase == "chwech_offer":
        return {"type": "chwech", "use": False}
    op = player_operation(state, seat)
    if op is not None and "announce" in legal:
        return {"type": "announce", "text": op.text}
    return {"type": "nothing"}


def practice_waiting(
    start_game: Callable[[], Game], clock: HeldClock, *, turns: int = 10, seat: int = 0
) -> Waiting:
    """What the child at `seat` waits from their first turn until their turn after `turns`
    turns, in as many games from `start_game` as it takes (a low level's game can end sooner;
    the next starts at once, with the child's first turn, R4.1)."""
    out = Waiting()
    since_action = 0.0
    while True:
        game = start_game()
        out.games += 1
        since_action, done = _play(game, clock, turns, seat, out, since_action)
        _count_windows(game, seat, out)
        if done:
            return out


def _play(
    game: Game, clock: HeldClock, turns: int, seat: int, out: Waiting, since_action: float
) -> tuple[float, bool]:
    """Play one game; (seconds waited since the child's last action, whether `turns` are done)."""
    for _step in range(5000):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            return since_action, out.turns >= turns
        state = engine.GameState.from_dict(game.state)
        if engine.legal_moves(state, seat):
            if state.phase == "turn" and state.active == seat:
                if out.turns == turns:
                    out.waits.append(since_action)  # the wait for the turn after the last
                    return 0.0, True
                out.turns += 1
                if out.turns > 1:
                    out.waits.append(since_action)
                since_action = 0.0
            result = services.move_submit(
                game_id=game.pk, seat=seat, move=_child_move(state, seat), seen_version=game.version
            )
            assert result.applied or result.refusal_code in ("stale", "too_late"), result
            continue
        due = [t for t in (game.timer_deadline, game.bot_due_at) if t is not None]
        assert due, f"nothing is due and the child has nothing to do: {state.phase}"
        waited = clock.advance_to(min(due))
        out.waited += waited
        since_action += waited
        services.game_tick(game_id=game.pk, now=clock.now)
    raise AssertionError("the game did not move on")


def _count_windows(game: Game, seat: int, out: Waiting) -> None:
    """Windows opened and run out, replayed from the stored moves (R9.2)."""
    game.refresh_from_db()
    state = engine.new_game(
        engine.GameConfig.from_dict(game.config), seed=game.seed, draw_order=game.draw_order
    )
    for move in Move.objects.filter(game=game).order_by("number"):
        payload = move.payload
        if payload.get("type") == "timeout" and payload.get("kind") == "window":
            out.windows_run_out += 1
            pending = state.pending or {}
            if pending.get("seat") == seat or seat in pending.get("oks", []):
                out.windows_run_out_on_computers += 1  # R5.1: nobody but computers to answer
        state, events = engine.apply_move(state, payload)
        out.windows += sum(1 for e in events if e.get("type") == "window_opened")
