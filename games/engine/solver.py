"""Exact search for operations: "is there anything to do?" and the largest trick (R3, R8.2, R9.4).

Whether some of a hand of cards make a given number (can_make) is games.engine.reach; the
reachable sets both search and their memo (clear_caches) are games.engine.reach_sets."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

from .checker import Node, Value, card_values, judge
from .operations import CardValue, Operation, normal
from .reach_sets import (
    _UNBOUNDED,
    Arithmetic,
    X,
    _arithmetic,
    _Budget,
    _Exhausted,
    _MaskArithmetic,
    _SetArithmetic,
    _sub_multisets,
)
from .reach_sets import _operand_sets as _operand_sets  # benchmarks/bench_solver.py reads it
from .reach_sets import clear_caches as clear_caches  # the memo's one door, as it always was
from .rules import MAX_NUMERATOR, RuleSet

# The largest-trick search (R8.2) grows exponentially with the table: past this many steps of
# work (pairs of reachable sets combined, or arithmetic steps of the tier 3 search) it stops
# looking for a larger trick and keeps the largest it has found, so a turn stays bounded.
# Counted in steps, not seconds, so that the same table always gives the same answer (R9.2).
BEST_BUDGET = 4_000


def _witness(arith: Arithmetic, ms: tuple[int, ...], v: Value) -> Node:
    """A tree of ("leaf", card value, named value) and ("op", ...) nodes that makes v from ms."""
    if len(ms) == 1:
        return ("leaf", ms[0], v)
    for a, b in _sub_multisets(ms):
        ra, rb = arith.reach(a), arith.reach(b)
        for sym, x, y, swapped in arith.pairs(ra, rb, v):
            left, right = (
                (_witness(arith, b, x), _witness(arith, a, y))
                if swapped
                else (
                    _witness(arith, a, x),
                    _witness(arith, b, y),
                )
            )
            if sym in "+*" and _size(right) > _size(left):
                # Same values either way; the bigger part first reads "8 - 5 + 6", not "6 + (8 - 5)".
                left, right = right, left
            return ("op", sym, left, right)
    raise AssertionError(f"no witness for {v} from {ms}")  # reach() said it was there


def _size(tree: Node) -> int:
    return 1 if tree[0] == "leaf" else _size(tree[2]) + _size(tree[3])


class _Table:
    """The cards one player may use: table then held cards, grouped by value."""

    def __init__(self, cards: Sequence[Any], held: Sequence[Any], rules: RuleSet) -> None:
        self.rules = rules
        self.values: list[CardValue | None] = card_values(list(cards)) + card_values(list(held))
        self.positions: dict[int, list[int]] = {}
        for position, value in enumerate(self.values):
            if value is None:
                continue
            self.positions.setdefault(X if value == "X" else value, []).append(position)
        self.counts = {v: len(p) for v, p in self.positions.items()}
        self.multiset = tuple(sorted(v for v, p in self.positions.items() for _ in p))

    def operation(self, tree: Node, result: int, result_value: Value) -> Operation:
        """Turns a witness tree into a checked Operation on concrete positions (R9.4)."""
        free = {v: list(p) for v, p in self.positions.items()}
        x_values: dict[int, int] = {}
        result_position = free[result].pop(0)
        if result == X:
            x_values[result_position] = int(result_value)

        def place(node: Node) -> Node:
            if node[0] == "op":
                return ("op", node[1], place(node[2]), place(node[3]))
            position = free[node[1]].pop(0)
            if node[1] == X:
                x_values[position] = int(node[2])
            return ("card", position)

        verdict = judge(place(tree), result_position, self.values, x_values, self.rules)
        if not verdict.ok or verdict.operation is None:  # a solver bug must never pass silently
            raise AssertionError(f"solver produced a refused operation: {verdict}")
        return verdict.operation


def _results_outside(table: _Table, operands: tuple[int, ...]) -> list[int]:
    """Card values still free to be the result once `operands` are used, X last."""
    used = Counter(operands)
    free = [v for v, c in table.counts.items() if c > used.get(v, 0)]
    return sorted(free, key=lambda v: (v == X, v))


def _first_match(arith: Arithmetic, table: _Table, operands: tuple[int, ...]) -> Operation | None:
    if isinstance(arith, _SetArithmetic) and len(operands) > 3:
        # Tier 3: ask for each possible result instead of building the whole reach set;
        # has() needs only the sets of the smaller parts (X results are handled elsewhere).
        for result in _results_outside(table, operands):
            if result != X and arith.has(operands, result):
                return table.operation(_witness(arith, operands, result), result, result)
        return None
    reach = arith.reach(operands)
    for result in _results_outside(table, operands):
        if result == X:
            values = arith.values(reach)
            # R3.4: X as the result may stand for any value the tier allows; prefer a small one.
            candidates = [
                v for v in values if type(v) is int and table.rules.x_low <= v <= table.rules.x_high
            ]
            if candidates:
                value = min(candidates, key=abs)
                return table.operation(_witness(arith, operands, value), X, value)
        elif arith.contains(reach, result):
            return table.operation(_witness(arith, operands, result), result, result)
    return None


# Tier 3 reach sets grow fast (twentyfold from 4 cards to 5; measured: benchmarks/README.md),
# so larger tricks are looked for by a bounded depth-first search instead.
_EXACT_TIER3_OPERANDS = 4
_DFS_BUDGET = 30_000  # arithmetic steps per search, a few tens of milliseconds


def _sorted_values(values: Any) -> list[Value]:
    """A deterministic order, small magnitudes first (they give the friendliest operations)."""
    return sorted(values, key=lambda v: (abs(v), v))


def _x_leaf(value: Value) -> Node:
    return ("leaf", X, value)


def _closing(arith: _SetArithmetic, e: Value, target: Value) -> Iterator[tuple[str, Value, bool]]:
    """Whole X values with `X sym e == target` (x_left) or `e sym X == target`."""
    for sym in arith.ops:
        candidates: list[tuple[Value, bool]] = []
        if sym == "+":
            candidates = [(target - e, True)]
        elif sym == "-":
            candidates = [(target + e, True), (e - target, False)]
        elif sym == "*":
            # X * 0 = 0 holds for any X; choose 0.
            candidates = [(normal(Fraction(target) / e), True)] if e else [(0, True)]
        elif sym == "/":
            candidates = [(normal(target * e), True)]
            # e / X = target: X = e / target, or any nonzero X when both are 0.
            candidates.append((normal(Fraction(e) / target), False) if target else (1, False))
        for x, x_left in candidates:
            if type(x) is int and abs(x) <= MAX_NUMERATOR:
                got = arith.apply(sym, x, e) if x_left else arith.apply(sym, e, x)
                if got == target:
                    yield sym, x, x_left


def _dfs(
    arith: _SetArithmetic,
    items: list[tuple[Value, Node]],
    target: Value | None,
    budget: list[int],
    failed: set[tuple[Any, ...]],
) -> Node | None:
    """Pick two, combine, repeat: finds big tier-3 operations fast when they exist."""
    if len(items) == 1:
        value = items[0][0]
        ok = type(value) is int if target is None else value == target
        return items[0][1] if ok else None
    key = tuple(sorted((item[0] for item in items), key=lambda v: (abs(v), v)))
    if key in failed or budget[0] < 0:
        return None
    for i in range(len(items)):
        for j in range(len(items)):
            if i == j:
                continue
            (a, ta), (b, tb) = items[i], items[j]
            rest = [item for k, item in enumerate(items) if k not in (i, j)]
            for sym in arith.ops:
                if i > j and sym in "+*":
                    continue  # commutative: the other order was tried
                budget[0] -= 1
                value = arith.apply(sym, a, b)
                if value is None:
                    continue
                found = _dfs(arith, [*rest, (value, ("op", sym, ta, tb))], target, budget, failed)
                if found is not None:
                    return found
                if budget[0] < 0:
                    return None
    failed.add(key)
    return None


def _tier3_dfs_options(
    arith: _SetArithmetic,
    operands: tuple[int, ...],
    free: list[int],
    n_x: int,
    budget: _Budget,
) -> Iterator[tuple[Node, int, Value]]:
    """_tier3_options past _EXACT_TIER3_OPERANDS: a bounded depth-first search per result."""
    items = [(v, ("leaf", v, v)) for v in operands]
    for result in free:
        steps = [_DFS_BUDGET]
        tree = _dfs(arith, list(items), result, steps, set())
        budget.spend((_DFS_BUDGET - steps[0]) // 100)
        if tree is not None:
            yield tree, result, result
    if n_x:
        steps = [_DFS_BUDGET]
        tree = _dfs(arith, list(items), None, steps, set())
        budget.spend((_DFS_BUDGET - steps[0]) // 100)
        if tree is not None:
            yield tree, X, _tree_value(arith, tree)


def _x_closing_options(
    arith: _SetArithmetic,
    operands: tuple[int, ...],
    reach: frozenset[Value],
    free: list[int],
) -> Iterator[tuple[Node, int, Value]]:
    """X as one side of the last step: "X / 3 = 7" with X = 21."""
    for result in free:
        for e in _sorted_values(reach):
            for sym, x, x_left in _closing(arith, e, result):
                sub = _witness(arith, operands, e)
                tree = ("op", sym, _x_leaf(x), sub) if x_left else ("op", sym, sub, _x_leaf(x))
                yield tree, result, result
                break


def _tier3_options(
    arith: _SetArithmetic,
    table: _Table,
    operands: tuple[int, ...],
    n_x: int,
    budget: _Budget = _UNBOUNDED,
) -> Iterator[tuple[Node, int, Value]]:
    """Operations on these concrete operands (plus X cards) as (tree, result card, value)."""
    size = len(operands)
    free = [v for v in _results_outside(table, operands) if v != X]
    if size > _EXACT_TIER3_OPERANDS:
        yield from _tier3_dfs_options(arith, operands, free, n_x, budget)
        return
    reach = arith.reach(operands) if operands else frozenset()
    if size >= 2:
        for result in free:
            if result in reach:
                yield _witness(arith, operands, result), result, result
        if n_x:
            whole = _sorted_values(v for v in reach if type(v) is int)
            if whole:
                yield _witness(arith, operands, whole[0]), X, whole[0]
    if size >= 1 and n_x:
        yield from _x_closing_options(arith, operands, reach, free)
    if size == 1 and n_x >= 2:
        yield ("leaf", operands[0], operands[0]), X, operands[0]  # padded below: "a + X = X"
    if size == 0 and n_x >= 2:
        for result in free:
            yield _x_leaf(result), result, result  # padded below: "X + X = 7"
        if n_x >= 3:
            yield _x_leaf(0), X, 0


def _tree_value(arith: _SetArithmetic, tree: Node) -> Value:
    if tree[0] == "leaf":
        return tree[2]
    a, b = _tree_value(arith, tree[2]), _tree_value(arith, tree[3])
    value = arith.apply(tree[1], a, b)
    assert value is not None
    return value


def _tier3_search(
    table: _Table,
    rules: RuleSet,
    largest: bool,
    sizes: Sequence[int] | range | None = None,
    budget: _Budget = _UNBOUNDED,
) -> Operation | None:
    """Tier 3 with X cards, and tier 3 largest tricks.

    At tiers 1-2 an X is searched exactly as "any value"; at tier 3 that set is too large to
    enumerate. An X is the result (any whole value), one side of the last step, or a neutral
    term (X=0 added, X=1 multiplied); every rule set has one of + - * / for the neutral term.
    These cover a 3-card operation whenever an X and two other cards lie on the table (R3.4),
    so "is there anything to do?" stays exact.
    """
    arith = _SetArithmetic(rules)
    n_x = table.counts.get(X, 0)
    concrete = tuple(v for v in table.multiset if v != X)
    neutral_sym, neutral = next(
        (sym, value)
        for sym, value in (("+", 0), ("-", 0), ("*", 1), ("/", 1))
        if sym in rules.operators
    )
    if sizes is None:
        sizes = range(len(concrete), -1, -1) if largest else range(0, len(concrete) + 1)
    else:
        # `sizes` counts every operand; the X cards among them are placed below.
        sizes = sorted({min(max(size - n_x, 0), len(concrete)) for size in sizes}, reverse=largest)
    for size in sizes:
        for operands in _operand_sets(concrete, size):
            budget.spend()
            for tree, result, value in _tier3_options(arith, table, operands, n_x, budget):
                x_in_tree = sum(1 for leaf in _leaves(tree) if leaf[1] == X)
                spare = n_x - x_in_tree - (1 if result == X else 0)
                if spare < 0:
                    continue
                # Neutral X terms: all spare X cards for the largest trick, else just enough.
                pad = spare if largest else max(0, 2 - len(_leaves(tree)))
                if pad > spare:
                    continue
                for _ in range(pad):
                    tree = ("op", neutral_sym, tree, _x_leaf(neutral))
                if tree[0] != "op":
                    continue
                return table.operation(tree, result, value)
    return None


def _leaves(tree: Node) -> list[Node]:
    if tree[0] == "leaf":
        return [tree]
    return _leaves(tree[2]) + _leaves(tree[3])


def find_operation(
    cards: Sequence[Any], rules: RuleSet, held: Sequence[Any] = ()
) -> Operation | None:
    """R4.3, R9.4: one correct operation with these cards, or None when there is nothing to do.

    Exact: None means no operation exists. Small operations are tried first, since a pair
    making a third card is by far the common case; `held` are the player's held cards (R7.4),
    whose positions follow the table's.
    """
    table = _Table(cards, held, rules)
    if len(table.multiset) < 3:
        return None
    if rules.tier == 3 and X in table.counts:
        return _tier3_search(table, rules, largest=False)
    arith = _arithmetic(rules)
    for size in range(2, len(table.multiset)):
        for operands in _operand_sets(table.multiset, size):
            found = _first_match(arith, table, operands)
            if found is not None:
                return found
    return None


def best_operation(
    cards: Sequence[Any],
    rules: RuleSet,
    held: Sequence[Any] = (),
    *,
    budget: int | None = BEST_BUDGET,
) -> Operation | None:
    """An operation winning as many cards as possible (hints, bots, the lesson of R5.6).

    Bounded: larger tricks are looked for first, within `budget` steps of work; when it runs
    out, the search keeps the largest trick it has found, going up from find_operation's.
    Either way the answer is None exactly when there is nothing to do (R9.4), and on tables
    of up to about ten cards (eight at tier 3) it is the largest trick there is.
    `budget=None` searches without bound.
    """
    table = _Table(cards, held, rules)
    if len(table.multiset) < 3:
        return None
    sizes = range(len(table.multiset) - 1, 1, -1)  # operands: every card but the result first
    try:
        return _largest_first(table, rules, sizes, _Budget(budget))
    except _Exhausted:
        pass
    found = find_operation(cards, rules, held)
    if found is None:
        return None
    step = _Budget(budget)
    for size in range(found.n_operands + 1, len(table.multiset)):
        try:
            larger = _largest_first(table, rules, [size], step)
        except _Exhausted:
            break
        if larger is not None and larger.n_cards > found.n_cards:
            found = larger
    return found


def _largest_first(
    table: _Table, rules: RuleSet, sizes: Sequence[int] | range, budget: _Budget
) -> Operation | None:
    """The first operation found with operand counts in `sizes`, tried in that order."""
    if rules.tier == 3:
        return _tier3_search(table, rules, largest=True, sizes=sizes, budget=budget)
    arith = _MaskArithmetic(rules, budget)
    for size in sizes:
        for operands in _operand_sets(table.multiset, size):
            found = _first_match(arith, table, operands)
            if found is not None:
                return found
    return None
