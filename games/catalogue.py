"""A catalogue of the child's table in every state that matters, built from engine states.

Each entry is one engine state, reached from a scripted deal by the engine's own moves
(`engine.apply_move`, so its events and its ruling are the real ones) and, where a state is
quicker to set than to play to (six held cards, a row of event cards, twelve cards on the
table), by moving cards out of the draw pile the way the rules move them (R7.1, R7.4), the
engine's invariants checked after (R9.1). Nothing is played through the pages.

The API is small and stable:

- `states()`: every named state, in a useful reading order ({name: CatalogueState}).
- `render(name, position, request)`: the child's whole table page as the tablet in that seat
  sees it (`tablets()` lists the seats that have one).

A state is rendered from rows made for it inside a transaction that is rolled back, through
the same selectors and template as the real table (games.selectors.table_context), so what
the browser tests and the screenshots check is what a tablet shows. Used by
tests/e2e/test_table_catalogue.py, `manage.py table_screenshots` and, in DEBUG only, the
developer's pages at /dev/table-states/ (games.catalogue_views).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cache
from typing import Any

from django.db import transaction
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils import timezone

from games import engine
from games.engine.rules import RuleSet

# The seats of every state: three children and a computer player (no tablet of its own).
NAMES = ["Anna", "Bo", "Jade", ""]
BOT_SEATS = {3: "medium"}
ANNA, BO, JADE = 0, 1, 2


@dataclass(frozen=True)
class CatalogueState:
    """One state of a table: the engine state, the moves that led to it (with their events, as
    the Move rows keep them), the game's status, and what it shows (for the developer)."""

    name: str
    title: str
    state: engine.GameState
    moves: tuple[tuple[dict, list[dict]], ...] = ()
    status: str = "running"
    kind: str = "class"
    bots: dict[int, str] = field(default_factory=lambda: dict(BOT_SEATS))
    names: tuple[str, ...] = tuple(NAMES)
    draw_order: tuple[int, ...] | None = None  # a practice game's deal ("Learn to play")

    def tablets(self) -> list[int]:
        """The seats with a tablet (every seat but the computer players)."""
        return [i for i in range(self.state.n_seats) if i not in self.bots]


class _Script:
    """A deal played on by engine moves, and set by moving cards out of the draw pile."""

    def __init__(self, draw: list[int], *, max_number: int = 10, tier: int = 1, **options):
        config = engine.GameConfig(
            players=list(NAMES),
            rules=RuleSet(max_number=max_number, tier=tier),
            deck=engine.DeckSpec(max_number=max_number),
            challenge_window=options.pop("challenge_window", 10),
            challenge_time=options.pop("challenge_time", 60),
            turn_time=options.pop("turn_time", 120),
            **options,
        )
        self.state, _events = engine.start_game(config, seed=0, draw_order=draw)
        self.moves: list[tuple[dict, list[dict]]] = []

    def card(self, label: str, copy: int = 0) -> int:
        """The id of a card by its label ("7", "X", "PEVAR"...): the `copy`-th of that label."""
        found = [c.id for c in self.state.cards if c.label == label or c.event == label]
        return found[copy]

    def play(self, seat: int | None, **move) -> _Script:
        if seat is not None:
            move["seat"] = seat
        self.state, events = engine.apply_move(self.state, move)
        self.moves.append((move, [dict(e) for e in events]))
        return self

    def give(self, seat: int, where: str, *labels: str) -> _Script:
        """Move cards from the draw pile to a seat's `held` cards, `events_row`, `piles`, or
        to the `table` (seat ignored), as TRI, an event turned up or a won trick would."""
        state = self.state.clone()
        for label in labels:
            copies = [c.id for c in state.cards if c.label == label or c.event == label]
            cid = next(c for c in copies if c in state.draw)
            state.draw.remove(cid)
            if where == "table":
                state.table.append(cid)
            else:
                getattr(state, where)[seat].append(cid)
        engine.check_invariants(state)
        self.state = state
        return self

    def done(self, name: str, title: str, **extra) -> CatalogueState:
        engine.check_invariants(self.state)
        return CatalogueState(
            name=name, title=title, state=self.state, moves=tuple(self.moves), **extra
        )


def _announce(s: _Script, seat: int, *labels: str, x: dict[str, int] | None = None, **more):
    """An announcement by cards: labels are card labels (the first copy still on the table or
    held) or operators; `x` gives the X cards' values by their position among the X used."""
    tokens, xs, used = [], {}, set()
    state = s.state
    mine = set(state.table) | set(state.held[seat])
    for label in labels:
        if label in "+-*/^()=" and len(label) == 1:
            tokens.append({"op": label})
            continue
        cid = next(
            c.id for c in state.cards if (c.label == label) and c.id in mine and c.id not in used
        )
        used.add(cid)
        tokens.append({"card": cid})
        if label == "X" and x:
            xs[str(cid)] = x[str(len([t for t in xs]))]
    return s.play(seat, type="announce", tokens=tokens, x_values=xs, **more)


