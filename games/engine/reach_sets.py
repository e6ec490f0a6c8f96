"""Reachable values of a multiset of cards, as sets, and the memo that keeps them (R2.2, R3.4).

Whole numbers as bit sets (tiers 1-2, _MaskArithmetic; can_make's _WholeReach shares the
memoised reach) and exact values as sets of ints and Fractions (tier 3, _SetArithmetic),
memoised for the process by rules (clear_caches empties every memo, the key search's of
games.engine.fraction_keys included). games.engine.solver finds operations with them and
games.engine.reach answers can_make.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from itertools import combinations, product
from typing import Any

from .checker import Value
from .operations import normal, operate_in_bounds
from .rules import MAX_DENOMINATOR, MAX_NUMERATOR, RuleSet

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
# Materialised tier-3 key sets of small card multisets (with the rules' key), shared by every
# can_make call of the process (tables repeat their small sub-multisets), bounded by the
# values they hold; clear_caches() empties it.
_key_sets: dict[tuple[Any, ...], frozenset[int]] = {}
_key_set_values = [0]
_KEY_SET_VALUES_LIMIT = 2_000_000


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


class _BitSetReach:
    """The memoised reach of a multiset as a bit set of whole values: the solver's
    (_MaskArithmetic) and can_make's (reach._WholeReach). Each names its splits of a
    multiset (`_splits`), its `leaf`, and `_join`: the values two parts' sets make, given
    those found already (`have`)."""

    memo: dict[tuple[int, ...], int]
    limit: int
    full: int

    def leaf(self, value: int) -> int:
        raise NotImplementedError

    def _splits(self, ms: tuple[int, ...]) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
        raise NotImplementedError

    def _join(self, ma: int, mb: int, have: int) -> int:
        raise NotImplementedError

    def reach(self, ms: tuple[int, ...]) -> int:
        """Every value the cards of `ms` make, all of them used, intermediates in bounds."""
        memo = self.memo
        found = memo.get(ms)
        if found is not None:
            return found
        if len(ms) == 1:
            mask = self.leaf(ms[0])
        else:
            mask = 0
            for a, b in self._splits(ms):
                mask |= self._join(self.reach(a), self.reach(b), mask)
                if mask == self.full:
                    break
        if len(memo) > self.limit:
            memo.clear()
        memo[ms] = mask
        return mask


class _MaskArithmetic(_BitSetReach):
    """Tiers 1-2: a set of whole numbers 0..bound is one Python int used as a bit set."""

    def __init__(self, rules: RuleSet, budget: _Budget = _UNBOUNDED) -> None:
        self.rules = rules
        self.bound = int(rules.bound or 0)
        self.full = (1 << (self.bound + 1)) - 1
        self.ops = rules.operators or ""
        self.memo = _caches.setdefault(_rules_key(rules), {})
        self.limit = _CACHE_LIMIT
        self.budget = budget

    def leaf(self, value: int) -> int:
        # R3.4: an X card may stand for any whole number the tier allows.
        return self.full if value == X else 1 << value

    _splits = staticmethod(_sub_multisets)

    def _join(self, ma: int, mb: int, have: int) -> int:
        self.budget.spend()
        return self.combine(ma, mb)

    # Past C901's 12 branches on purpose: bit-set steps per operator: the tiers 1-2 hot loop.
    def combine(self, ma: int, mb: int) -> int:  # noqa: C901
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
                yield from self._quotient_pairs(a, mb, v)

    def _quotient_pairs(self, a: int, mb: int, v: int) -> Iterator[tuple[str, int, int, bool]]:
        """pairs for /: a / b = v, or b / a = v (swapped)."""
        if v and a % v == 0 and a // v and mb >> (a // v) & 1:
            yield "/", a, a // v, False
        elif a == 0 and v == 0 and mb >> 1:
            yield "/", 0, _bits(mb >> 1)[0] + 1, False  # 0 / b = 0 for any b but 0
        if a and v * a <= self.bound and mb >> (v * a) & 1:
            yield "/", v * a, a, True


class _SetArithmetic:
    """Tier 3: sets of exact fractions (ints where whole, which keeps the common case fast)."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.ops = rules.operators or ""
        self.cache = _caches.setdefault(_rules_key(rules), {})
        self.held_values = _set_values.setdefault(_rules_key(rules), [0])

    apply = staticmethod(operate_in_bounds)  # `a sym b` in bounds, or None

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

    # Past C901's 12 branches on purpose: whole pairs inline (see inside).
    def _combine_into(self, out: set[Value], ra: frozenset[Value], rb: frozenset[Value]) -> None:  # noqa: C901
        """Adds every `x sym y` and `y sym x` in bounds; whole pairs without a Fraction."""
        ops, apply = self.ops, self.apply
        plus, minus, times, divide = "+" in ops, "-" in ops, "*" in ops, "/" in ops
        power = "^" in ops
        whole_b = [y for y in rb if type(y) is int]
        frac_b = [y for y in rb if type(y) is not int]
        add = out.add
        for x in ra:
            if type(x) is int:
                # Whole pairs: operate_in_bounds written inline for + - * / (the tier 3 common
                # case; a call per pair costs it, measured with bench_common_case.py).
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
                for sym in self.ops:
                    for y in self._needed(sym, x, target, rb):
                        if y is not None and y in rb and self._checks(sym, x, y, target):
                            return True
        return False

    def _needed(
        self, sym: str, x: Value, target: Value, rb: frozenset[Value]
    ) -> list[Value | None]:
        """target = x sym y, or y sym x: the y of rb (or None) that operator would need."""
        if sym == "+":
            return [target - x]
        if sym == "-":
            return [x - target, target + x]
        if sym == "*":
            return [normal(Fraction(target) / x)] if x else ([] if target else [next(iter(rb))])
        if sym == "/":
            needed = [normal(Fraction(x) / target) if target else None, normal(target * x)]
            if x == 0 and target == 0:
                # 0 / y = 0 for every y but 0, which x / y = target cannot solve for.
                needed.append(next((y for y in rb if y != 0), None))
            return needed
        return [b2 for b2 in rb if self._checks(sym, x, b2, target)]

    def _checks(self, sym: str, x: Value, y: Value, target: Value) -> bool:
        return self.apply(sym, x, y) == target or self.apply(sym, y, x) == target


Arithmetic = _MaskArithmetic | _SetArithmetic


def _arithmetic(rules: RuleSet) -> Arithmetic:
    return _SetArithmetic(rules) if rules.tier == 3 else _MaskArithmetic(rules)


def _operand_sets(multiset: tuple[int, ...], size: int) -> Iterator[tuple[int, ...]]:
    seen: set[tuple[int, ...]] = set()
    for combo in combinations(multiset, size):
        if combo not in seen:
            seen.add(combo)
            yield combo
