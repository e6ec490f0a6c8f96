"""Exact search for operations: "is there anything to do?", the largest trick, a target (R3, R9.4)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from functools import cache, lru_cache
from itertools import combinations, product
from math import gcd
from operator import itemgetter
from typing import Any, TypeVar

from .checker import Node, Value, card_values, judge
from .operations import CardValue, Operation
from .rules import MAX_DENOMINATOR, MAX_EXPONENT, MAX_NUMERATOR, RuleSet

X = -1  # an X card inside a multiset of card values (cards themselves are never negative)
# Memory bounds for the memo of a long-running server process: a tiers 1-2 entry is one int
# of at most 401 bits (~100 bytes); a tier 3 entry is a set of up to thousands of fractions,
# so that memo is bounded by the values it holds (~50 MB at most).
_CACHE_LIMIT = 200_000
_SET_VALUES_LIMIT = 500_000

# Reachable values of a multiset of cards, shared by every call with the same rules: tables
# repeat sub-multisets constantly, within one search and from one turn to the next.
_caches: dict[tuple[Any, ...], dict[tuple[int, ...], Any]] = {}
_set_values: dict[tuple[Any, ...], list[int]] = {}  # values held in each tier 3 memo


# The largest-trick search (R8.2) grows exponentially with the table: past this many steps of
# work (pairs of reachable sets combined, or arithmetic steps of the tier 3 search) it stops
# looking for a larger trick and keeps the largest it has found, so a turn stays bounded.
# Counted in steps, not seconds, so that the same table always gives the same answer (R9.2).
BEST_BUDGET = 4_000


class _Exhausted(Exception):
    """The work budget of a bounded search ran out."""


class _Budget:
    def __init__(self, steps: int | None) -> None:
        self.left = steps

    def spend(self, steps: int = 1) -> None:
        if self.left is not None:
            self.left -= steps
            if self.left < 0:
                raise _Exhausted


_UNBOUNDED = _Budget(None)


def _rules_key(rules: RuleSet) -> tuple[Any, ...]:
    return (rules.tier, rules.operators, rules.bound)


def clear_caches() -> None:
    """Forget every memoised reachable set (for benchmarks that want a cold start)."""
    _caches.clear()
    _set_values.clear()
    _key_sets.clear()
    _key_set_values[0] = 0


def _bits(mask: int) -> list[int]:
    """Positions of the 1 bits of a mask, lowest first."""
    text = bin(mask)[:1:-1]
    out: list[int] = []
    i = text.find("1")
    while i >= 0:
        out.append(i)
        i = text.find("1", i + 1)
    return out


def _sub_multisets(ms: tuple[int, ...]) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every split of a sorted multiset into two non-empty parts, each unordered pair once."""
    counts = sorted(Counter(ms).items())
    for choice in product(*(range(c + 1) for _, c in counts)):
        a: list[int] = []
        b: list[int] = []
        for (value, count), taken in zip(counts, choice, strict=True):
            a.extend([value] * taken)
            b.extend([value] * (count - taken))
        if a and b:
            ta, tb = tuple(a), tuple(b)
            if ta <= tb:
                yield ta, tb