# The deck up to 10 (ids): number n is 2n and 2n + 1, X 22–25, UNAN 26 … C'HWEC'H 31.
OPENING = [4, 6, 10]  # 2 3 5 on the table


def _build() -> list[CatalogueState]:
    out: list[CatalogueState] = []

    out.append(_Script(OPENING).done("turn-start", "Anna's first turn: 2 3 5 on the table"))

    for n in range(1, 7):
        s = _Script(OPENING).give(ANNA, "piles", "TRI")
        held = ["1", "4", "6", "7", "X", "DAOU"][:n]
        s.give(ANNA, "held", *held)
        out.append(s.done(f"turn-held-{n}", f"Anna's turn holding {n} card(s) taken with TRI"))

    s = _Script(OPENING).give(ANNA, "events_row", "PEVAR", "PEMP", "DAOU")
    out.append(s.done("turn-place", "Anna's turn: her trick may go on PEVAR, PEMP or DAOU"))

    s = (
        _Script(OPENING, max_number=20, tier=3)
        .give(ANNA, "events_row", "PEVAR", "PEMP", "DAOU", "UNAN")
        .give(ANNA, "piles", "TRI")
        .give(ANNA, "held", "11", "14", "16", "17", "X", "C'HWEC'H")
        .give(0, "table", "8", "9", "12", "13", "18", "19", "20")
    )
    out.append(
        s.done("turn-crowded", "Tier 3 up to 20: six held cards, four events, ten on the table")
    )

    s = _Script(OPENING).give(0, "table", "1", "4", "6", "7", "8", "9", "0", "10", "X")
    _announce(s, ANNA, "2", "+", "3", "=", "5")
    out.append(s.done("window-many", "The check window with twelve cards on the table"))

    s = _Script(OPENING).give(ANNA, "events_row", "CHWECH")
    _announce(s, ANNA, "2", "+", "5", "=", "3")
    s.play(BO, type="challenge")
    out.append(s.done("chwech-offer", "Bo challenged; Anna may use C'HWEC'H"))
    s.play(ANNA, type="chwech", use=True)
    out.append(s.done("chwech-announce", "Anna uses C'HWEC'H and announces again"))

    s = _Script(OPENING)
    _announce(s, ANNA, "2", "+", "5", "=", "3")
    s.play(BO, type="challenge")
    out.append(s.done("challenge", "Bo said “Kavet 'm eus!” and shows an operation"))

    s = _Script(OPENING).give(BO, "events_row", "PEMP", "PEVAR", "DAOU")
    _announce(s, ANNA, "2", "+", "5", "=", "3")
    s.play(BO, type="challenge")
    _announce(s, BO, "2", "+", "3", "=", "5")
    out.append(
        s.done(
            "ruling-right-challenge",
            "Bo's right challenge: Bo wins the trick and plays on, PEMP/PEVAR/DAOU to choose",
        )
    )

    s = _Script(OPENING).give(BO, "piles", "7", "8", "9", "1")
    _announce(s, ANNA, "2", "+", "3", "=", "5")
    s.play(BO, type="challenge")
    out.append(s.done("ruling-false-challenge", "Bo challenged a right operation: Bo pays 3"))

    s = _Script(OPENING + [14])
    _announce(s, ANNA, "2", "+", "3", "=", "5")
    for seat in (BO, JADE, 3):
        s.play(seat, type="ok")
    out.append(s.done("ruling-accepted", "Anna's right operation accepted; she plays on"))

    s = _Script(OPENING + [14, 16], lesson=True, challenge_window=10)
    s.play(ANNA, type="nothing")
    for seat in (BO, JADE, 3):
        s.play(seat, type="ok")
    out.append(s.done("ruling-lesson", "A false “nothing to do” nobody challenged: the lesson"))

    s = (
        _Script(OPENING)
        .give(ANNA, "events_row", "UNAN")
        .give(BO, "events_row", "DAOU", "PEMP")
        .give(JADE, "events_row", "CHWECH")
        .give(ANNA, "piles", "PEVAR", "TRI", "1", "4", "6")
    )
    s.state.skips[JADE] = 1
    s.state.laid[ANNA]["pevar"] = [s.state.piles[ANNA].pop() for _ in range(3)]  # R7.5
    out.append(
        s.done("turn-events", "Event cards before three players, a trick on PEVAR, Jade skips")
    )

    out.append(_Script(OPENING).done("paused", "The teacher paused the game", status="paused"))

    s = _Script(OPENING + [14, 16, 18], turn_time=0, challenge_window=0)
    s.give(ANNA, "events_row", "UNAN").give(BO, "events_row", "DAOU", "PEMP")
    s.give(BO, "piles", "1", "4", "6", "7", "8", "9", "X").give(JADE, "piles", "0", "10", "X")
    _say_nothing_to_the_end(s)
    out.append(s.done("over", "The game is over: settlements and ranking", status="finished"))

    # R6.2 for several seats: the computer player's UNAN takes the table, Jade's unused DAOU
    # gives 5 to Bo (her right-hand neighbour), Anna's unused PEMP 2 to each of the others.
    s = _Script(OPENING + [14, 16, 18], turn_time=0, challenge_window=0)
    s.give(3, "events_row", "UNAN").give(JADE, "events_row", "DAOU").give(
        ANNA, "events_row", "PEMP"
    )
    s.give(ANNA, "piles", "1", "4", "6", "7", "8", "9", "0")
    s.give(JADE, "piles", "10", "X", "1", "4", "6", "TRI").give(BO, "piles", "X")
    _say_nothing_to_the_end(s)
    out.append(
        s.done("over-penalties", "The end: UNAN, DAOU and PEMP for four seats", status="finished")
    )
    return out + _tutorial()


