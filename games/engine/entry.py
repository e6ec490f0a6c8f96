"""What a tablet may tap next while it builds an operation, and its running results (R2.4, R3.1).

A tablet builds an announcement from keys: cards, the binary operators, "(", ")" and "=". Two
facts of the builder live here, so that the tablet (static/js/table.js) computes neither:

- **What may come next** (`entry_table`): a small finite automaton over the keys' classes
  (`CLASSES`), sent with the table page. A key is on when its class has a transition from the
  current state and the cards still free (`need_cards`) and the tokens the parser still reads
  (`need_tokens`, `parser.MAX_TOKENS`) are enough for the shortest completion from the state it
  leads to, so the keys never lead into an operation that can't be finished. It accepts the
  tablet's form of an announcement, `expression = card` with at least one operator (three cards
  at least, R3.1), with parentheses up to the parser's `MAX_NESTING`. Every sequence it calls
  complete is read by `parser.parse_announcement`, and every announcement of that form the
  parser reads is allowed key by key (tests/engine/test_entry.py checks both, exhaustively for
  short sequences and with hypothesis for long ones). What the parser reads and the builder
  never offers: the result first ("13 = 8 + 5"), the result in parentheses, and the step
  form, which only typing gives.
- **The running results** (`running_steps`): "8 − 5 = 3" as the child taps (R2.4), from the
  real parser's tree of what is left of "=" so far, evaluated exactly by
  `operations.operate` (never floating point, R3.2), numbers written as the checker writes
  them (a fraction "7/2"), the operator apart for the page to print as its key does.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

from .checker import format_value
from .operations import Number, StepWrong, operate
from .parser import MAX_NESTING, MAX_TOKENS, ParseFailure, parse_announcement

# The keys' classes, in the order of each row of the table: a card (a table card, a held card
# or an X), any binary operator of the game (its keys are only those of the tier, R2.1), the
# parentheses and "=".
CLASSES: tuple[str, ...] = ("card", "op", "(", ")", "=")
BINARY = frozenset("+-*/^")

# An abstract state: ("operand", depth, has_operator), ("value", depth, has_operator) after a
# card or ")", ("result",) after "=", ("done",) after the result card.
_State = tuple[Any, ...]
_START: _State = ("operand", 0, False)


def _step(state: _State, cls: str) -> _State | None:
    """The tablet's grammar: where one key leads from a state, None when it may not come."""
    kind = state[0]
    if kind == "operand":
        _, depth, has_op = state
        if cls == "card":
            return ("value", depth, has_op)
        if cls == "(" and depth < MAX_NESTING:
            return ("operand", depth + 1, has_op)
        return None
    if kind == "value":
        _, depth, has_op = state
        if cls == "op":
            return ("operand", depth, True)
        if cls == ")" and depth > 0:
            return ("value", depth - 1, has_op)
        if cls == "=" and depth == 0 and has_op:  # R3.1: two cards combined, then the result
            return ("result",)
        return None
    if kind == "result" and cls == "card":
        return ("done",)
    return None


def _need(states: list[_State], index: dict[_State, int]) -> list[tuple[int, int]]:
    """For each state, the fewest (cards, tokens) that complete it; both minima on one path."""
    inf = (MAX_TOKENS + 1, MAX_TOKENS + 1)
    need = [(0, 0) if s == ("done",) else inf for s in states]
    changed = True
    while changed:
        changed = False
        for i, state in enumerate(states):
            for cls in CLASSES:
                nxt = _step(state, cls)
                if nxt is None:
                    continue
                cards, tokens = need[index[nxt]]
                candidate = (cards + (cls == "card"), tokens + 1)
                if candidate < need[i]:
                    need[i] = candidate
                    changed = True
    return need