class _MaskArithmetic:
    """Tiers 1-2: a set of whole numbers 0..bound is one Python int used as a bit set."""

    def __init__(self, rules: RuleSet, budget: _Budget = _UNBOUNDED) -> None:
        self.rules = rules
        self.bound = int(rules.bound or 0)
        self.full = (1 << (self.bound + 1)) - 1
        self.ops = rules.operators or ""
        self.cache = _caches.setdefault(_rules_key(rules), {})
        self.budget = budget

    def leaf(self, value: int) -> int:
        # R3.4: an X card may stand for any whole number the tier allows.
        return self.full if value == X else 1 << value

    def reach(self, ms: tuple[int, ...]) -> int:
        """Every value the cards of `ms` make, all of them used, intermediates in bounds."""
        cache = self.cache
        found = cache.get(ms)
        if found is not None:
            return found
        if len(ms) == 1:
            mask = self.leaf(ms[0])
        else:
            mask = 0
            for a, b in _sub_multisets(ms):
                ra, rb = self.reach(a), self.reach(b)
                self.budget.spend()
                mask |= self.combine(ra, rb)
                if mask == self.full:
                    break
        if len(cache) > _CACHE_LIMIT:
            cache.clear()
        cache[ms] = mask
        return mask

    def combine(self, ma: int, mb: int) -> int:
        bound, ops = self.bound, self.ops
        la, lb = _bits(ma), _bits(mb)
        out = 0
        if "+" in ops:
            if len(la) <= len(lb):
                for a in la:
                    out |= mb << a
            else:
                for b in lb:
                    out |= ma << b
        if "-" in ops:
            # Shifting right drops what would go below zero: those results are not allowed.
            for b in lb:
                out |= ma >> b
            for a in la:
                out |= mb >> a
        if "*" in ops:
            small, other = (la, mb) if len(la) <= len(lb) else (lb, ma)
            for a in small:
                if a == 0:
                    out |= 1
                    continue
                for b in _bits(other & ((2 << (bound // a)) - 1)):
                    out |= 1 << (a * b)
        if "/" in ops:
            for num_mask, num_bits, den_bits in ((ma, la, lb), (mb, lb, la)):
                for d in den_bits:
                    if d == 0:
                        continue
                    if d == 1:
                        out |= num_mask
                    elif len(num_bits) < bound // d:
                        for n in num_bits:
                            if n % d == 0:
                                out |= 1 << (n // d)
                    else:
                        for k in range(bound // d + 1):
                            if num_mask >> (k * d) & 1:
                                out |= 1 << k
        return out & self.full

    def contains(self, reach: int, value: Value) -> bool:
        return type(value) is int and 0 <= value <= self.bound and bool(reach >> value & 1)

    def values(self, reach: int) -> list[int]:
        return _bits(reach)

    def pairs(self, ma: int, mb: int, v: int) -> Iterator[tuple[str, int, int, bool]]:
        """Ways to make v from one value of each side: (operator, a, b, swapped)."""
        bound, ops = self.bound, self.ops
        for a in _bits(ma):
            if "+" in ops and 0 <= v - a <= bound and mb >> (v - a) & 1:
                yield "+", a, v - a, False
            if "-" in ops:
                if 0 <= a - v and mb >> (a - v) & 1:
                    yield "-", a, a - v, False
                if v + a <= bound and mb >> (v + a) & 1:
                    yield "-", v + a, a, True
            if "*" in ops:
                if a == 0 and v == 0 and mb:
                    yield "*", a, _bits(mb)[0], False
                elif a and v % a == 0 and mb >> (v // a) & 1:
                    yield "*", a, v // a, False
            if "/" in ops:
                if v and a % v == 0 and a // v and mb >> (a // v) & 1:
                    yield "/", a, a // v, False
                elif a == 0 and v == 0 and mb >> 1:
                    yield "/", 0, _bits(mb >> 1)[0] + 1, False  # 0 / b = 0 for any b but 0
                if a and v * a <= bound and mb >> (v * a) & 1:
                    yield "/", v * a, a, True


def _normal(value: Value) -> Value:
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    return value


def _in_bounds(value: Value) -> bool:
    if isinstance(value, Fraction):
        return abs(value.numerator) <= MAX_NUMERATOR and value.denominator <= MAX_DENOMINATOR
    return abs(value) <= MAX_NUMERATOR


class _SetArithmetic:
    """Tier 3: sets of exact fractions (ints where whole, which keeps the common case fast)."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.ops = rules.operators or ""
        self.cache = _caches.setdefault(_rules_key(rules), {})
        self.held_values = _set_values.setdefault(_rules_key(rules), [0])

    def apply(self, sym: str, a: Value, b: Value) -> Value | None:
        if sym == "+":
            value: Value = a + b
        elif sym == "-":
            value = a - b
        elif sym == "*":
            value = a * b
        elif sym == "/":
            if b == 0:
                return None
            if type(a) is int and type(b) is int:
                value = a // b if a % b == 0 else Fraction(a, b)
            else:
                value = _normal(Fraction(a) / b)
        else:
            if type(b) is not int or not 0 <= b <= MAX_EXPONENT or (a == 0 and b == 0):
                return None
            if b > 1 and abs(a) > 1 and (abs(Fraction(a).numerator) > 21 and b > 3):
                return None  # |a| > 21 and b > 3 already exceeds 10,000: skip the power
            value = _normal(a**b) if isinstance(a, Fraction) else a**b
        return value if _in_bounds(value) else None

    def reach(self, ms: tuple[int, ...]) -> frozenset[Value]:
        cache = self.cache
        found = cache.get(ms)
        if found is not None:
            return found
        if len(ms) == 1:
            result = frozenset((ms[0],))
        else:
            out: set[Value] = set()
            for a, b in _sub_multisets(ms):
                self._combine_into(out, self.reach(a), self.reach(b))
            result = frozenset(out)
        self.held_values[0] += len(result)
        if len(cache) > _CACHE_LIMIT or self.held_values[0] > _SET_VALUES_LIMIT:
            cache.clear()
            self.held_values[0] = len(result)
        cache[ms] = result
        return result

    def _combine_into(self, out: set[Value], ra: frozenset[Value], rb: frozenset[Value]) -> None:
        """Adds every `x sym y` and `y sym x` in bounds; whole pairs without a Fraction."""
        ops, apply = self.ops, self.apply
        plus, minus, times, divide = "+" in ops, "-" in ops, "*" in ops, "/" in ops
        power = "^" in ops
        whole_b = [y for y in rb if type(y) is int]
        frac_b = [y for y in rb if type(y) is not int]
        add = out.add
        for x in ra:
            if type(x) is int:
                for y in whole_b:
                    if plus and -MAX_NUMERATOR <= x + y <= MAX_NUMERATOR:
                        add(x + y)
                    if minus and -MAX_NUMERATOR <= x - y <= MAX_NUMERATOR:
                        add(x - y)
                        add(y - x)
                    if times and -MAX_NUMERATOR <= x * y <= MAX_NUMERATOR:
                        add(x * y)
                    if divide:
                        for n, d in ((x, y), (y, x)):
                            if d:
                                if n % d == 0:
                                    add(n // d)
                                else:
                                    f = Fraction(n, d)  # |n| <= 10,000 already
                                    if f.denominator <= MAX_DENOMINATOR:
                                        add(f)
                    if power:
                        for base, e in ((x, y), (y, x)):
                            v = apply("^", base, e)
                            if v is not None:
                                add(v)
                others = frac_b
            else:
                others = rb  # type: ignore[assignment]
            for y in others:
                for sym in ops:
                    v = apply(sym, x, y)
                    if v is not None:
                        add(v)
                    if sym in "-/^":
                        v = apply(sym, y, x)
                        if v is not None:
                            add(v)

    def contains(self, reach: frozenset[Value], value: Value) -> bool:
        return value in reach

    def values(self, reach: frozenset[Value]) -> list[Value]:
        return list(reach)

    def pairs(
        self, ra: frozenset[Value], rb: frozenset[Value], v: Value
    ) -> Iterator[tuple[str, Value, Value, bool]]:
        for a in ra:
            for b in rb:
                for sym in self.ops:
                    if self.apply(sym, a, b) == v:
                        yield sym, a, b, False
                    if sym in "-/^" and self.apply(sym, b, a) == v:
                        yield sym, b, a, True

    def has(self, ms: tuple[int, ...], target: Value) -> bool:
        """Goal-directed `target in reach(ms)`: only the parts' sets are needed."""
        if len(ms) == 1:
            return ms[0] == target
        for a, b in _sub_multisets(ms):
            ra, rb = self.reach(a), self.reach(b)
            if len(ra) > len(rb):
                ra, rb = rb, ra
            for x in ra:
                # target = x op y, or y op x: the y each operator would need.
                for sym in self.ops:
                    if sym == "+":
                        needed: list[Value | None] = [target - x]
                    elif sym == "-":
                        needed = [x - target, target + x]
                    elif sym == "*":
                        needed = (
                            [_normal(Fraction(target) / x)]
                            if x
                            else ([] if target else [next(iter(rb))])
                        )
                    elif sym == "/":
                        needed = [
                            _normal(Fraction(x) / target) if target else None,
                            _normal(target * x),
                        ]
                        if x == 0 and target == 0:
                            # 0 / y = 0 for every y but 0, which x / y = target cannot solve for.
                            needed.append(next((y for y in rb if y != 0), None))
                    else:
                        needed = [
                            b2
                            for b2 in rb
                            if self.apply(sym, x, b2) == target or self.apply(sym, b2, x) == target
                        ]
                    for y in needed:
                        if y is not None and y in rb and self._checks(sym, x, y, target):
                            return True
        return False

    def _checks(self, sym: str, x: Value, y: Value, target: Value) -> bool:
        return self.apply(sym, x, y) == target or self.apply(sym, y, x) == target


Arithmetic = _MaskArithmetic | _SetArithmetic


def _arithmetic(rules: RuleSet) -> Arithmetic:
    return _SetArithmetic(rules) if rules.tier == 3 else _MaskArithmetic(rules)


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


def _operand_sets(multiset: tuple[int, ...], size: int) -> Iterator[tuple[int, ...]]:
    seen: set[tuple[int, ...]] = set()
    for combo in combinations(multiset, size):
        if combo not in seen:
            seen.add(combo)
            yield combo


# Tier 3 reach sets grow fast (4 cards: ~1,000 values in ~10 ms; 5 cards: ~20,000 in ~0.4 s),
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
            candidates = [(_normal(Fraction(target) / e), True)] if e else [(0, True)]
        elif sym == "/":
            candidates = [(_normal(target * e), True)]
            # e / X = target: X = e / target, or any nonzero X when both are 0.
            candidates.append((_normal(Fraction(e) / target), False) if target else (1, False))
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
        # X as one side of the last step: "X / 3 = 7" with X = 21.
        for result in free:
            for e in _sorted_values(reach):
                for sym, x, x_left in _closing(arith, e, result):
                    sub = _witness(arith, operands, e)
                    tree = ("op", sym, _x_leaf(x), sub) if x_left else ("op", sym, sub, _x_leaf(x))
                    yield tree, result, result
                    break
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


def can_make(operands: Sequence[Any], target: int, rules: RuleSet, use_all: bool = False) -> bool:
    """Whether `target` (a whole number) can be made from at least two of the operands.

    Exact (R2.2, R3.4, R9.4): every intermediate result meets the tier, and an X operand
    stands for any whole value the tier allows an X card (0 to the bound at tiers 1-2,
    |X| <= 10,000 at tier 3), each X its own. With `use_all`, every operand must be used
    (the 24 game). A target outside the tier's numbers can never be made.

    Cost: at tiers 1-2 every intermediate is a whole number 0..bound, so bit sets of every
    sub-multiset answer it (tens of ms on eight operands). At tier 3 without / no step makes
    a fraction, so the whole-step bit sets over -10,000..10,000 are the whole answer there
    too, and a negative target without - or X is a "no" at once. With / (and no X) the exact
    fraction search on int keys (p * 1024 + q, no Fraction) answers alone: sets of up to
    four cards built whole, and for more cards sets of wanted keys pushed from each
    sub-multiset to its large parts and met with the small parts' sets (_propagate), each
    step a comprehension over value windows found by bisection and a set operation. Without
    use_all it is one search in which every card may be left out, not one per subset; with
    use_all a 0 card (with - and / or *, no ^) makes it that search on the other cards. With
    X cards the bit sets answer most "yes" and the goal-directed _Tier3Target the rest. It
    is not proved bounded: on 8 random operands over every operator set the median is ~3 ms,
    p95 ~30 ms, p99 ~55 ms, the worst found ~0.1 s (19 times the benchmark's yardstick), a
    large target with "+-/" and cards left out (benchmarks/bench_solver.py measures it).
    """
    values = [v for v in card_values(list(operands)) if v is not None]
    if len(values) < 2 or type(target) is not int:
        return False
    if rules.tier < 3 and not 0 <= target <= int(rules.bound or 0):
        return False
    if rules.tier == 3 and abs(target) > MAX_NUMERATOR:
        return False
    ms = tuple(sorted(X if v == "X" else v for v in values))  # type: ignore[misc]
    sizes = [len(ms)] if use_all else range(2, len(ms) + 1)
    if target < 0 and "-" not in (rules.operators or "") and all(v != X and v >= 0 for v in ms):
        return False  # + * / ^ on numbers >= 0 never go below 0 (an X could)
    keys_alone = len(ms) <= _KEYS_ALONE and X not in ms and "/" in (rules.operators or "")
    if rules.tier == 3 and keys_alone and 0 in ms and _zero_absorbs(rules):
        # A 0 card: some part of the rest makes |target| (R2.2), with use_all or not.
        rest = ms[1:]  # sorted: the first card is a 0
        if target == 0 or abs(target) in rest:
            return True
        return len(rest) >= 2 and _Tier3Keys(rules).makes(rest, abs(target), some=True)
    if rules.tier == 3 and keys_alone:
        # Fractions possible: the exact search on int keys answers it all, whole steps
        # included. A bit-set pass first would find some "yes" sooner but builds every
        # sub-multiset's set, 0.1-0.25 s on a "no" on 8 cards. On more cards the bit sets go
        # first: they find most "yes" in milliseconds, where the key search would build
        # whole sets of five cards (splits into two parts of five or more).
        return _Tier3Keys(rules).makes(ms, target, some=not use_all)
    if all(v == X or rules.x_low <= v <= rules.x_high for v in ms):
        # Whole intermediates: the whole answer at tiers 1-2, and every "yes" found with
        # whole steps at tier 3 (most of them), in a few big-int operations per value.
        # Larger subsets first: their balanced splits need only small parts' sets and make
        # the most values, so a "yes" comes after a few of them; once the whole multiset has
        # said no, every smaller one is a set already built (has() looks it up).
        whole = _WholeReach(rules)
        if any(
            whole.has(subset, target)
            for size in sorted(sizes, reverse=True)
            for subset in _operand_sets(ms, size)
        ):
            return True
        if rules.tier < 3 or "/" not in (rules.operators or ""):
            # Without / no step makes a fraction (a power's exponent is whole, R2.2), so the
            # whole-number bit sets were already the whole answer.
            return False
    if rules.tier == 3:
        if X not in ms:
            return _Tier3Keys(rules).makes(ms, target, some=not use_all)
        search = _Tier3Target(rules)
        return any(
            search.has(subset, target) for size in sizes for subset in _operand_sets(ms, size)
        )
    arith = _MaskArithmetic(rules)
    for size in sizes:
        for subset in _operand_sets(ms, size):
            if arith.contains(arith.reach(subset), target):
                return True
    return False


_KEYS_ALONE = 8  # tier 3 with /: up to this many cards the key search answers alone


def _zero_absorbs(rules: RuleSet) -> bool:
    """Whether, at tier 3 (cards >= 0, no X), a 0 card together with cards R makes t != 0
    (with every card used or not) exactly when some non-empty part of R makes |t| (a single
    card of R included); and 0 always. True with + - and / (or *), without ^ (s ^ 0 = 1
    would put a 1 in place of a part).

    If: with R' a part of R making v = t or -t and S the rest, S is left out or, with every
    card used, absorbed by z = 0 / sum(S) = 0 (or the 0 plus S's cards when they are all 0),
    and R' + z = v, z - R' = -v. Only if (a tree without the 0 is a part of R already):
    the 0 leaf's parent is 0 (0 * w, 0 / w: a larger 0 absorbing w's cards) or +-w
    (w + 0, w - 0, 0 - w); once it is +-w, a negated part either cancels at the next step
    (u + (-w) = u - w, u - (-w) = u + w) or carries up (-w - u = -(w + u), (-w) * u,
    (-w) / u, u / (-w)), so what is left of R makes t or -t. With - and cards >= 0, a part
    that makes a negative value makes its opposite too (_Tier3Keys._propagate), so t or
    -t is |t|."""
    ops = rules.operators or ""
    return "-" in ops and ("/" in ops or "*" in ops) and "^" not in ops


_ANY, _ANY_NONZERO = "any", "any_nonzero"  # "some value" / "some value but 0" is needed
_MATERIALISE = 4  # tier 3 reach sets up to this many cards are built whole (~1,000 values)


def _rational_root(value: Value, n: int) -> list[Value]:
    """The rational y with y ** n == value (n >= 1): none, one, or two of opposite signs."""
    f = Fraction(value)
    roots: list[Value] = []
    if f < 0 and n % 2 == 0:
        return roots
    num, den = abs(f.numerator), f.denominator

    def iroot(k: int) -> int | None:
        r = round(k ** (1.0 / n)) if k else 0
        for c in (r - 1, r, r + 1):
            if c >= 0 and c**n == k:
                return c
        return None

    rn, rd = iroot(num), iroot(den)
    if rn is None or rd is None:
        return roots
    root = _normal(Fraction(rn, rd))
    roots.append(-root if f < 0 else root)
    if n % 2 == 0 and root != 0:
        roots.append(-root)
    return roots


class _Tier3Target:
    """Tier 3, goal-directed: "can these cards make t?" without building every reach set.

    At each split of the cards into two parts, the part without X (the smaller one when
    neither has X) is enumerated and the value the other part would need is asked for
    recursively. An X alone makes exactly the whole numbers of its range (R3.4), so an X
    that must be divided or raised to a power is found like any other operand.
    """

    def __init__(self, rules: RuleSet) -> None:
        self.arith = _SetArithmetic(rules)
        self.rules = rules
        self.ops = rules.operators or ""
        self.memo: dict[tuple[tuple[int, ...], Value], bool] = {}
        self.keys = _Tier3Keys(rules)

    def has(self, ms: tuple[int, ...], target: Value | str) -> bool:
        if target == _ANY or target == _ANY_NONZERO:
            return self._some(ms, nonzero=target == _ANY_NONZERO)
        key = (ms, target)  # type: ignore[assignment]
        found = self.memo.get(key)
        if found is None:
            found = self._has(ms, target)
            self.memo[key] = found  # type: ignore[index]
        return found

    def _x_fits(self, value: Value) -> bool:
        return type(value) is int and self.rules.x_low <= value <= self.rules.x_high

    def _some(self, ms: tuple[int, ...], nonzero: bool) -> bool:
        """Whether the cards make some value (some value but 0)."""
        if X in ms:
            # X + (the rest) takes any whole value near the rest's: some nonzero one among them.
            return True if len(ms) == 1 else any(self.has(ms, v) for v in (1, -1, 2))
        if len(ms) <= _MATERIALISE:
            return (
                any(v != 0 for v in self.keys.values(ms)) if nonzero else bool(self.keys.values(ms))
            )
        return any(self.has(ms, v) for v in (*([0] if not nonzero else []), *range(1, 40)))

    def _has(self, ms: tuple[int, ...], t: Value) -> bool:
        if not _in_bounds(t):
            return False
        if len(ms) == 1:
            return self._x_fits(t) if ms[0] == X else ms[0] == t
        n_x = ms.count(X)
        if n_x == 0:
            return self._has_cards(ms, t)
        concrete = [v for v in ms if v != X]
        if n_x >= 2 and type(t) is int and sum(abs(v) for v in concrete) <= MAX_NUMERATOR:
            # (S + X1) + X2 = t with S the sum of the other cards, X1 = -S and X2 = t: every
            # partial sum stays within |S| (R3.4: each X its own value).
            return True
        splits = []
        for a, b in _balanced_splits(ms):
            xa, xb = X in a, X in b
            if xa and xb:
                # Only with two X cards and |cards| summing above 10,000 (never with cards).
                continue
            if xa or (not xb and len(a) > len(b)):
                a, b = b, a  # a: the part enumerated, without X
            splits.append((len(a) > _MATERIALISE, len(a), a, b))
        splits.sort(key=lambda item: (item[0], item[1]))
        for large, _size, a, b in splits:
            if large and all(v >= 0 for v in a) and sum(a) <= MAX_NUMERATOR:
                # A large part is enumerated last and its plain sum tried first: X + S = t.
                if any(self._closes(sum(a), b, t)):
                    return True
            for e in self.keys.values(a):
                if any(self._closes(e, b, t)):
                    return True
        return False

    def _wanted(self, e: Value, t: Value) -> Iterator[tuple[Value | str, str, bool]]:
        """Each (y, operator, e on the left) with `e sym y` or `y sym e` equal to t."""
        apply = self.arith.apply
        for sym in self.ops:
            wanted: list[tuple[Value | str, bool]] = []  # (y, e on the left)
            if sym == "+":
                wanted = [(t - e, True)]
            elif sym == "-":
                wanted = [(e - t, True), (t + e, False)]
            elif sym == "*":
                wanted = (
                    [(_normal(Fraction(t) / e), True)] if e else ([(_ANY, True)] if t == 0 else [])
                )
            elif sym == "/":
                if t:
                    wanted.append((_normal(Fraction(e) / t), True))
                elif e == 0:
                    wanted.append((_ANY_NONZERO, True))
                if e:
                    wanted.append((_normal(t * Fraction(e)), False))
            else:
                wanted = [(y, True) for y in _exponents(e, t)]
                if type(e) is int and 0 <= e <= MAX_EXPONENT:
                    if e == 0:
                        wanted += [(_ANY_NONZERO, False)] if t == 1 else []
                    else:
                        wanted += [(y, False) for y in _rational_root(t, e)]
            for y, e_left in wanted:
                if isinstance(y, str):
                    yield y, sym, e_left
                    continue
                if not _in_bounds(y):
                    continue
                # y was solved for exactly: only "e / 0" and powers need the step checked.
                if sym == "/" and e_left and y == 0:
                    continue
                if sym == "^" and (apply(sym, e, y) if e_left else apply(sym, y, e)) != t:
                    continue
                yield y, sym, e_left

    def _closes(self, e: Value, rest: tuple[int, ...], t: Value) -> Iterator[bool]:
        """For each way `e sym y` or `y sym e` equals t: whether `rest` makes that y."""
        for y, _sym, _e_left in self._wanted(e, t):
            yield self.has(rest, y)

    def _has_cards(self, ms: tuple[int, ...], t: Value) -> bool:
        """`t in reach(ms)` for cards without X: the int-key search."""
        key = _value_key(t)
        return key is not None and self.keys.has(ms, key)


# --- can_make: whole-number reach sets as bit sets (R2.2, R3.4) ------------------------------


def _exponents(e: Value, t: Value) -> list[int]:
    """The whole y from 0 to 10 with e ** y == t (0 ** 0 has no value): powers of e in turn,
    stopping once one leaves the bounds (the next ones only grow further)."""
    if e == 0:
        return list(range(1, MAX_EXPONENT + 1)) if t == 0 else []
    out: list[int] = []
    power: Value = 1
    for y in range(MAX_EXPONENT + 1):
        if power == t:
            out.append(y)
        if e in (1, -1):
            power = power * e
            continue
        power = (
            _normal(power * e)
            if isinstance(power, Fraction) or isinstance(e, Fraction)
            else power * e
        )
        if not _in_bounds(power):
            break
    return out


class _WholeReach:
    """Every whole value a multiset of operands makes with whole intermediates, as a bit set.

    Value v is bit v - lo of one Python int over lo..hi: 0..bound at tiers 1-2 (exactly the
    tier's numbers, so this is the whole answer there), -10,000..10,000 at tier 3 (there it
    is the operations whose intermediates are all whole: each is correct (R2.2), so a target
    found here is made; fractions are left to _Tier3Target). An X operand is every whole
    value of its range (R3.4), each X its own. Sets are combined by shifts for + and -,
    by spreading a binary string for x a (multiples) and by slicing it for / d (quotients),
    so a step costs a few big-int operations per value of the smaller side.
    """

    def __init__(self, rules: RuleSet) -> None:
        self.ops = rules.operators or ""
        self.lo, self.hi = (rules.x_low, rules.x_high)
        self.off = -self.lo
        self.width = self.hi - self.lo + 1
        self.full = (1 << self.width) - 1
        self.memo: dict[tuple[int, ...], int] = {}
        self.mirrors: dict[int, int] = {}

    # Bit-set helpers: `m` holds value v at bit v + off.
    def values(self, m: int) -> list[int]:
        if not m:
            return []
        low = (m & -m).bit_length() - 1
        base = low - self.off
        return [b + base for b in _bits(m >> low)]

    def has_value(self, m: int, v: int) -> bool:
        return self.lo <= v <= self.hi and bool(m >> (v + self.off) & 1)

    def _shift(self, m: int, k: int) -> int:
        return (m << k) & self.full if k >= 0 else m >> -k

    def _mirror(self, m: int) -> int:
        """Value v to hi + lo - v (-v at tier 3): the bytes reversed, and each byte's bits."""
        found = self.mirrors.get(m)
        if found is None:
            n = (self.width + 7) // 8
            found = int.from_bytes(m.to_bytes(n, "little").translate(_BIT_REVERSED), "big")
            found >>= n * 8 - self.width
            if len(self.mirrors) > 4_096:
                self.mirrors.clear()
            self.mirrors[m] = found
        return found

    def _halves(self, m: int) -> tuple[int, int]:
        """(values >= 0 at bit v, values <= 0 at bit -v)."""
        off = self.off
        if off == 0:
            return m, 0
        return m >> off, self._mirror(m) >> off

    def leaf(self, value: int) -> int:
        if value == X:
            return self.full
        return 1 << (value + self.off) if self.lo <= value <= self.hi else 0

    def reach(self, ms: tuple[int, ...]) -> int:
        found = self.memo.get(ms)
        if found is not None:
            return found
        if len(ms) == 1:
            mask = self.leaf(ms[0])
        else:
            mask = 0
            for a, b in _balanced_splits(ms):
                mask |= self.combine(self.reach(a), self.reach(b), mask)
                if mask == self.full:
                    break
        self.memo[ms] = mask
        return mask

    def combine(self, ma: int, mb: int, have: int = 0) -> int:
        """Every `a op b` and `b op a`, a from ma and b from mb, within lo..hi."""
        if not ma or not mb:
            return 0
        full, off, hi, lo, ops = self.full, self.off, self.hi, self.lo, self.ops
        one, zero = 1 << (1 + off), 1 << off
        # Two large sets: x + 0, x * 1, x / 1, x ^ 1 already give the whole of the larger.
        if ma.bit_count() > mb.bit_count():
            ma, mb = mb, ma
        la = self.values(ma)
        out = have
        # x + 0 and x * 1 (or x / 1, x ^ 1) need no loop, and two X cards make everything.
        unit = (zero if "+" in ops or "-" in ops else 0) | (one if set(ops) & set("*/^") else 0)
        if mb & unit:
            out |= ma
        if ma & unit:
            out |= mb
        if out == full:
            return out
        mirror_b = self._mirror(mb) if "-" in ops else 0  # bit of b at hi + lo - b
        if "+" in ops:
            for a in la:
                out |= self._shift(mb, a)
                if out == full:
                    return out
        if "-" in ops:
            mirror_shift = hi + lo
            for a in la:
                out |= self._shift(mb, -a) | self._shift(mirror_b, a - mirror_shift)  # b-a, a-b
            if out == full:
                return out
        pos_acc = neg_acc = 0  # products and quotients: >= 0 at bit v, < 0 at bit -v
        if "*" in ops or "/" in ops:
            pb, nb = self._halves(mb)
            pb_text = format(pb, "b")
            nb_text = format(nb, "b") if off else ""
        if "*" in ops:
            for a in la:
                if a == 0:
                    out |= zero
                    continue
                k = abs(a)
                w = (hi if a > 0 else -lo) // k  # |b| <= w keeps a * b in range
                window = (2 << w) - 1
                p, n = pb & window, nb & window
                if k == 1:
                    sp, sn = p, n
                else:
                    sep = "0" * (k - 1)
                    sp = int(sep.join(format(p, "b")), 2) if p else 0
                    sn = int(sep.join(format(n, "b")), 2) if n else 0
                if a > 0:
                    pos_acc |= sp
                    neg_acc |= sn
                else:
                    pos_acc |= sn
                    neg_acc |= sp
        if "/" in ops:
            pb_low = pb_text[::-1]
            nb_low = nb_text[::-1]
            for a in la:
                # b / a: every multiple of a in mb, divided by it.
                if a:
                    k = abs(a)
                    qp = int(pb_low[::k][::-1], 2) if pb else 0
                    qn = int(nb_low[::k][::-1], 2) if nb else 0
                    if a > 0:
                        pos_acc |= qp
                        neg_acc |= qn
                    else:
                        pos_acc |= qn
                        neg_acc |= qp
                # a / b: b divides a.
                if a == 0:
                    if mb & ~zero:
                        out |= zero
                    continue
                for d in _divisors(abs(a)):
                    for b in (d, -d):
                        if lo <= b <= hi and mb >> (b + off) & 1:
                            q = a // b
                            if lo <= q <= hi:
                                out |= 1 << (q + off)
        if "^" in ops:
            exps = [e for e in range(MAX_EXPONENT + 1) if e <= hi and mb >> (e + off) & 1]
            for a in la:
                # a ^ b
                for e in exps:
                    if a == 0 and e == 0:
                        continue
                    v = a**e
                    if lo <= v <= hi:
                        out |= 1 << (v + off)
                    elif abs(a) > 1:
                        break  # larger exponents only grow
                # b ^ a
                if 0 <= a <= MAX_EXPONENT:
                    if a == 0:
                        if mb & ~zero:
                            out |= one
                    elif a == 1:
                        out |= mb
                    else:
                        r = _iroot_floor(max(hi, -lo), a)
                        span = (
                            mb >> max(0, off - r) & ((1 << (2 * r + 1)) - 1)
                            if off
                            else mb & ((2 << r) - 1)
                        )
                        base = -min(r, off)
                        for b in _bits(span):
                            v = (b + base) ** a
                            if lo <= v <= hi:
                                out |= 1 << (v + off)
        if pos_acc or neg_acc:
            out |= (pos_acc & ((2 << hi) - 1)) << off
            if off:
                neg_acc &= (2 << off) - 1
                out |= self._mirror(neg_acc << off)
        return out & full

    def has(self, ms: tuple[int, ...], t: int) -> bool:
        """Goal-directed `t in reach(ms)`: only the parts' sets are built (largest parts last)."""
        if not self.lo <= t <= self.hi:
            return False
        if len(ms) == 1:
            return self.has_value(self.reach(ms), t)
        found = self.memo.get(ms)
        if found is not None:
            return bool(found >> (t + self.off) & 1)
        for a, b in _balanced_splits(ms):
            ma, mb = self.reach(a), self.reach(b)
            if self._closes(ma, mb, t):
                return True
        return False

    def _closes(self, ma: int, mb: int, t: int) -> bool:
        if not ma or not mb:
            return False
        if ma.bit_count() > mb.bit_count():
            ma, mb = mb, ma
        ops, lo, hi = self.ops, self.lo, self.hi
        has = self.has_value
        nonzero_b = bool(mb & ~(1 << self.off)) if self.lo <= 0 else bool(mb)
        for a in self.values(ma):
            if "+" in ops and has(mb, t - a):
                return True
            if "-" in ops and (has(mb, a - t) or has(mb, t + a)):
                return True
            if "*" in ops:
                if a == 0:
                    if t == 0:
                        return True
                elif t % a == 0 and has(mb, t // a):
                    return True
            if "/" in ops:
                if a and lo <= t * a <= hi and has(mb, t * a):  # b / a = t
                    return True
                if t == 0:
                    if a == 0 and nonzero_b:  # 0 / b = 0
                        return True
                elif a % t == 0 and a // t and has(mb, a // t):  # a / b = t
                    return True
            if "^" in ops:
                for e in range(MAX_EXPONENT + 1):
                    if has(mb, e) and not (a == 0 and e == 0):
                        if (abs(a) <= 100 or e <= 1) and a**e == t:
                            return True
                if 0 <= a <= MAX_EXPONENT:
                    if a == 0:
                        if t == 1 and nonzero_b:
                            return True
                    elif any(has(mb, r) for r in _int_roots(t, a)):
                        return True
        return False


@lru_cache(maxsize=8_192)
def _balanced_splits(ms: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """_sub_multisets(ms), the most even splits first (their parts are the cheapest sets)."""
    pickers = _split_pickers(len(ms))
    if len(set(ms)) == len(ms):
        # Distinct sorted cards compare as their positions do: the order of the positions'
        # splits is theirs, and no two splits are the same.
        return tuple((pick_a(ms), pick_b(ms)) for pick_a, pick_b in pickers)
    seen: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
    for pick_a, pick_b in pickers:
        a, b = pick_a(ms), pick_b(ms)
        seen.add((a, b) if a <= b else (b, a))
    return tuple(sorted(seen, key=lambda ab: (max(len(ab[0]), len(ab[1])), ab)))


_Picker = Callable[[tuple[int, ...]], tuple[int, ...]]


@cache
def _split_pickers(n: int) -> tuple[tuple[_Picker, _Picker], ...]:
    """For each split of n positions into two non-empty parts, each pair once, a function
    taking each part's cards out of an n-tuple: in _balanced_splits' order for n distinct
    sorted cards (the smaller part, as positions, first; the most even splits first)."""

    def picker(positions: tuple[int, ...]) -> _Picker:
        if len(positions) == 1:
            i = positions[0]
            return lambda ms: (ms[i],)
        return itemgetter(*positions)  # a tuple for two positions or more

    splits = set()
    for mask in range(1, 1 << (n - 1)):  # the last position always on the right
        left = tuple(i for i in range(n) if mask >> i & 1)
        right = tuple(i for i in range(n) if not mask >> i & 1)
        splits.add((left, right) if left <= right else (right, left))
    ordered = sorted(splits, key=lambda ab: (max(len(ab[0]), len(ab[1])), ab))
    return tuple((picker(a), picker(b)) for a, b in ordered)


_BIT_REVERSED = bytes(int(f"{i:08b}"[::-1], 2) for i in range(256))


@cache
def _divisors(n: int) -> tuple[int, ...]:
    """The positive divisors of n > 0."""
    small, large = [], []
    d = 1
    while d * d <= n:
        if n % d == 0:
            small.append(d)
            if d * d != n:
                large.append(n // d)
        d += 1
    return (*small, *large[::-1])


def _iroot_floor(n: int, k: int) -> int:
    r = int(round(n ** (1.0 / k)))
    while r**k > n:
        r -= 1
    while (r + 1) ** k <= n:
        r += 1
    return r


def _int_roots(t: int, k: int) -> list[int]:
    """The whole r with r ** k == t (k >= 1)."""
    if k == 1:
        return [t]
    if t < 0 and k % 2 == 0:
        return []
    r = _iroot_floor(abs(t), k)
    if r**k != abs(t):
        return []
    if t < 0:
        return [-r]
    return [r, -r] if k % 2 == 0 and r else [r]


# --- can_make, tier 3: the exact search on int keys ------------------------------------------

# A tier 3 value p/q (reduced, q > 0) is the int p * 1024 + q: q <= 1,000 fits the low ten
# bits, so q = key & 1023 and p = key >> 10, and sets of keys hash and compare as plain ints
# (several times cheaper than Fraction, whose every operation builds an object and a gcd).
_KEY = 1024
_SHIFT = 10
_LOW = _KEY - 1
_ANY_KEY, _ANY_NONZERO_KEY = -(1 << 62), -(1 << 62) + 1  # below every key: "any value" markers
# Materialised tier-3 key sets of small card multisets (with the rules' key), shared by every
# can_make call of the process (tables repeat their small sub-multisets), bounded by the
# values they hold; clear_caches() empties it.
_key_sets: dict[tuple[Any, ...], frozenset[int]] = {}
_key_set_values = [0]
_KEY_SET_VALUES_LIMIT = 2_000_000


def _fkey(n: int, d: int) -> int | None:
    """The key of n/d (d != 0) reduced, or None outside the tier's bounds (R2.2)."""
    if d < 0:
        n, d = -n, -d
    g = gcd(n, d)
    if g != 1:
        n //= g
        d //= g
    if d > MAX_DENOMINATOR or not -MAX_NUMERATOR <= n <= MAX_NUMERATOR:
        return None
    return n * _KEY + d


def _value_key(value: Value) -> int | None:
    if type(value) is int:
        return value * _KEY + 1 if -MAX_NUMERATOR <= value <= MAX_NUMERATOR else None
    f = Fraction(value)
    return _fkey(f.numerator, f.denominator)


def _combine_keys(
    la: list[tuple[int, int]], lb: list[tuple[int, int]], ops: str, out: set[int]
) -> None:
    """Adds to `out` every `a sym b` and `b sym a` in bounds, a from la and b from lb."""
    add = out.add
    plus, minus, times, divide = "+" in ops, "-" in ops, "*" in ops, "/" in ops
    N, D, K = MAX_NUMERATOR, MAX_DENOMINATOR, _KEY
    for p1, q1 in la:
        for p2, q2 in lb:
            if q1 == 1 and q2 == 1:
                if plus:
                    s = p1 + p2
                    if -N <= s <= N:
                        add(s * K + 1)
                if minus:
                    s = p1 - p2
                    if -N <= s <= N:
                        add(s * K + 1)
                        add(1 - s * K)
                if times:
                    s = p1 * p2
                    if -N <= s <= N:
                        add(s * K + 1)
                if divide and (p1 or p2):
                    # p1 / p2 and p2 / p1 reduced by the same gcd (|p1|, |p2| <= N)
                    g = gcd(p1, p2)
                    n, d = p1 // g, p2 // g
                    if d < 0:
                        n, d = -n, -d
                    if d and d <= D:
                        add(n * K + d)
                    if n and (n if n > 0 else -n) <= D:
                        add((d * K + n) if n > 0 else (-d * K - n))
                continue
            if plus or minus:
                d = q1 * q2
                x, y = p1 * q2, p2 * q1
                if plus:
                    s = x + y
                    g = gcd(s, d)
                    n, e = s // g, d // g
                    if e <= D and -N <= n <= N:
                        add(n * K + e)
                if minus:
                    s = x - y
                    g = gcd(s, d)
                    n, e = s // g, d // g
                    if e <= D and -N <= n <= N:
                        add(n * K + e)
                        add(e - n * K)
            if times:
                n, d = p1 * p2, q1 * q2
                g = gcd(n, d)
                n, d = n // g, d // g
                if d <= D and -N <= n <= N:
                    add(n * K + d)
            if divide and (p1 or p2):
                # (p1 / q1) / (p2 / q2) = n / d and its inverse d / n, one gcd for both
                n, d = p1 * q2, q1 * p2
                g = gcd(n, d)
                n, d = n // g, d // g
                if d < 0:
                    n, d = -n, -d
                if d and d <= D and -N <= n <= N:
                    add(n * K + d)
                if n and (n if n > 0 else -n) <= D and d <= N:
                    add((d * K + n) if n > 0 else (-d * K - n))
    if "^" in ops:
        for base, exps in ((la, lb), (lb, la)):
            es = sorted({p for p, q in exps if q == 1 and 0 <= p <= MAX_EXPONENT})
            if not es:
                continue
            for p, q in base:
                for e in es:
                    if e == 0:
                        if p:
                            add(K + 1)
                        continue
                    if q**e > D:
                        break
                    n = p**e if -22 < p < 22 or e <= 2 else N + 1
                    if not -N <= n <= N:
                        break
                    add(n * K + q**e)


@lru_cache(maxsize=65_536)
def _rational_roots_key(tp: int, tq: int, n: int) -> tuple[int, ...]:
    """The keys of the rational y with y ** n == tp / tq (n >= 1, reduced)."""
    if n == 1:
        return (tp * _KEY + tq,)
    if tp < 0 and n % 2 == 0:
        return ()

    def iroot(k: int) -> int | None:
        r = round(k ** (1.0 / n)) if k else 0
        for c in (r - 1, r, r + 1):
            if c >= 0 and c**n == k:
                return c
        return None

    rn, rd = iroot(abs(tp)), iroot(tq)
    if rn is None or rd is None:
        return ()
    root = -rn if tp < 0 else rn
    out = [root * _KEY + rd]
    if n % 2 == 0 and rn:
        out.append(-root * _KEY + rd)
    return tuple(out)


def _needs_key(ops: str, ep: int, eq: int, tp: int, tq: int) -> list[int]:
    """The keys y with `e sym y` or `y sym e` equal to t (e = ep/eq, t = tp/tq), each within
    the tier's bounds (R2.2); _ANY_KEY / _ANY_NONZERO_KEY when any value (but 0) will do."""
    out: list[int] = []
    if eq == 1 and tq == 1:
        N = MAX_NUMERATOR
        if "+" in ops and -N <= tp - ep <= N:
            out.append((tp - ep) * _KEY + 1)
        if "-" in ops:
            if -N <= ep - tp <= N:
                out.append((ep - tp) * _KEY + 1)
            if -N <= tp + ep <= N:
                out.append((tp + ep) * _KEY + 1)
    else:
        if "+" in ops:
            k = _fkey(tp * eq - ep * tq, tq * eq)
            if k is not None:
                out.append(k)
        if "-" in ops:
            k = _fkey(ep * tq - tp * eq, tq * eq)
            if k is not None:
                out.append(k)
            k = _fkey(tp * eq + ep * tq, tq * eq)
            if k is not None:
                out.append(k)
    if "*" in ops:
        if ep:
            k = _fkey(tp * eq, tq * ep)  # e * y = t
            if k is not None:
                out.append(k)
        elif tp == 0:
            out.append(_ANY_KEY)  # 0 * y = 0 for every y
    if "/" in ops:
        if tp:
            if ep:  # e / y = t
                k = _fkey(ep * tq, eq * tp)
                if k is not None:
                    out.append(k)
        elif ep == 0:
            out.append(_ANY_NONZERO_KEY)  # 0 / y = 0 for every y but 0
        if ep:  # y / e = t
            k = _fkey(tp * ep, tq * eq)
            if k is not None:
                out.append(k)
    if "^" in ops:
        # e ^ y = t, y whole from 0 to 10 (0 ^ 0 has no value)
        if ep == 0:
            if tp == 0:
                out.extend(y * _KEY + 1 for y in range(1, MAX_EXPONENT + 1))
        else:
            pn, pd = 1, 1
            for y in range(MAX_EXPONENT + 1):
                if pn == tp and pd == tq:
                    out.append(y * _KEY + 1)
                pn *= ep
                pd *= eq
                if abs(pn) > MAX_NUMERATOR or pd > MAX_DENOMINATOR:
                    break  # |numerator| and denominator only grow from here (e is not +-1)
        # y ^ e = t, e whole from 0 to 10
        if eq == 1 and 0 <= ep <= MAX_EXPONENT:
            if ep == 0:
                if tp == 1 and tq == 1:
                    out.append(_ANY_NONZERO_KEY)
            else:
                out.extend(_rational_roots_key(tp, tq, ep))
    return out


class _Targets:
    """The keys a multiset is asked for, and the same as values sorted for bisection:
    `whole` (the integers) and `frac` ((p, q, p / q), values `fv`)."""

    __slots__ = ("keys", "whole", "frac", "fv", "rows", "rv")

    def __init__(self, keys: set[int]) -> None:
        self.keys = keys
        self.whole = sorted(k >> _SHIFT for k in keys if k & _LOW == 1)
        self.frac: list[tuple[float, int, int]] = []
        for k in keys:
            q = k & _LOW
            if q != 1:
                p = k >> _SHIFT
                self.frac.append((p / q, p, q))
        self.frac.sort()
        self.fv = [row[0] for row in self.frac]
        # Every key as (p, q) sorted by value, whole and fractional together (rv: the values)
        by_value = {(k >> _SHIFT) / (k & _LOW): (k >> _SHIFT, k & _LOW) for k in keys}
        self.rv = sorted(by_value)
        self.rows = list(map(by_value.__getitem__, self.rv))

    def __bool__(self) -> bool:
        return bool(self.keys)


class _Tier3Keys:
    """Tier 3 for multisets of cards without X: "do these cards make t?", or "does some
    part of them make t?" (R3.1 without use_all: a card may be left out). Values are int
    keys (see _KEY).

    Sets of up to four cards are built whole (memoised for the process). can_make's
    question (`makes`) on more cards is the batched search of _propagate: whole sets of
    wanted keys pushed down to the large parts and met with the small parts' sets, pruned
    by bounds on what a part makes (largest |v|, largest denominator, a negative value at
    all, smallest nonzero |v|); with "-" keys >= 0 are asked with values >= 0 only, keys < 0
    without + and with a subtrahend >= 0. `has` asks for one key at a time (the search with
    X cards, _Tier3Target): at each split the value the other part would need, the smaller
    part's values enumerated, after the bounds have had their say; a set asked often enough
    is built whole. With "some part" every card may be left out, so a split's parts make any
    value of any of their sub-multisets: one search answers for all of them at once.
    """

    def __init__(self, rules: RuleSet) -> None:
        self.ops = rules.operators or ""
        self.rkey = _rules_key(rules)
        self.memo: dict[tuple[bool, tuple[int, ...], int], bool] = {}
        self.built: dict[tuple[bool, tuple[int, ...]], frozenset[int]] = {}
        self.items_memo: dict[tuple[bool, tuple[int, ...]], list[tuple[int, int]]] = {}
        self.bounds: dict[tuple[bool, tuple[int, ...]], tuple[float, int, bool, float]] = {}
        self.asked: dict[tuple[bool, tuple[int, ...]], int] = {}
        self.costs: dict[tuple[bool, tuple[int, ...]], tuple[int, int] | None] = {}
        self.values_memo: dict[tuple[int, ...], list[Value]] = {}
        self.nonneg_memo: dict[
            tuple[bool, tuple[int, ...]], tuple[list[tuple[int, int]], list[float]]
        ] = {}
        self.sorted_memo: dict[
            tuple[bool, tuple[int, ...]], tuple[list[tuple[int, int]], list[float]]
        ] = {}

    # Sets built whole ------------------------------------------------------------------
    def reach(self, ms: tuple[int, ...], some: bool = False) -> frozenset[int]:
        """Every key the cards make (all of them, or with `some` any non-empty part)."""
        local = self.built.get((some, ms))
        if local is not None:
            return local
        key = (self.rkey, some, ms)
        found = _key_sets.get(key) if len(ms) <= _MATERIALISE else None
        if found is None:
            if len(ms) == 1:
                found = frozenset((ms[0] * _KEY + 1,))
            elif some:
                # What any non-empty part makes: the union of the parts' sets (set unions,
                # no arithmetic), which are built anyway.
                found = frozenset().union(
                    *(
                        self.reach(sub)
                        for size in range(1, len(ms) + 1)
                        for sub in _operand_sets(ms, size)
                    )
                )
            else:
                out: set[int] = set()
                for a, b in _balanced_splits(ms):
                    _combine_keys(self.items(a), self.items(b), self.ops, out)
                found = frozenset(out)
            if len(ms) <= _MATERIALISE:
                _key_set_values[0] += len(found)
                if _key_set_values[0] > _KEY_SET_VALUES_LIMIT:
                    _key_sets.clear()
                    _key_set_values[0] = len(found)
                _key_sets[key] = found
        self.built[(some, ms)] = found
        return found

    def items(self, ms: tuple[int, ...], some: bool = False) -> list[tuple[int, int]]:
        """reach(ms) as (p, q) pairs sorted by value."""
        return self.by_value(ms, some)[0]

    def by_value(
        self, ms: tuple[int, ...], some: bool = False
    ) -> tuple[list[tuple[int, int]], list[float]]:
        """reach(ms) as (p, q) pairs sorted by value, and the values as floats (exact order:
        two values differ by at least 1e-6, far above a float's error at 1e4)."""
        key = (some, ms)
        found = self.sorted_memo.get(key)
        if found is None:
            pairs = {
                (k >> _SHIFT) / (k & _LOW): (k >> _SHIFT, k & _LOW) for k in self.reach(ms, some)
            }
            lv = sorted(pairs)
            found = self.sorted_memo[key] = (list(map(pairs.__getitem__, lv)), lv)
        return found

    def by_value_nonneg(
        self, ms: tuple[int, ...], some: bool = False
    ) -> tuple[list[tuple[int, int]], list[float]]:
        """by_value(ms, some) from its first value >= 0 on."""
        key = (some, ms)
        found = self.nonneg_memo.get(key)
        if found is None:
            la, lv = self.by_value(ms, some)
            i = bisect_left(lv, 0.0)
            found = self.nonneg_memo[key] = (la[i:], lv[i:])
        return found

    def by_size(self, ms: tuple[int, ...], some: bool = False) -> list[tuple[int, int]]:
        """reach(ms) as (p, q) pairs, small magnitudes first (the goal-directed search tries
        them in this order: the friendliest values and the most likely to close first)."""
        found = self.items_memo.get((some, ms))
        if found is None:
            found = sorted(self.items(ms, some), key=_mag)
            self.items_memo[(some, ms)] = found
        return found

    def zone(self, ms: tuple[int, ...], some: bool = False) -> tuple[float, float, float]:
        """(lowest, highest, smallest nonzero |v|) of the values v the cards make, from
        _bounds."""
        high, _den, negative, low = self._bounds(ms, some)
        return (-high if negative else 0.0, high, low)

    def values(self, ms: tuple[int, ...]) -> list[Value]:
        """reach(ms) as ints and Fractions (for the search with X cards), small first."""
        found = self.values_memo.get(ms)
        if found is None:
            found = [p if q == 1 else Fraction(p, q) for p, q in self.by_size(ms)]
            self.values_memo[ms] = found
        return found

    # Questions -------------------------------------------------------------------------
    def has(self, ms: tuple[int, ...], y: int, some: bool = False) -> bool:
        if y == _ANY_KEY:
            return True  # + is always an operator (R2.5): the cards' sum at least
        if y == _ANY_NONZERO_KEY:
            # Cards are >= 0: their sum is a nonzero value unless every card is 0, and then
            # every value is 0 (0 + 0, 0 - 0, 0 * 0; 0 / 0 and 0 ^ 0 have none).
            return any(ms)
        if len(ms) == 1:
            return y == ms[0] * _KEY + 1
        built = self.built.get((some, ms))
        if built is not None:
            return y in built
        if len(ms) <= _MATERIALISE:
            return y in self.reach(ms, some)
        mkey = (some, ms, y)
        found = self.memo.get(mkey)
        if found is None:
            found = self._has(ms, y, some)
            self.memo[mkey] = found
        return found

    def makes(self, ms: tuple[int, ...], t: int, some: bool) -> bool:
        """Whether t is made from at least two of the cards (all of them without `some`)."""
        y = t * _KEY + 1
        if len(ms) <= _MATERIALISE:
            if not some:
                return len(ms) >= 2 and y in self.reach(ms)
            return any(
                y in self.reach(sub)
                for size in range(2, len(ms) + 1)
                for sub in _operand_sets(ms, size)
            )
        return self._propagate(ms, y, some)

    def _propagate(self, ms: tuple[int, ...], y: int, some: bool) -> bool:
        """Whether `ms` makes key y, asked of whole sets of keys at a time, not one by one.

        wanted[u] is the set of keys sub-multiset u would have to make for ms to make y
        (wanted[ms] = {y}). Sub-multisets are taken largest first, so that every larger set
        has added what it needs to u's before u is looked at. At each split u = a + b (a
        the smaller part, its set of at most four cards built and cached), either b is
        small too and the two sets meet (_meet), or b is large and the keys it would need
        are added to wanted[b] (_push). A key wanted along many paths (the associativity of
        + and -) is asked of b once, and each step is a comprehension over sets of keys and
        a set operation, not a call per key.

        With `some` a set b stands for any non-empty part of it (reach(..., some=True)), so
        one pass answers for every subset; the part a with fewer cards is taken whole (all
        its cards used). That misses nothing: if a part S of u makes a key as s1 sym s2
        (cards S1 and S2), then S1 or S2 has at most as many cards as the rest of u (if S1
        has more than half of u, S2 has fewer than half); with a = that one and b = the
        rest of u, a makes its value with all its cards and b with a part of them. (When
        they have as many, S is the whole of u and both are whole.) Values a makes with
        only some of its cards would only repeat what a larger b asks.

        With "-" (cards >= 0), a key >= 0 is asked with values >= 0 only (_needs): u
        makes v >= 0 exactly when it makes v with every intermediate >= 0. By induction on
        the tree, |x sym z| is made from |x| and |z| with intermediates >= 0: |x| + |z| or
        ||x| - |z|| for + and - (whichever difference is >= 0), |x| * |z|, |x| / |z|,
        |x| ^ z (exponents are whole 0..10, R2.2), and the tier's bounds are symmetric
        (R2.2: |p| <= 10,000). So for such a key only the small part's values >= 0 are
        enumerated and only the other part's values >= 0 are wanted: about half of each.

        A set of keys all < 0 (a negative target, and much of what it needs) is asked
        without + and with a subtrahend >= 0 (_key_signs, _needed_sets): if u makes v < 0 as
        x sym z, it also makes v so. x + z < 0 with z >= 0 is z - |x|, and with both < 0 it
        is x - |z|; x - z with z < 0 (then x < 0 too) is |z| - |x|; |x| and |z| are made by
        the same cards (the transform above). * / ^ stay as they are. A set with both signs
        stays one set asked with every value: a second pass over the small part's values
        costs more than it saves.
        """
        n = len(ms)
        fold = "-" in self.ops and ms[0] >= 0
        wanted: list[dict[tuple[int, ...], set[int]]] = [{} for _ in range(n + 1)]
        wanted[n][ms] = {y}
        for size in range(n, _MATERIALISE, -1):
            for u, keys in wanted[size].items():
                live = self._live(u, keys, some, top=size == n)
                if live is None:
                    return True
                if not live:
                    continue
                sign = _key_signs(live.keys) if fold else _ANY_SIGN
                for a, b in _balanced_splits(u):
                    if len(a) > len(b):
                        a, b = b, a
                    if len(b) <= _MATERIALISE or (some, b) in self.built:
                        if self._meet(a, b, live, sign, some):
                            return True
                    elif self._push(a, b, live, sign, wanted[len(b)], some):
                        return True
        return False

    def _live(self, u: tuple[int, ...], keys: set[int], some: bool, top: bool) -> _Targets | None:
        """The keys u is asked for that it might make: those within the bounds on what it
        makes (its largest |v|, largest denominator, a negative value at all). None when one
        is a card of u: with `some` a card alone will do below the top (at the top at least
        two cards are used)."""
        if top:
            # The target is whole and within the bounds already; bounds of the whole table
            # would need every part's set built, before the first meet could say yes.
            return _Targets(keys)
        if some and not keys.isdisjoint([v * _KEY + 1 for v in u]):
            return None
        high, den, negative, _low = self._bounds(u, some)
        return _Targets(
            {
                k
                for k in keys
                if (q := k & _LOW) <= den
                and ((p := k >> _SHIFT) >= 0 or negative)
                and (p if p >= 0 else -p) <= high * q
            }
        )

    def _meet(
        self, a: tuple[int, ...], b: tuple[int, ...], live: _Targets, sign: int, some: bool
    ) -> bool:
        """Whether `x sym z` or `z sym x` is a key of `live` for x made by a (all its cards:
        the part with fewer cards, see _propagate) and z by b (any part of it with `some`),
        both sets built. The keys the smaller set's values would need, intersected with the
        other set (|live| x |smaller| steps, fewer in the windows), or, when that is cheaper,
        the two sets combined and intersected with the keys (|a| x |b| steps)."""
        sa, sb = False, some
        ra, rb = self.reach(a, sa), self.reach(b, sb)
        if len(ra) > len(rb):
            a, b, ra, rb, sa, sb = b, a, rb, ra, sb, sa
        if _PRODUCT_STEP * len(rb) < len(self.ops) * len(live.keys):
            out: set[int] = set()
            _combine_keys(self.items(a, sa), self.items(b, sb), self.ops, out)
            return not out.isdisjoint(live.keys)
        nonzero_b = len(rb) > (1 in rb)  # 0 is the key 1
        for needed in self._needs(a, sa, self.zone(b, sb), live, sign):
            if not rb.isdisjoint(needed):
                return True
            if _ANY_KEY in needed or (_ANY_NONZERO_KEY in needed and nonzero_b):
                return True
        return False

    def _push(
        self,
        a: tuple[int, ...],
        b: tuple[int, ...],
        live: _Targets,
        sign: int,
        level: dict[tuple[int, ...], set[int]],
        some: bool,
    ) -> bool:
        """Adds to level[b] every key b would need to make, with a's values, a key of
        `live`; True when any value of b will do (0 * z = 0, 0 / z = 0, z ^ 0 = 1): b makes
        its sum, nonzero unless every card is 0 (and then 0 is all it makes)."""
        into = level.get(b)
        if into is None:
            into = level[b] = set()
        # a with all its cards, b with any part of it under `some` (see _propagate)
        for needed in self._needs(a, False, self.zone(b, some), live, sign):
            if _ANY_KEY in needed or (_ANY_NONZERO_KEY in needed and any(b)):
                return True
            into |= needed
        return False

    def _needs(
        self,
        a: tuple[int, ...],
        sa: bool,
        zone: tuple[float, float, float],
        live: _Targets,
        sign: int,
    ) -> Iterator[set[int]]:
        """_needed_sets for the keys of `live`, x from a's values and z within `zone`; with
        _NONNEG_KEYS (every key >= 0, "-", cards >= 0: see _propagate) x and z >= 0 only,
        with _NEGATIVE_KEYS (every key < 0) no + and a subtrahend >= 0."""
        if sign == _NONNEG_KEYS:
            la, lv = self.by_value_nonneg(a, sa)
            zone = (max(zone[0], 0.0), zone[1], zone[2])
        else:
            la, lv = self.by_value(a, sa)
        yield from _needed_sets(
            self.ops, live, la, lv, zone, self.reach(a, sa), sign == _NEGATIVE_KEYS
        )

    def _has(self, ms: tuple[int, ...], y: int, some: bool) -> bool:
        p, q = y >> _SHIFT, y & _LOW
        if some and q == 1 and p in ms:
            return True
        high, den, negative, _low = self._bounds(ms, some)
        if q > den or (p < 0 and not negative) or abs(p) > high * q:
            return False
        # Asked often enough, a set is cheaper built whole than searched for each value: it
        # is built once the searches have cost as much as building it (at most twice the
        # better of the two, whatever the questions).
        skey = (some, ms)
        asked = self.asked[skey] = self.asked.get(skey, 0) + 1
        costs = self._costs(ms, some)
        if costs is not None and asked * costs[0] >= costs[1]:
            return y in self.reach(ms, some)
        return self._split_search(ms, y, some)

    def _split_search(self, ms: tuple[int, ...], y: int, some: bool) -> bool:
        """Whether `a sym b` makes y for a split of ms into parts making a and b."""
        tp, tq = y >> _SHIFT, y & _LOW
        ops, has, built = self.ops, self.has, self.built
        for a, b in _balanced_splits(ms):
            if len(a) > len(b):
                a, b = b, a
            la = self.by_size(a, some)
            if len(b) <= _MATERIALISE or (some, b) in built:
                ra, rb = self.reach(a, some), self.reach(b, some)
                if len(ra) > len(rb):
                    a, b, ra, rb = b, a, rb, ra
                la = self.by_size(a, some)
                if len(la) <= 4:  # a few values: solved for one by one, no sets built
                    for ep, eq in la:
                        for k in _needs_key(ops, ep, eq, tp, tq):
                            if k in rb or (k <= _ANY_NONZERO_KEY and has(b, k, some)):
                                return True
                elif _meets(ops, la, ra, rb, tp, tq):
                    return True
                continue
            for ep, eq in la:
                for k in _needs_key(ops, ep, eq, tp, tq):
                    if has(b, k, some):
                        return True
        return False

    def _costs(self, ms: tuple[int, ...], some: bool) -> tuple[int, int] | None:
        """(the work of one search in `ms`, the work of building its set), or None when a
        part is neither small nor built (its set would be built too)."""
        skey = (some, ms)
        if skey in self.costs:
            return self.costs[skey]
        search = build = 0
        found: tuple[int, int] | None = None
        for a, b in _balanced_splits(ms):
            sizes = []
            for part in (a, b):
                if len(part) <= _MATERIALISE or (some, part) in self.built:
                    sizes.append(len(self.reach(part, some)))
                else:
                    break
            else:
                search += 2 * min(sizes)
                build += 6 * sizes[0] * sizes[1]  # ~5 steps a pair, ~2 a searched value
                continue
            break
        else:
            found = (search, build)
        if found is not None:
            self.costs[skey] = found
        return found

    def _bounds(self, ms: tuple[int, ...], some: bool) -> tuple[float, int, bool, float]:
        """(the largest |v|, the largest denominator, whether some v is negative, the smallest
        nonzero |v|) over every v the cards make: exact for built sets, else bounds from the
        parts' bounds. Floats, rounded outwards at every step (by a relative 1e-12, far above
        a float's error): a bound may be a little loose, never wrong."""
        skey = (some, ms)
        found = self.bounds.get(skey)
        if found is not None:
            return found
        up, down = _OUTWARDS, 2.0 - _OUTWARDS
        if some and len(ms) <= _MATERIALISE:
            # Any part of a small set: the parts' own bounds, none of the values sorted.
            parts = [
                self._bounds(sub, False)
                for size in range(1, len(ms) + 1)
                for sub in _operand_sets(ms, size)
            ]
            result = (
                max(part[0] for part in parts),
                max(part[1] for part in parts),
                any(part[2] for part in parts),
                min(part[3] for part in parts),
            )
        elif (len(ms) <= _MATERIALISE or skey in self.built) and skey not in self.sorted_memo:
            # One pass over the keys: a set only ever met as the larger part is never sorted.
            high, den, negative, low = 0.0, 1, False, float(MAX_NUMERATOR)
            for k in self.reach(ms, some):
                p, q = k >> _SHIFT, k & _LOW
                if p < 0:
                    negative = True
                    p = -p
                if q > den:
                    den = q
                if p:
                    v = p / q
                    if v > high:
                        high = v
                    if v < low:
                        low = v
            result = (high * up, den, negative, low * down if high else float(MAX_NUMERATOR))
        elif len(ms) <= _MATERIALISE or skey in self.built:
            pairs, values = self.by_value(ms, some)
            i = bisect_left(values, 0.0)
            j = bisect_right(values, 0.0, i)  # values[i:j] are the 0
            nonzero = [-values[i - 1]] if i else []
            nonzero += [values[j]] if j < len(values) else []
            result = (
                max(-values[0], values[-1], 0.0) * up,
                max([q for _, q in pairs]),
                values[0] < 0,
                min(nonzero) * down if nonzero else float(MAX_NUMERATOR),
            )
        else:
            ops = self.ops
            times, divide, power = "*" in ops, "/" in ops, "^" in ops
            memo, bounds = self.bounds, self._bounds
            high = float(max(ms))
            low = float(min((v for v in ms if v), default=MAX_NUMERATOR))
            den = 1
            negative = "-" in ops
            for a, b in _balanced_splits(ms):
                ha, da, na, la = memo.get((some, a)) or bounds(a, some)
                hb, db, nb, lb = memo.get((some, b)) or bounds(b, some)
                negative = negative or na or nb
                h = ha + hb  # + is always an operator (R2.5)
                lo = 1 / (da * db)
                d = da * db
                if times:
                    h = max(h, ha * hb)
                    lo = min(lo, la * lb)
                if divide:
                    h = max(h, ha / lb, hb / la)
                    lo = min(lo, la / hb if hb else la, lb / ha if ha else lb)
                    # |p| <= |v| * q
                    d = max(d, int(da * hb * db * up), int(db * ha * da * up))
                if power:
                    for hx, lx, dx, hy in ((ha, la, da, hb), (hb, lb, db, ha)):
                        top = int(min(MAX_EXPONENT, hy))
                        h = max(h, 1.0, min(hx, MAX_NUMERATOR + 1.0) ** top)
                        lo = min(lo, 1.0, lx**top)
                        d = max(d, min(dx, MAX_DENOMINATOR + 1) ** top)
                high = max(high, h) * up
                low = min(low, lo) * down
                den = max(den, d)
            den = min(den, MAX_DENOMINATOR)
            result = (min(high, float(MAX_NUMERATOR)), den, negative, max(low, down / den))
        self.bounds[skey] = result
        return result


# A product step (one pair of values combined by every operator, _combine_keys) costs about
# this many needed-key steps (one value solved for one operator inside a comprehension, the
# windows of _needed_sets leaving out most of them).
_PRODUCT_STEP = 30
# Two tier 3 values p/q differ by at least 1e-6 (q <= 1,000); float error on the window ends
# of _needed_sets (magnitudes up to 1e8) stays below 1e-8: widening them by this loses none.
_SLACK = 1e-7
_T = TypeVar("_T")
_OUTWARDS = 1 + 1e-12  # _Tier3Keys._bounds: a float bound widened by this at each step


# How the keys of a _Targets are solved for (_Tier3Keys._needs): every sign, all >= 0 (the
# fold of _propagate), or all < 0.
_ANY_SIGN, _NONNEG_KEYS, _NEGATIVE_KEYS = 0, 1, -1


def _key_signs(keys: set[int]) -> int:
    """How a set of keys is solved for, given cards >= 0 and "-" (see _propagate): all >= 0,
    all < 0, or both signs (then with every value, in one pass)."""
    if all(k >= 0 for k in keys):  # a key's sign is its numerator's (q < _KEY)
        return _NONNEG_KEYS
    if all(k < 0 for k in keys):
        return _NEGATIVE_KEYS
    return _ANY_SIGN


def _needed_sets(
    ops: str,
    targets: _Targets,
    la: list[tuple[int, int]],
    lv: list[float],
    zone: tuple[float, float, float],
    ra: frozenset[int],
    negative: bool = False,
) -> Iterator[set[int]]:
    """For each operator (and side), the keys z with `x sym z` or `z sym x` equal to a target
    t = tp/tq, x = p/q from la: one set per operator, + first.

    la is sorted by value (lv: the values as floats) and z must lie in `zone` (the lowest
    and highest value the other part can make): for each target only the x that can give
    such a z are enumerated, one or two slices of la found by bisection (widened by _SLACK:
    floats only choose the slices, the keys are exact).
    Keys are reduced inline (gcd, sign to the numerator); a denominator past 1,000 is left
    out (its key would alias another value's) but a numerator past the bounds is not: such
    a key names one fraction and is in no set. _ANY_KEY / _ANY_NONZERO_KEY in a set: any
    value (but 0) will do. `ra`: la's keys (for ^). With an integer t and + or -, z has x's own denominator, already
    reduced: those comprehensions need no gcd.
    """
    if len(la) < len(targets.keys):
        yield from _needed_per_value(ops, targets, la, lv, zone, ra, negative)
        return
    K, D, E = _KEY, MAX_DENOMINATOR, _SLACK
    zlo, zhi, zmin = zone
    bl, br = bisect_left, bisect_right
    whole, frac = targets.whole, targets.frac
    # Every target < 0 (see _propagate): no x + z, and a subtrahend >= 0 (z in x - z, x in
    # z - x).
    sub_lo = max(zlo, 0.0) if negative else zlo
    if negative:
        i0 = bl(lv, 0.0)
        la0, lv0 = la[i0:], lv[i0:]
    else:
        la0, lv0 = la, lv
    if "+" in ops and not negative:  # x + z = t: x from t - zhi to t - zlo
        s = {
            (t * q - p) * K + q
            for t in whole
            for p, q in la[bl(lv, t - zhi - E) : br(lv, t - zlo + E)]
        }
        if frac:
            s |= {
                (n // g) * K + d // g
                for tv, tp, tq in frac
                for p, q in la[bl(lv, tv - zhi - E) : br(lv, tv - zlo + E)]
                if (d := tq * q) // (g := gcd(n := tp * q - p * tq, d)) <= D
            }
        yield s
    if "-" in ops:  # x - z = t: x from t + zlo to t + zhi; z - x = t: x from zlo - t to zhi - t
        s = {
            (p - t * q) * K + q
            for t in whole
            for p, q in la[bl(lv, t + sub_lo - E) : br(lv, t + zhi + E)]
        }
        if frac:
            s |= {
                (n // g) * K + d // g
                for tv, tp, tq in frac
                for p, q in la[bl(lv, tv + sub_lo - E) : br(lv, tv + zhi + E)]
                if (d := tq * q) // (g := gcd(n := p * tq - tp * q, d)) <= D
            }
        yield s
        s = {
            (t * q + p) * K + q
            for t in whole
            for p, q in la0[bl(lv0, zlo - t - E) : br(lv0, zhi - t + E)]
        }
        if frac:
            s |= {
                (n // g) * K + d // g
                for tv, tp, tq in frac
                for p, q in la0[bl(lv0, zlo - tv - E) : br(lv0, zhi - tv + E)]
                if (d := tq * q) // (g := gcd(n := tp * q + p * tq, d)) <= D
            }
        yield s
    if "*" not in ops and "/" not in ops:
        if "^" in ops:
            yield _power_needs(targets, ra)
        return
    zero_t = 0 in whole
    nonzero = [t for t in whole if t]
    zero_x = 0.0 in lv[bl(lv, -E) : br(lv, E)] if zero_t else False
    # zmin <= |z| <= top for z not 0: for x * z = t, |t| / top <= |x| <= |t| / zmin; for
    # x / z = t, |t| zmin <= |x| <= |t| top; for z / x = t, zmin / |t| <= |x| <= top / |t|.
    top = max(-zlo, zhi, 1e-9)
    if "*" in ops:  # x * z = t: z = t / x; z = 0 when t = 0 (x not 0); any z when x = t = 0
        s = {
            ((t * q if p > 0 else -t * q) // g) * K + e
            for t in nonzero
            for p, q in _between(la, lv, abs(t) / top - E, abs(t) / zmin + E)
            if (e := abs(p) // (g := gcd(t * q, p))) <= D
        }
        if frac:
            s |= {
                (n // g) * K + d // g
                for tv, tp, tq in frac
                for p, q in _between(la, lv, abs(tv) / top - E, abs(tv) / zmin + E)
                if (d := tq * abs(p)) // (g := gcd(n := (tp * q if p > 0 else -tp * q), d)) <= D
            }
        if zero_t:
            if len(lv) > zero_x:
                s.add(1)  # x * 0 = 0
            if zero_x:
                s.add(_ANY_KEY)
        yield s
    if "/" in ops:
        # x / z = t: z = x / t (x, t not 0); any z but 0 when x = t = 0
        s = {
            ((p if t > 0 else -p) // g) * K + e
            for t in nonzero
            for p, q in _between(la, lv, abs(t) * zmin - E, abs(t) * top + E)
            if (e := q * abs(t) // (g := gcd(p, q * t))) <= D
        }
        if frac:
            s |= {
                (n // g) * K + d // g
                for tv, tp, tq in frac
                for p, q in _between(la, lv, abs(tv) * zmin - E, abs(tv) * top + E)
                if (d := q * abs(tp)) // (g := gcd(n := (p * tq if tp > 0 else -p * tq), d)) <= D
            }
        if zero_x:
            s.add(_ANY_NONZERO_KEY)
        yield s
        # z / x = t: z = t * x (x not 0); z = 0 when t = 0
        s = {
            (t * p // g) * K + q // g
            for t in nonzero
            for p, q in _between(la, lv, zmin / abs(t) - E, top / abs(t) + E)
            if (g := gcd(t * p, q))
        }
        if frac:
            s |= {
                (n // g) * K + d // g
                for tv, tp, tq in frac
                for p, q in _between(la, lv, zmin / abs(tv) - E, top / abs(tv) + E)
                if (d := tq * q) // (g := gcd(n := tp * p, d)) <= D
            }
        if zero_t and len(lv) > zero_x:
            s.add(1)  # 0 / x = 0
        yield s
    if "^" in ops:
        yield _power_needs(targets, ra)


def _needed_per_value(
    ops: str,
    targets: _Targets,
    la: list[tuple[int, int]],
    lv: list[float],
    zone: tuple[float, float, float],
    ra: frozenset[int],
    negative: bool = False,
) -> Iterator[set[int]]:
    """_needed_sets with the roles swapped, for fewer values than targets: for each x of la,
    the targets t for which some z of `zone` gives `x sym z` or `z sym x` = t, a slice of
    the targets sorted by value (the same keys, fewer bisections). Whole and fractional
    targets in one list: one comprehension per operator, as these calls are many and small."""
    K, D, E = _KEY, MAX_DENOMINATOR, _SLACK
    zlo, zhi, zmin = zone
    bl, br = bisect_left, bisect_right
    ts, tv = targets.rows, targets.rv
    xs = list(zip(la, lv, strict=True))
    # Every target < 0: no x + z, and a subtrahend >= 0 (z in x - z, x in z - x).
    sub_lo = max(zlo, 0.0) if negative else zlo
    xs0 = [row for row in xs if row[1] >= 0] if negative else xs
    if "+" in ops and not negative:  # x + z = t: t from x + zlo to x + zhi
        yield {
            (n // g) * K + d // g
            for (p, q), x in xs
            for tp, tq in ts[bl(tv, x + zlo - E) : br(tv, x + zhi + E)]
            if (d := tq * q) // (g := gcd(n := tp * q - p * tq, d)) <= D
        }
    if "-" in ops:  # x - z = t: t from x - zhi to x - zlo; z - x = t: from zlo - x to zhi - x
        yield {
            (n // g) * K + d // g
            for (p, q), x in xs
            for tp, tq in ts[bl(tv, x - zhi - E) : br(tv, x - sub_lo + E)]
            if (d := tq * q) // (g := gcd(n := p * tq - tp * q, d)) <= D
        }
        yield {
            (n // g) * K + d // g
            for (p, q), x in xs0
            for tp, tq in ts[bl(tv, zlo - x - E) : br(tv, zhi - x + E)]
            if (d := tq * q) // (g := gcd(n := tp * q + p * tq, d)) <= D
        }
    if "*" not in ops and "/" not in ops:
        if "^" in ops:
            yield _power_needs(targets, ra)
        return
    zero_t = 1 in targets.keys  # 0's key
    nonzero_xs = [(pq, abs(x)) for pq, x in xs if x]
    zero_x = len(nonzero_xs) < len(xs)
    top = max(-zlo, zhi, 1e-9)
    th = _halves(ts, tv)
    # For x not 0 and t not 0: x * z = t with zmin <= |z| <= top when |x| zmin <= |t| <=
    # |x| top; x / z = t when |x| / top <= |t| <= |x| / zmin; z / x = t when zmin / |x| <=
    # |t| <= top / |x|. t = 0 and x = 0 apart.
    if "*" in ops:  # x * z = t: z = t / x
        s = {
            (n // g) * K + d // g
            for (p, q), m in nonzero_xs
            for part, pv in th
            for tp, tq in part[bl(pv, m * zmin - E) : br(pv, m * top + E)]
            if (d := tq * abs(p)) // (g := gcd(n := (tp * q if p > 0 else -tp * q), d)) <= D
        }
        if zero_t:
            if nonzero_xs:
                s.add(1)  # x * 0 = 0
            if zero_x:
                s.add(_ANY_KEY)  # 0 * z = 0 for every z
        yield s
    if "/" in ops:
        # x / z = t: z = x / t; any z but 0 when x = t = 0
        s = {
            (n // g) * K + d // g
            for (p, q), m in nonzero_xs
            for part, pv in th
            for tp, tq in part[bl(pv, m / top - E) : br(pv, m / zmin + E)]
            if (d := q * abs(tp)) // (g := gcd(n := (p * tq if tp > 0 else -p * tq), d)) <= D
        }
        if zero_x and zero_t:
            s.add(_ANY_NONZERO_KEY)
        yield s
        # z / x = t: z = t * x; z = 0 when t = 0
        s = {
            (n // g) * K + d // g
            for (p, q), m in nonzero_xs
            for part, pv in th
            for tp, tq in part[bl(pv, zmin / m - E) : br(pv, top / m + E)]
            if (d := tq * q) // (g := gcd(n := tp * p, d)) <= D
        }
        if zero_t and nonzero_xs:
            s.add(1)  # 0 / x = 0
        yield s
    if "^" in ops:
        yield _power_needs(targets, ra)


def _halves(la: list[_T], lv: Sequence[float]) -> list[tuple[list[_T], list[float]]]:
    """la's entries (sorted, values lv) but 0, as (entries, |values|) sorted by |value|: those
    > 0, then those < 0 (each half only when it has some). A window low <= |x| <= high is
    then one slice of each half (_between without a call per window)."""
    i, j = bisect_left(lv, 0.0), bisect_right(lv, 0.0)
    out = [(la[j:], list(lv[j:]))] if j < len(lv) else []
    if i:
        out.append((la[i - 1 :: -1], [-v for v in lv[i - 1 :: -1]]))
    return out


def _between(la: list[_T], lv: Sequence[float], low: float, high: float) -> list[_T]:
    """The x of la (sorted, values lv) with low <= |x| <= high, never 0."""
    low = max(low, _SLACK)  # below every nonzero value (>= 1/1,000)
    return (
        la[bisect_left(lv, -high) : bisect_right(lv, -low)]
        + la[bisect_left(lv, low) : bisect_right(lv, high)]
    )


def _power_needs(targets: _Targets, ra: frozenset[int]) -> set[int]:
    """The z with x ^ z = t (z whole 0..10: x ^ 0 = 1 for x not 0, x ^ 1 = x, else x is a
    z-th root of t) or z ^ x = t (x whole 0..10: z is an x-th root of t; z ^ 0 = 1 for any z
    but 0), x from the keys ra. R2.2: 0 ^ 0 has no value. Roots are looked up in the tables
    of _root_table, targets matched by set intersection, not one by one."""
    K, keys = _KEY, targets.keys
    s: set[int] = set()
    if K + 1 in keys and len(ra) > (1 in ra):
        s.add(1)  # x ^ 0 = 1 for x not 0: z = 0 (its key is 1)
    if not keys.isdisjoint(ra):
        s.add(K + 1)  # x ^ 1 = x
    for e in range(2, MAX_EXPONENT + 1):  # x ^ e = t: some x is an e-th root of t
        roots = _root_table(e)
        if any(not ra.isdisjoint(roots[k]) for k in keys & roots.keys()):
            s.add(e * K + 1)
    for e in range(MAX_EXPONENT + 1):  # z ^ e = t, e one of the x
        if e * K + 1 not in ra:
            continue
        if e == 0:
            if K + 1 in keys:
                s.add(_ANY_NONZERO_KEY)
        elif e == 1:
            s |= keys
        else:
            roots = _root_table(e)
            for k in keys & roots.keys():
                s.update(roots[k])
    return s


@cache
def _root_table(e: int) -> dict[int, tuple[int, ...]]:
    """{key of t: keys of the z with z ** e == t} for e from 2 to 10, every t within the
    bounds (R2.2): z = p/q reduced makes t = p**e/q**e reduced, so |p|**e <= 10,000 and
    q**e <= 1,000 list them all."""
    K = _KEY
    table: dict[int, list[int]] = {}
    q = 1
    while q**e <= MAX_DENOMINATOR:
        p = 0
        while p**e <= MAX_NUMERATOR:
            if gcd(p, q) == 1:
                for z in {p, -p}:
                    table.setdefault(z**e * K + q**e, []).append(z * K + q)
            p += 1
        q += 1
    return {t: tuple(zs) for t, zs in table.items()}


def _meets(
    ops: str, la: list[tuple[int, int]], ra: frozenset[int], rb: frozenset[int], tp: int, tq: int
) -> bool:
    """Whether `a sym b` or `b sym a` is tp/tq for some key a of ra (as pairs: la) and b of rb.

    Each operator is one pass over la building the b it would need, then one set
    intersection. A key n * 1024 + q with q <= 1,000 names one fraction even when |n| is past
    the bounds, and such a key is in no set: the needed values are not bound-checked.
    """
    K, D = _KEY, MAX_DENOMINATOR
    # The keys are reduced inline (gcd, sign to the numerator, denominators past 1,000 left
    # out: such a key would alias another value's), not by a call per value.
    st, at = (1, tp) if tp >= 0 else (-1, -tp)  # tq == 1: t = tp
    stp, atp = st, at
    zero_a, zero_b = 1 in ra, 1 in rb  # 0 is the key 1
    nonzero_a, nonzero_b = len(ra) > zero_a, len(rb) > zero_b
    disjoint = rb.isdisjoint
    if tq == 1:
        t = tp
        if "+" in ops and not disjoint({(t * q - p) * K + q for p, q in la}):
            return True  # p/q + b = t: b = (tq - p)/q, already reduced
        if "-" in ops and (
            not disjoint({(p - t * q) * K + q for p, q in la})
            or not disjoint({(t * q + p) * K + q for p, q in la})
        ):
            return True
        if "*" in ops:
            if t == 0:
                if (zero_a and rb) or zero_b:
                    return True
            elif not disjoint(
                {
                    ((t * q if p > 0 else -t * q) // g) * K + e
                    for p, q in la
                    if p and (e := abs(p) // (g := gcd(t * q, p))) <= D
                }
            ):
                return True
        if "/" in ops:
            if t == 0:
                if (zero_a and nonzero_b) or (zero_b and nonzero_a):
                    return True  # 0 / b = 0 for every b but 0
            elif not disjoint(
                {
                    (st * p // g) * K + e
                    for p, q in la
                    if p and (e := q * at // (g := gcd(p, q * at))) <= D
                }
            ) or not disjoint(
                {(t * p // g) * K + q // g for p, q in la if p and (g := gcd(t * p, q))}
            ):
                return True  # a / b = t and b / a = t
    else:
        if "+" in ops and not disjoint(
            {
                (n // g) * K + d // g
                for p, q in la
                if (d := tq * q) // (g := gcd(n := tp * q - p * tq, d)) <= D
            }
        ):
            return True
        if "-" in ops and (
            not disjoint(
                {
                    (n // g) * K + d // g
                    for p, q in la
                    if (d := tq * q) // (g := gcd(n := p * tq - tp * q, d)) <= D
                }
            )
            or not disjoint(
                {
                    (n // g) * K + d // g
                    for p, q in la
                    if (d := tq * q) // (g := gcd(n := tp * q + p * tq, d)) <= D
                }
            )
        ):
            return True
        if "*" in ops and not disjoint(
            {
                (n // g) * K + d // g
                for p, q in la
                if p
                and (d := tq * abs(p)) // (g := gcd(n := (tp * q if p > 0 else -tp * q), d)) <= D
            }
        ):
            return True  # t is not 0
        if "/" in ops and (
            not disjoint(
                {
                    (n // g) * K + d // g
                    for p, q in la
                    if p and (d := q * atp) // (g := gcd(n := stp * p * tq, d)) <= D
                }
            )
            or not disjoint(
                {
                    (n // g) * K + d // g
                    for p, q in la
                    if p and (d := tq * q) // (g := gcd(n := tp * p, d)) <= D
                }
            )
        ):
            return True
    if "^" in ops:
        # base ^ n = t, n whole from 0 to 10 (0 ^ 0 has no value): the base is an n-th root
        for bases, nonzero_bases, exps in ((ra, nonzero_a, rb), (rb, nonzero_b, ra)):
            for n in range(MAX_EXPONENT + 1):
                if n * K + 1 in exps:
                    if n == 0:
                        if tp == 1 and tq == 1 and nonzero_bases:
                            return True
                    elif any(k in bases for k in _rational_roots_key(tp, tq, n)):
                        return True
    return False


def _mag(pq: tuple[int, int]) -> tuple[int, int, int]:
    p, q = pq
    return (abs(p) // q, q, p)