def _say_nothing_to_the_end(s: _Script) -> None:
    """Every player says "nothing to do" until the game ends (R6.1)."""
    while not s.state.is_over:
        seat = s.state.active
        moves = engine.legal_moves(s.state, seat)
        if "nothing" in moves:
            s.play(seat, type="nothing")
        else:  # pragma: no cover - a scripted deal always says nothing here
            raise AssertionError(moves)
        if len(s.moves) > 200:  # pragma: no cover
            raise AssertionError("the scripted end does not end")


def _tutorial() -> list[CatalogueState]:
    """ "Learn to play" with its coach (games.tutorial), after each move of its script: the
    child's moves the coach asks for, the computer player's own (seeded as in a real game)."""
    from games import tutorial

    seed = tutorial.tutorial_seed()
    state = engine.new_game(tutorial._config(), seed=seed, draw_order=tutorial.DRAW_ORDER)
    state.bots[tutorial.COMPUTER] = tutorial.BOT
    child = iter(tutorial.CHILD_MOVES)
    moves: list[tuple[dict, list[dict]]] = []
    out = []
    for number in range(1, 40):
        out.append(
            CatalogueState(
                name=f"tutorial-{number:02d}",
                title=f"Learn to play, {tutorial.step_of(state).key}: after {len(moves)} moves",
                state=state,
                moves=tuple(moves),
                status="finished" if state.is_over else "running",
                kind="practice",
                bots={tutorial.COMPUTER: tutorial.BOT},
                names=("Anna", ""),
                draw_order=tuple(tutorial.DRAW_ORDER),
            )
        )
        if state.is_over:
            break
        move = tutorial._bot_answer(state, seed) or {**next(child), "seat": tutorial.CHILD}
        state, events = engine.apply_move(state, move)
        moves.append((move, [dict(e) for e in events]))
    return out


@cache
def _catalogue() -> dict[str, CatalogueState]:
    return {entry.name: entry for entry in _build()}


def states() -> dict[str, CatalogueState]:
    """Every state of the catalogue by name, in reading order."""
    return dict(_catalogue())


class _Rollback(Exception):
    pass


@contextmanager
def rows(name: str) -> Iterator[tuple[Any, list[Any]]]:
    """The game and seats of state `name`, made for it in a transaction that is rolled back
    when the block ends (KeyError for a state that is not in the catalogue): what the table
    reads, for `render` and for the tests and benchmarks of the board's renders."""
    entry = _catalogue()[name]
    try:
        with transaction.atomic():
            yield _rows(entry)
            raise _Rollback
    except _Rollback:
        pass


def render(name: str, position: int, request: HttpRequest) -> str:
    """The whole table page of `name` as the tablet in seat `position` sees it (KeyError for
    a state or a seat that is not in the catalogue)."""
    from games import selectors

    entry = _catalogue()[name]
    if position not in entry.tablets():
        raise KeyError(position)
    with rows(name) as (game, seats):
        ctx = selectors.table_context(game=game, seat=seats[position], seats=seats)
        ctx["poll_token"] = "catalogue"
        return render_to_string("games/table.html", ctx, request)


def _rows(entry: CatalogueState) -> tuple[Any, list[Any]]:
    from classrooms.models import School
    from games.models import Game, Move, Seat

    school = School.objects.create(slug=f"catalogue-{timezone.now().timestamp()}", name="Catalogue")
    state = entry.state
    now = timezone.now()
    timer = state.timer if entry.status == "running" else None
    game = Game.objects.create(
        school=school,
        kind=entry.kind,
        status=entry.status,
        label="T1",
        config=state.config.to_dict(),
        seed=state.seed,
        draw_order=list(entry.draw_order) if entry.draw_order else None,
        state=state.to_dict(),
        version=state.version,
        timer_deadline=now + timedelta(seconds=timer["seconds"] - 3) if timer else None,
        started_at=now,
    )
    Seat.objects.bulk_create(
        Seat(game=game, position=i, bot=entry.bots.get(i, ""), name=entry.names[i])
        for i in range(state.n_seats)
    )
    Move.objects.bulk_create(
        Move(game=game, number=i, seat=move.get("seat"), payload=move, events=events)
        for i, (move, events) in enumerate(entry.moves, start=1)
    )
    return game, list(Seat.objects.filter(game=game).order_by("position"))
