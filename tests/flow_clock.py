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

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from unittest import mock

from django.test import Client
from django.urls import reverse
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


class Tablet:
    """The child's tablet in the embedded default (tasks in-process: no worker, no beat), as
    static/js/table.js behaves with its push stream up: it asks for the table every POLL_SLOW
    seconds, or at the moment its board names (data-due) when that comes first; that request
    is what plays a due move in-process (services.due_moves_apply)."""

    POLL_SLOW = 60.0  # static/js/table.js (spread there over 48-72 s)
    DUE = re.compile(r'id="board"[^>]*?data-due="(\d+)"')

    def __init__(self, client: Client, game: Game) -> None:
        self.client, self.game = client, game
        self.version = -1
        self.due: datetime | None = None
        self.asked_at: datetime | None = None

    def ask(self, clock: HeldClock) -> None:
        """A poll, as the tablet sends it at clock.now; what the board now names."""
        self.asked_at = clock.now
        answer = self.client.get(
            reverse("games:table", args=[self.game.pk]),
            {"v": self.version, "s": "running"},
            HTTP_HX_REQUEST="true",
            HTTP_X_KAVET_POLL="1",
        )
        if answer.status_code == 200:
            html = answer.content.decode()
            found = self.DUE.search(html)
            self.due = datetime.fromtimestamp(int(found.group(1)) / 1000, tz=UTC) if found else None
            self.game.refresh_from_db()
            self.version = self.game.version

    def next_ask(self) -> datetime:
        slow = self.asked_at + timedelta(seconds=self.POLL_SLOW)
        if self.due is None:
            return slow
        at = self.due + timedelta(seconds=0.05)
        if at <= self.asked_at:
            at = self.asked_at + timedelta(seconds=1.0)
        return min(slow, at)


def practice_waiting(
    start_game: Callable[[], Game],
    clock: HeldClock,
    *,
    turns: int = 10,
    seat: int = 0,
    tablet: Client | None = None,
) -> Waiting:
    """What the child at `seat` waits from their first turn until their turn after `turns`
    turns, in as many games from `start_game` as it takes (a low level's game can end sooner;
    the next starts at once, with the child's first turn, R4.1).

    Without `tablet`, every due move is applied the moment it falls due (a worker's countdown
    task); with the child's signed-in test client, only the child's tablet applies them, as
    in the embedded default (Tablet).
    """
    out = Waiting()
    since_action = 0.0
    while True:
        game = start_game()
        out.games += 1
        pad = Tablet(tablet, game) if tablet is not None else None
        since_action, done = _play(game, clock, turns, seat, out, since_action, pad)
        _count_windows(game, seat, out)
        if done:
            return out


def _play(
    game: Game,
    clock: HeldClock,
    turns: int,
    seat: int,
    out: Waiting,
    since_action: float,
    tablet: Tablet | None,
) -> tuple[float, bool]:
    """Play one game; (seconds waited since the child's last action, whether `turns` are done)."""
    if tablet is not None:
        tablet.ask(clock)
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
            if tablet is not None:
                tablet.ask(clock)  # the move's answer: the new board
            continue
        if tablet is not None:
            waited = clock.advance_to(tablet.next_ask())
            tablet.ask(clock)
        else:
            # (the row's due moments read here, not Game.next_due_at: an older tree, benchmarked
            # for its before figures, has the columns only)
            due = min((t for t in (game.timer_deadline, game.bot_due_at) if t), default=None)
            assert due, f"nothing is due and the child has nothing to do: {state.phase}"
            waited = clock.advance_to(due)
            services.game_tick(game_id=game.pk, now=clock.now)
        out.waited += waited
        since_action += waited
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


def tutorial_waiting(student, clock: HeldClock, *, tablet: Client | None = None) -> Waiting:
    """ "Learn to play" for a child who does at once what the coach asks (games.tutorial's
    CHILD_MOVES, in order, then OK to whatever is left): the seconds they wait, as
    practice_waiting counts them, until the game is over (R6.1)."""
    from games import tutorial

    out = Waiting(games=1)
    game = tutorial.tutorial_create(student=student)
    pad = Tablet(tablet, game) if tablet is not None else None
    if pad is not None:
        pad.ask(clock)
    child_moves = iter(tutorial.CHILD_MOVES)
    for _step in range(500):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        state = engine.GameState.from_dict(game.state)
        legal = engine.legal_moves(state, tutorial.CHILD)
        computer_acts = engine.legal_moves(state, tutorial.COMPUTER) and (
            state.phase != "window" or state.pending["seat"] == tutorial.CHILD
        )
        if legal and not computer_acts:
            move = next(child_moves, None) or {"type": "ok" if "ok" in legal else "nothing"}
            out.turns += 1
            result = services.move_submit(
                game_id=game.pk, seat=tutorial.CHILD, move=move, seen_version=game.version
            )
            assert result.applied, result
            if pad is not None:
                pad.ask(clock)
            continue
        if pad is not None:
            waited = clock.advance_to(pad.next_ask())
            pad.ask(clock)
        else:
            due = min((t for t in (game.timer_deadline, game.bot_due_at) if t), default=None)
            assert due, f"nothing is due and the child has nothing to do: {state.phase}"
            waited = clock.advance_to(due)
            services.game_tick(game_id=game.pk, now=clock.now)
        out.waited += waited
        out.waits.append(waited)
    else:
        raise AssertionError("the lesson did not end")
    _count_windows(game, tutorial.CHILD, out)
    return out