@lru_cache(maxsize=1)
def entry_table() -> dict[str, Any]:
    """The automaton as JSON-able data, the same for every game (a key absent is not drawn).

    `next[s][c]` is the state class `CLASSES[c]` leads to from state `s`, or -1; `start` is 0;
    `complete` lists the states where the announcement is whole; `need_cards[s]` and
    `need_tokens[s]` are the fewest cards and tokens that still complete state `s`;
    `max_tokens` is the most tokens the parser reads.
    """
    states: list[_State] = [_START]
    index: dict[_State, int] = {_START: 0}
    queue = deque([_START])
    while queue:
        state = queue.popleft()
        for cls in CLASSES:
            nxt = _step(state, cls)
            if nxt is not None and nxt not in index:
                index[nxt] = len(states)
                states.append(nxt)
                queue.append(nxt)
    need = _need(states, index)
    rows = []
    for state in states:
        targets = (_step(state, cls) for cls in CLASSES)
        rows.append([-1 if t is None else index[t] for t in targets])
    return {
        "classes": list(CLASSES),
        "start": 0,
        "next": rows,
        "complete": [index[("done",)]],
        "need_cards": [cards for cards, _tokens in need],
        "need_tokens": [tokens for _cards, tokens in need],
        "max_tokens": MAX_TOKENS,
    }


def token_class(item: Mapping[str, Any]) -> str | None:
    """The class of a tablet token ({"card": id} or {"op": symbol}); None for anything else."""
    if "card" in item:
        return "card"
    op = item.get("op")
    if op in BINARY:
        return "op"
    if op in ("(", ")", "="):
        return op
    return None


def walk(items: Sequence[Mapping[str, Any]], cards: int) -> int | None:
    """The state after these tokens with `cards` cards to use, or None when a key was not on.

    This is what the tablet does with the table, written once more here for the tests."""
    table = entry_table()
    state, used = table["start"], 0
    for count, item in enumerate(items, start=1):
        cls = token_class(item)
        if cls is None:
            return None
        state = table["next"][state][CLASSES.index(cls)]
        used += cls == "card"
        if state < 0:
            return None
        if cards - used < table["need_cards"][state]:
            return None
        if count + table["need_tokens"][state] > table["max_tokens"]:
            return None
    return state


def is_complete(items: Sequence[Mapping[str, Any]], cards: int) -> bool:
    state = walk(items, cards)
    return state is not None and state in entry_table()["complete"]


# --- R2.4: the running intermediate results ------------------------------------------------


def _left_of_equals(items: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The expression built so far: up to "=", without a tail that has no value yet."""
    left: list[Mapping[str, Any]] = []
    for item in items:
        if item.get("op") == "=":
            break
        left.append(item)
    while left and token_class(left[-1]) in ("op", "("):
        left.pop()
    return left


class Step(NamedTuple):
    """One intermediate result, its numbers written as the checker writes them ("7/2")."""

    left: str
    operator: str  # ASCII, as the engine reads it
    right: str
    value: str

    @property
    def text(self) -> str:
        """ASCII, as `Operation.steps` has it: "8 - 5 = 3"."""
        return f"{self.left} {self.operator} {self.right} = {self.value}"


def running_steps(
    items: Sequence[Mapping[str, Any]], values: Mapping[int, int | None]
) -> list[Step]:
    """The intermediate results of the expression tapped so far, exact (R2.4).

    `items` are the tablet's tokens ({"card": id} / {"op": symbol}); `values` gives each card id
    its value (an X card the number named for it; None when it has none yet). The expression
    reads as if it ended here, its open parentheses closed: "(8 - 5) * (2" shows 8 - 5 = 3 and
    3 * 2 = 6. A step with no value (a division by zero, R3.5) and the steps above it are left
    out. Anything the parser does not read shows nothing.
    """
    left = _left_of_equals(items)
    if not left:
        return []
    depth = sum(1 if i.get("op") == "(" else -1 if i.get("op") == ")" else 0 for i in left)
    if depth < 0 or len(left) + depth + 2 > MAX_TOKENS:
        return []
    closed = [*left, *([{"op": ")"}] * depth), {"op": "="}, {"card": -1}]
    try:
        expression = parse_announcement(closed).expression
    except ParseFailure:
        return []
    steps: list[Step] = []

    def evaluate(node: tuple[Any, ...]) -> Number | None:
        if node[0] == "card":
            value = values.get(node[1])
            return value if type(value) is int else None
        if node[0] != "op":
            return None  # a tablet token never reads as anything else
        a, b = evaluate(node[2]), evaluate(node[3])
        if a is None or b is None:
            return None
        try:
            value = operate(node[1], a, b)
        except StepWrong:
            return None
        if isinstance(value, Fraction) and value.denominator == 1:
            value = value.numerator
        steps.append(Step(format_value(a), node[1], format_value(b), format_value(value)))
        return value

    evaluate(expression)
    return steps
