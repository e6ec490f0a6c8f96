"""Tier 3 with fractions, on int keys (p * 1024 + q, no Fraction): every value some cards make,
and the batched search for "do these cards make t?" that can_make asks (R2.2, R3.1, R9.4).

Sets of up to four cards are built whole and memoised for the process (the memo of
games.engine.solver); for more cards, sets of wanted keys are pushed from each sub-multiset to
its large parts and met with the small parts' sets (_Tier3Keys._propagate).
"""

from __future__ import annotations

import gc
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from fractions import Fraction
from functools import cache, lru_cache
from math import gcd
from operator import itemgetter
from typing import TypeVar

from .checker import Value
from .rules import MAX_DENOMINATOR, MAX_EXPONENT, MAX_NUMERATOR, RuleSet
from .solver import _KEY_SET_VALUES_LIMIT, _key_set_values, _key_sets, _operand_sets, _rules_key

_MATERIALISE = 4  # tier 3 reach sets up to this many cards are built whole (~1,000 values)


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


# A tier 3 value p/q (reduced, q > 0) is the int p * 1024 + q: q <= 1,000 fits the low ten
# bits, so q = key & 1023 and p = key >> 10, and sets of keys hash and compare as plain ints
# (several times cheaper than Fraction, whose every operation builds an object and a gcd).
_KEY = 1024
_SHIFT = 10
_LOW = _KEY - 1
_ANY_KEY, _ANY_NONZERO_KEY = -(1 << 62), -(1 << 62) + 1  # below every key: "any value" markers


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
    la: list[tuple[int, int]],
    lb: list[tuple[int, int]],
    ops: str,
    out: set[int],
    fold: bool = False,
) -> None:
    """Adds to `out` every `a sym b` and `b sym a` in bounds, a from la and b from lb. `fold`:
    both lists are what cards >= 0 make with "-", so each holds |v| beside every v < 0
    (_Tier3Keys._propagate), which _combine_whole uses."""
    add = out.add
    plus, minus, times, divide = "+" in ops, "-" in ops, "*" in ops, "/" in ops
    N, D, K = MAX_NUMERATOR, MAX_DENOMINATOR, _KEY
    if len(lb) == 1 and lb[0][1] == 1:
        la, lb = lb, la
    if len(la) == 1 and la[0][1] == 1:  # one whole value (a single card): its own loop
        _combine_whole(la[0][0], lb, plus, minus, times, divide, out, fold)
        pairs = []
    else:
        pairs = la
    for p1, q1 in pairs:
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
            if q1 == 1 or q2 == 1:
                # One whole: p1 + p2/q2 = (p1 q2 + p2)/q2 is reduced (as p2/q2 is), no gcd.
                d = q1 * q2
                x, y = p1 * q2, p2 * q1
                if plus:
                    s = x + y
                    if -N <= s <= N:
                        add(s * K + d)
                if minus:
                    s = x - y
                    if -N <= s <= N:
                        add(s * K + d)
                        add(d - s * K)
            elif plus or minus:
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
            if len(base) == 1:  # one value: no comprehension per exponent
                p, q = base[0]
                for e in es:
                    if e == 0:
                        if p:
                            add(K + 1)
                        continue
                    top, low = _POWER_BASES.get(e, (N, D))
                    if not (-top <= p <= top and q <= low):
                        break  # |p| ** e and q ** e only grow with e
                    add(p**e * K + q**e)
                continue
            for e in es:
                if e == 0:
                    if any(p for p, _q in base):
                        add(K + 1)  # x ^ 0 = 1 for x not 0 (0 ^ 0 has no value, R2.2)
                elif e == 1:
                    out.update([p * K + q for p, q in base])
                else:
                    # (p/q) ^ e is reduced and in bounds when |p| <= top and q <= low
                    top, low = _POWER_BASES[e]
                    out.update([p**e * K + q**e for p, q in base if -top <= p <= top and q <= low])


def _combine_whole(
    c: int,
    lb: list[tuple[int, int]],
    plus: bool,
    minus: bool,
    times: bool,
    divide: bool,
    out: set[int],
    fold: bool = False,
) -> None:
    """_combine_keys for the whole c and every p/q of lb, ^ apart: c + p/q and c - p/q are
    (c q + p)/q and (c q - p)/q, already reduced; c * p/q needs the gcd of c and q only, and
    c / (p/q) and its inverse that of c and p. With `fold` (c >= 0, and lb holds |y| beside
    every y < 0) a y < 0 adds only y - c = -(c + |y|): c + y = c - |y| and c - y = c + |y|
    come from |y|."""
    add = out.add
    N, D, K = MAX_NUMERATOR, MAX_DENOMINATOR, _KEY
    fold = fold and minus and c >= 0
    for p, q in lb:
        x = c * q
        if fold and p < 0:
            s = x - p  # c - y > 0
            if s <= N:
                add(q - s * K)
        else:
            if plus:
                s = x + p
                if -N <= s <= N:
                    add(s * K + q)
            if minus:
                s = x - p
                if -N <= s <= N:
                    add(s * K + q)
                    add(q - s * K)
        if times:
            g = gcd(c, q)
            s = c // g * p
            if -N <= s <= N:
                add(s * K + q // g)
        if divide and (c or p):
            # c / (p/q) = c q / p and its inverse p / (c q), one gcd for both
            g = gcd(c, p)
            n, d = c // g * q, p // g
            if d < 0:
                n, d = -n, -d
            if d and d <= D and -N <= n <= N:
                add(n * K + d)
            if n and (n if n > 0 else -n) <= D and d <= N:
                add((d * K + n) if n > 0 else (-d * K - n))


def _largest_base(bound: int, e: int) -> int:
    """The largest whole b >= 0 with b ** e <= bound."""
    b = 0
    while (b + 1) ** e <= bound:
        b += 1
    return b


# For e = 2..10: (the largest |p|, the largest q) of a p/q whose e-th power is in bounds
_POWER_BASES = {
    e: (_largest_base(MAX_NUMERATOR, e), _largest_base(MAX_DENOMINATOR, e))
    for e in range(2, MAX_EXPONENT + 1)
}


def _exact_root(k: int, n: int) -> int | None:
    """The whole r >= 0 with r ** n == k (k >= 0, n >= 1), if there is one."""
    r = round(k ** (1.0 / n)) if k else 0
    for c in (r - 1, r, r + 1):
        if c >= 0 and c**n == k:
            return c
    return None


@lru_cache(maxsize=65_536)
def _rational_roots_key(tp: int, tq: int, n: int) -> tuple[int, ...]:
    """The keys of the rational y with y ** n == tp / tq (n >= 1, reduced)."""
    if n == 1:
        return (tp * _KEY + tq,)
    if tp < 0 and n % 2 == 0:
        return ()

    rn, rd = _exact_root(abs(tp), n), _exact_root(tq, n)
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

    __slots__ = ("keys", "whole", "frac", "fv", "rows", "rv", "powers", "halves", "slack")

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
        # For e = 2..10, the keys that are e-th powers and the root table (_power_needs,
        # asked once per split with the same keys): found on first use.
        self.powers: list[tuple[int, dict[int, tuple[int, ...]], list[int]]] | None = None
        # rows by |value|, those > 0 and those < 0 (_halves), and the second alone: found on
        # first use (_needed_per_value, asked once per split with the same keys)
        self.halves: tuple[_Halves, _Halves] | None = None
        # The largest whole c with |p| + c q <= MAX_NUMERATOR for every key p/q (t - c and
        # c - t within the tier), plus 1 (0: not found yet)
        self.slack = 0

    def find_slack(self) -> int:
        """self.slack, found on first use."""
        N = MAX_NUMERATOR  # a key past it is in no set: whatever c, nothing makes it
        self.slack = 1 + min(
            ((N - m) // (k & _LOW) for k in self.keys if (m := abs(k >> _SHIFT)) <= N),
            default=N,
        )
        return self.slack

    def __bool__(self) -> bool:
        return bool(self.keys)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a search runs (_Tier3Keys.makes_once and
    makes_any_once), and back on after if it was. The search makes no reference cycles, only
    many small sets, lists and tuples, which set off the collector about 50 times in a cold
    search on 8 cards: 1.9% of its instructions, counted under callgrind. Another thread's
    collections wait as long."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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
        self.flags = ("*" in self.ops, "/" in self.ops, "^" in self.ops)
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
        self.rows_memo: dict[tuple[bool, tuple[int, ...], bool], _ValueRows] = {}
        self.additive_memo: dict[tuple[tuple[int, ...], bool, int], _PlusMinus] = {}

    # Sets built whole ------------------------------------------------------------------
    def reach(self, ms: tuple[int, ...], some: bool = False) -> frozenset[int]:
        """Every key the cards make (all of them, or with `some` any non-empty part)."""
        local = self.built.get((some, ms))
        if local is not None:
            return local
        key = (self.rkey, some, ms)
        found = _key_sets.get(key) if len(ms) <= _MATERIALISE else None
        if found is None:
            if len(ms) <= 1:
                found = frozenset(v * _KEY + 1 for v in ms)  # no cards make nothing
            elif some:
                # What any non-empty part makes: its own set and what any part of each of its
                # parts one card smaller makes (set unions, no arithmetic, each union built
                # once).
                found = self.reach(ms).union(
                    *(self.reach(sub, some=True) for sub in _operand_sets(ms, len(ms) - 1))
                )
            else:
                out: set[int] = set()
                fold = "-" in self.ops and ms[0] >= 0  # sorted: every card >= 0
                for a, b in _balanced_splits(ms):
                    _combine_keys(self.items(a), self.items(b), self.ops, out, fold)
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
        return self._propagate({ms: {y}}, some, top=ms)

    def makes_any(self, roots: dict[tuple[int, ...], set[int]]) -> bool:
        """Whether some part of some multiset of `roots` (a single card included) makes one of
        the whole numbers it is asked for: one batched search for all of them, whose sets
        below the roots are shared."""
        keyed = {ms: {t * _KEY + 1 for t in ts} for ms, ts in roots.items()}
        large = {ms: keys for ms, keys in keyed.items() if len(ms) > _MATERIALISE}
        if any(
            not keys.isdisjoint(self.reach(ms, some=True))
            for ms, keys in keyed.items()
            if len(ms) <= _MATERIALISE
        ):
            return True
        return bool(large) and self._propagate(large, some=True, top=None)

    @classmethod
    def makes_once(cls, rules: RuleSet, ms: tuple[int, ...], t: int, some: bool) -> bool:
        """cls(rules).makes(ms, t, some) for one question: the search runs with the cyclic
        garbage collector paused (_collector_paused) and its sets are gone when it is back,
        so the collection that follows has only the process's memo to look at."""
        with _collector_paused():
            return cls(rules).makes(ms, t, some)

    @classmethod
    def makes_any_once(cls, rules: RuleSet, roots: dict[tuple[int, ...], set[int]]) -> bool:
        """cls(rules).makes_any(roots) for one question, as makes_once."""
        with _collector_paused():
            return cls(rules).makes_any(roots)

    def _propagate(
        self,
        roots: dict[tuple[int, ...], set[int]],
        some: bool,
        top: tuple[int, ...] | None,
    ) -> bool:
        """Whether a multiset of `roots` makes one of its keys, asked of whole sets of keys at a
        time, not one by one. At the `top` (can_make's cards) at least two cards are used.

        wanted[u] is the set of keys sub-multiset u would have to make for a root to make
        one of its keys (wanted[root] = its keys). Sub-multisets are taken largest first, so that every larger set
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
        The same transform makes |v| wherever v < 0 is made: of a key < 0 wanted with its
        opposite, only the opposite is asked (_live).

        A set of keys all < 0 (a negative target, and much of what it needs) is asked
        without + and with a subtrahend >= 0 (_key_signs, _needed_sets): if u makes v < 0 as
        x sym z, it also makes v so. x + z < 0 with z >= 0 is z - |x|, and with both < 0 it
        is x - |z|; x - z with z < 0 (then x < 0 too) is |z| - |x|; |x| and |z| are made by
        the same cards (the transform above). * / ^ stay as they are. A set with both signs
        stays one set, asked in one pass over the small part's values (two passes, one per
        sign, cost more than they save), each key by its own sign's rule where the values
        are enumerated one by one against the keys (_needed_per_value, _MIXED_KEYS): the
        rules hold key by key, as every split of u is asked.

        Two shortcuts rest on every split of u being asked: a split whose parts' bounds
        (_split_bounds) hold none of the keys is not met at all, and two cards c, d met by +
        or - leave out c + d, c - d and d - c (_needs): what they would make, the split of c
        from the rest makes too, where the tier allows the step between (_Targets.slack).
        """
        n = max(len(ms) for ms in roots)
        fold = "-" in self.ops and all(ms[0] >= 0 for ms in roots)
        wanted: list[dict[tuple[int, ...], set[int]]] = [{} for _ in range(n + 1)]
        bounds, flags, up, down = self.bounds, self.flags, _OUTWARDS, 2.0 - _OUTWARDS
        far = self.ops.replace("+", "").replace("-", "")  # for a split out of reach of + and -
        for ms, keys in roots.items():
            wanted[len(ms)].setdefault(ms, set()).update(keys)
        for size in range(n, _MATERIALISE, -1):
            for u, keys in wanted[size].items():
                live = self._live(u, keys, some, top=u == top, root=u in roots, fold=fold)
                if live is None:
                    return True
                if not live:
                    continue
                sign = _key_signs(live.keys) if fold else _ANY_SIGN
                # |v| of the keys but 0, sorted: a split whose bounds hold none is skipped (not
                # with ^, whose bounds reach the tier's), and one whose x + z and x - z reach
                # none is met without + and -
                mags = (
                    None
                    if 1 in live.keys
                    else sorted({abs(k >> _SHIFT) / (k & _LOW) for k in live.keys})
                )
                for a, b in _balanced_splits(u):
                    if len(a) > len(b):
                        a, b = b, a
                    ops = self.ops
                    if mags is not None:
                        pa = bounds.get((False, a)) or self._bounds(a, False)
                        pb = bounds.get((some, b)) or self._bounds(b, some)
                        if not flags[2]:
                            h, lo, _d = _split_bounds(pa, pb, *flags)
                            i = bisect_left(mags, lo * down)
                            if i == len(mags) or mags[i] > h * up:
                                continue
                        if mags[0] > (pa[0] + pb[0]) * up:
                            ops = far
                    if len(b) <= _MATERIALISE or (some, b) in self.built:
                        if self._meet(a, b, live, sign, some, ops):
                            return True
                    elif self._push(a, b, live, sign, wanted[len(b)], some, ops):
                        return True
        return False

    def _live(
        self,
        u: tuple[int, ...],
        keys: set[int],
        some: bool,
        top: bool,
        root: bool = False,
        fold: bool = False,
    ) -> _Targets | None:
        """The keys u is asked for that it might make: those within the bounds on what it
        makes (its largest |v|, largest denominator, a negative value at all). None when one
        is a card of u: with `some` a card alone will do below the top (at the top at least
        two cards are used). With `fold` ("-", cards >= 0: see _propagate) a key < 0 asked
        with its opposite goes, at the top and the roots too: cards making -k also make k,
        asked already."""
        if some and not top and not keys.isdisjoint([v * _KEY + 1 for v in u]):
            return None
        if fold:  # -p/q has the key 2q - k
            keys = {k for k in keys if k >= 0 or 2 * (k & _LOW) - k not in keys}
        if top or root:
            # The targets are whole and within the bounds already; bounds of the whole table
            # would need every part's set built, before the first meet could say yes.
            return _Targets(keys)
        high, den, negative, low = self._bounds(u, some)
        N = MAX_NUMERATOR
        return _Targets(
            {
                k
                for k in keys
                if (q := k & _LOW) <= den
                and ((p := k >> _SHIFT) >= 0 or negative)
                and (m := p if p >= 0 else -p) <= N
                and low * q <= m <= high * q
                or k == 1
            }
        )

    def _meet(
        self,
        a: tuple[int, ...],
        b: tuple[int, ...],
        live: _Targets,
        sign: int,
        some: bool,
        ops: str | None = None,
    ) -> bool:
        """Whether `x sym z` or `z sym x` is a key of `live` for x made by a (all its cards:
        the part with fewer cards, see _propagate) and z by b (any part of it with `some`),
        both sets built. The keys the smaller set's values would need, intersected with the
        other set (|live| x |smaller| steps, fewer in the windows), or, when that is cheaper,
        the two sets combined and intersected with the keys (|a| x |b| steps). `ops`: the
        operators that might make a key here (all of them by default)."""
        sa, sb = False, some
        built = self.built  # both built: reach's memo, looked up inline (many small calls)
        ra, rb = built.get((sa, a)) or self.reach(a, sa), built.get((sb, b)) or self.reach(b, sb)
        if len(ra) > len(rb):
            a, b, ra, rb, sa, sb = b, a, rb, ra, sb, sa
        if _PRODUCT_STEP * len(rb) < len(self.ops) * len(live.keys):
            out: set[int] = set()
            _combine_keys(self.items(a, sa), self.items(b, sb), self.ops, out)
            return not out.isdisjoint(live.keys)
        nonzero_b = len(rb) > (1 in rb)  # 0 is the key 1
        high, _den, negative, low = self.bounds.get((sb, b)) or self._bounds(b, sb)
        zone = (-high if negative else 0.0, high, low)  # self.zone(b, sb), inline
        for needed in self._needs(a, sa, zone, live, sign, ops):
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
        ops: str | None = None,
    ) -> bool:
        """Adds to level[b] every key b would need to make, with a's values, a key of
        `live`; True when any value of b will do (0 * z = 0, 0 / z = 0, z ^ 0 = 1): b makes
        its sum, nonzero unless every card is 0 (and then 0 is all it makes). `ops`: as
        _meet's."""
        into = level.get(b)
        if into is None:
            into = level[b] = set()
        # a with all its cards, b with any part of it under `some` (see _propagate)
        for needed in self._needs(a, False, self.zone(b, some), live, sign, ops):
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
        ops: str | None = None,
    ) -> Iterator[set[int]]:
        """_needed_sets for the keys of `live` (by `ops`, all of them by default), x from a's
        values and z within `zone`; with _NONNEG_KEYS (every key >= 0, "-", cards >= 0: see
        _propagate) x and z >= 0 only, with _NEGATIVE_KEYS (every key < 0) no + and a
        subtrahend >= 0."""
        key = (sa, a)  # the memos looked up inline: these calls are many and small
        nonneg = sign == _NONNEG_KEYS
        if nonneg:
            la, lv = self.nonneg_memo.get(key) or self.by_value_nonneg(a, sa)
            zone = (max(zone[0], 0.0), zone[1], zone[2])
        else:
            la, lv = self.sorted_memo.get(key) or self.by_value(a, sa)

        def rows() -> _ValueRows:  # for _needed_per_value, once per set of values
            found = self.rows_memo.get((sa, a, nonneg))
            if found is None:
                found = self.rows_memo[(sa, a, nonneg)] = _value_rows(la, lv)
            return found

        # Cards taken whole: x = c + y, c - y or y - c for a card c and y made by the rest,
        # met with z by + or -, makes t when c and w = y + z (or y - z, z - y) do, the split
        # of c from the rest and the other part: w is t - c, c - t or t + c, within the tier
        # when c is below every key's slack (_Targets.slack). Those x are left out of + and -.
        pm = None
        if 1 < len(a) <= _SUMS_LEFT_OUT and not sa:
            slack = live.slack or live.find_slack()
            k = bisect_left(a, slack)  # the cards c < slack
            if k:
                pm = self.additive_memo.get((a, nonneg, k))
                if pm is None:
                    pm = self.additive_memo[(a, nonneg, k)] = self._without_sums(a, k, la, lv)
        return _needed_sets(
            self.ops if ops is None else ops,
            live,
            la,
            lv,
            zone,
            self.built.get(key) or self.reach(a, sa),
            sign == _NEGATIVE_KEYS,
            sign == _MIXED_KEYS,
            rows,
            pm,
        )

    def _without_sums(
        self, a: tuple[int, ...], k: int, la: list[tuple[int, int]], lv: list[float]
    ) -> _PlusMinus:
        """The values la (values lv) of cards a taken whole but c + y, c - y and y - c for c
        one of the first k cards and y made by the rest, for + and - (_needs)."""
        K, minus = _KEY, "-" in self.ops
        sums: set[int] = set()
        for i, c in enumerate(a[:k]):
            if i and c == a[i - 1]:
                continue
            rest = a[:i] + a[i + 1 :]
            for y in self.built.get((False, rest)) or self.reach(rest):
                p, q = y >> _SHIFT, y & _LOW
                sums.add((c * q + p) * K + q)
                if minus:
                    sums.add((c * q - p) * K + q)
                    sums.add((p - c * q) * K + q)
        keep = [i for i, (p, q) in enumerate(la) if p * K + q not in sums]
        lp, lpv = [la[i] for i in keep], [lv[i] for i in keep]
        return lp, lpv, _value_rows(lp, lpv)

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
            # Any part of a small set: its own bounds and those of any part of each of its
            # parts one card smaller (as reach builds the set), none of the values sorted.
            parts = [self._bounds(ms, False)]
            if len(ms) > 1:
                parts += [self._bounds(sub, True) for sub in _operand_sets(ms, len(ms) - 1)]
            result = (
                max(part[0] for part in parts),
                max(part[1] for part in parts),
                any(part[2] for part in parts),
                min(part[3] for part in parts),
            )
        elif len(ms) <= _MATERIALISE or skey in self.built:
            # One pass over the keys (no sorting: a set only met as the larger part never is).
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
        else:
            times, divide, power = self.flags
            memo, bounds = self.bounds, self._bounds
            high = float(max(ms))
            low = float(min((v for v in ms if v), default=MAX_NUMERATOR))
            den = 1
            negative = "-" in self.ops
            floor = down / MAX_DENOMINATOR  # the smallest nonzero |v| a value can have, widened
            for a, b in _balanced_splits(ms):
                pa = memo.get((some, a)) or bounds(a, some)
                pb = memo.get((some, b)) or bounds(b, some)
                negative = negative or pa[2] or pb[2]
                h, lo, d = _split_bounds(pa, pb, times, divide, power)
                high = max(high, h) * up
                low = min(low, lo) * down
                den = max(den, d)
                if high >= MAX_NUMERATOR and den >= MAX_DENOMINATOR and negative and low <= floor:
                    break  # as loose as the tier's bounds (R2.2): no split can loosen them more
            den = min(den, MAX_DENOMINATOR)
            result = (min(high, float(MAX_NUMERATOR)), den, negative, max(low, down / den))
        self.bounds[skey] = result
        return result


def _split_bounds(
    pa: tuple[float, int, bool, float],
    pb: tuple[float, int, bool, float],
    times: bool,
    divide: bool,
    power: bool,
) -> tuple[float, float, int]:
    """(the largest |v|, the smallest nonzero |v|, the largest denominator) of `x sym z` for x
    and z within the bounds pa and pb (_Tier3Keys._bounds) of two parts, not yet widened."""
    ha, da, _na, la = pa
    hb, db, _nb, lb = pb
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
        d = max(d, int(da * hb * db * _OUTWARDS), int(db * ha * da * _OUTWARDS))
    if power:
        for hx, lx, dx, hy in ((ha, la, da, hb), (hb, lb, db, ha)):
            top = int(min(MAX_EXPONENT, hy))
            h = max(h, 1.0, min(hx, MAX_NUMERATOR + 1.0) ** top)
            lo = min(lo, 1.0, lx**top)
            d = max(d, min(dx, MAX_DENOMINATOR + 1) ** top)
    return h, lo, d


# A product step (one pair of values combined by every operator, _combine_keys) costs about
# this many needed-key steps (one value solved for one operator inside a comprehension, the
# windows of _needed_sets leaving out most of them).
_PRODUCT_STEP = 30
# Two tier 3 values p/q differ by at least 1e-6 (q <= 1,000); float error on the window ends
# of _needed_sets (magnitudes up to 1e8) stays below 1e-8: widening them by this loses none.
_SLACK = 1e-7
_T = TypeVar("_T")
_Halves = list[tuple[list[tuple[int, int]], list[float]]]
_OUTWARDS = 1 + 1e-12  # _Tier3Keys._bounds: a float bound widened by this at each step


# How the keys of a _Targets are solved for (_Tier3Keys._needs): every sign, all >= 0 (the
# fold of _propagate), all < 0, or both signs, each key by its own sign's rule.
_ANY_SIGN, _NONNEG_KEYS, _NEGATIVE_KEYS, _MIXED_KEYS = 0, 1, -1, 2


def _key_signs(keys: set[int]) -> int:
    """How a set of keys is solved for, given cards >= 0 and "-" (see _propagate): all >= 0,
    all < 0, or both signs (_MIXED_KEYS: in one pass, each key by its own sign's rule)."""
    if all(k >= 0 for k in keys):  # a key's sign is its numerator's (q < _KEY)
        return _NONNEG_KEYS
    if all(k < 0 for k in keys):
        return _NEGATIVE_KEYS
    return _MIXED_KEYS


def _needed_sets(
    ops: str,
    targets: _Targets,
    la: list[tuple[int, int]],
    lv: list[float],
    zone: tuple[float, float, float],
    ra: frozenset[int],
    negative: bool = False,
    mixed: bool = False,
    rows: Callable[[], _ValueRows] | None = None,
    pm: _PlusMinus | None = None,
) -> Iterator[set[int]]:
    """For each operator (and side), the keys z with `x sym z` or `z sym x` equal to a target
    t = tp/tq, x = p/q from la (for + and -, from pm's values where given: _without_sums):
    one set per operator, + first. The generator itself, of _needed_per_value for fewer than
    1.5 values a target, else of _needed_per_target (not one wrapped in another: these calls
    are many and small)."""
    # Solving value by value costs a little more per value than target by target per target
    # (counted under callgrind on the slowest inputs: best from about 1.5 values a target).
    if 2 * len(la) < 3 * len(targets.keys):
        return _needed_per_value(ops, targets, la, lv, zone, ra, negative, mixed, rows, pm)
    return _needed_per_target(ops, targets, la, lv, zone, ra, negative, mixed, pm)


def _needed_per_target(
    ops: str,
    targets: _Targets,
    la: list[tuple[int, int]],
    lv: list[float],
    zone: tuple[float, float, float],
    ra: frozenset[int],
    negative: bool = False,
    mixed: bool = False,
    pm: _PlusMinus | None = None,
) -> Iterator[set[int]]:
    """_needed_sets target by target.

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
    K, D, E = _KEY, MAX_DENOMINATOR, _SLACK
    zlo, zhi, zmin = zone
    bl, br = bisect_left, bisect_right
    whole, frac = targets.whole, targets.frac
    # Every target < 0 (see _propagate): no x + z, and a subtrahend >= 0 (z in x - z, x in
    # z - x).
    sub_lo = max(zlo, 0.0) if negative else zlo
    la_all, lv_all = la, lv
    if pm is not None:
        la, lv = pm[0], pm[1]  # for + and -
    i0 = bl(lv, 0.0) if negative else 0  # z - x: from the first x >= 0 on
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
            for p, q in la[max(i0, bl(lv, zlo - t - E)) : br(lv, zhi - t + E)]
        }
        if frac:
            s |= {
                (n // g) * K + d // g
                for tv, tp, tq in frac
                for p, q in la[max(i0, bl(lv, zlo - tv - E)) : br(lv, zhi - tv + E)]
                if (d := tq * q) // (g := gcd(n := tp * q + p * tq, d)) <= D
            }
        yield s
    if "*" not in ops and "/" not in ops:
        if "^" in ops:
            yield _power_needs(targets, ra)
        return
    la, lv = la_all, lv_all
    zero_t = 0 in whole
    nonzero = whole if not zero_t else [t for t in whole if t]
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
    mixed: bool = False,
    rows: Callable[[], _ValueRows] | None = None,
    pm: _PlusMinus | None = None,
) -> Iterator[set[int]]:
    """_needed_per_target with the roles swapped, for few values and many targets: for each x of la,
    the targets t for which some z of `zone` gives `x sym z` or `z sym x` = t, a slice of
    the targets sorted by value (the same keys, fewer bisections). Whole and fractional
    targets in one list, as these calls are many and small: one comprehension per operator,
    two for + and - (whole x without a gcd, fractional x with one). `mixed`: see below."""
    K, D, E = _KEY, MAX_DENOMINATOR, _SLACK
    zlo, zhi, zmin = zone
    bl, br = bisect_left, bisect_right
    ts, tv = targets.rows, targets.rv
    xs, xw, xf, xw_nonneg, xf_nonneg, nonzero = rows() if rows else _value_rows(la, lv)
    if pm is not None:  # for + and -
        _xs, xw, xf, xw_nonneg, xf_nonneg, _nonzero = pm[2]
    # Every target < 0: no x + z, and a subtrahend >= 0 (z in x - z, x in z - x). `mixed`
    # (both signs, see _propagate): each target by its own sign's rule. Those >= 0 want x and
    # z >= 0; in x - z and z - x that is the subtrahend >= 0 again, as the result is >= 0.
    # x + z with x, z >= 0 is >= 0; x * z, x / z and z / x with x < 0 only for a target < 0.
    sub_lo = max(zlo, 0.0) if negative or mixed else zlo
    if "+" in ops and not negative:  # x + z = t: t from x + zlo to x + zhi
        pw, pf, plo = xw, xf, zlo
        if mixed:
            pw, pf, plo = xw_nonneg, xf_nonneg, sub_lo
        s = {
            (tp - p * tq) * K + tq
            for p, x in pw
            for tp, tq in ts[bl(tv, x + plo - E) : br(tv, x + zhi + E)]
        }
        if pf:
            s |= {
                (n // g) * K + d // g
                for (p, q), x in pf
                for tp, tq in ts[bl(tv, x + plo - E) : br(tv, x + zhi + E)]
                if (d := tq * q) // (g := gcd(n := tp * q - p * tq, d)) <= D
            }
        yield s
    if "-" in ops:  # x - z = t: t from x - zhi to x - zlo; z - x = t: from zlo - x to zhi - x
        s = {
            (p * tq - tp) * K + tq
            for p, x in xw
            for tp, tq in ts[bl(tv, x - zhi - E) : br(tv, x - sub_lo + E)]
        }
        if xf:
            s |= {
                (n // g) * K + d // g
                for (p, q), x in xf
                for tp, tq in ts[bl(tv, x - zhi - E) : br(tv, x - sub_lo + E)]
                if (d := tq * q) // (g := gcd(n := p * tq - tp * q, d)) <= D
            }
        yield s
        sub = negative or mixed  # z - x: the subtrahend x >= 0
        s = {
            (tp + p * tq) * K + tq
            for p, x in (xw_nonneg if sub else xw)
            for tp, tq in ts[bl(tv, zlo - x - E) : br(tv, zhi - x + E)]
        }
        if xf:
            s |= {
                (n // g) * K + d // g
                for (p, q), x in (xf_nonneg if sub else xf)
                for tp, tq in ts[bl(tv, zlo - x - E) : br(tv, zhi - x + E)]
                if (d := tq * q) // (g := gcd(n := tp * q + p * tq, d)) <= D
            }
        yield s
    if "*" not in ops and "/" not in ops:
        if "^" in ops:
            yield _power_needs(targets, ra)
        return
    zero_t = 1 in targets.keys  # 0's key
    top = max(-zlo, zhi, 1e-9)
    halves = targets.halves  # the same for every split of a multiset: found once
    if halves is None:
        # All targets but 0 by |value| in one list (one window per x, not one per sign),
        # and for x < 0 with `mixed` the targets < 0 only (the half whose first is < 0).
        by_size = sorted((abs(v), row) for row, v in zip(ts, tv, strict=True) if v)
        whole = [([row for _m, row in by_size], [m for m, _row in by_size])] if by_size else []
        below = [half for half in _halves(ts, tv) if half[0][0][0] < 0]
        halves = targets.halves = (whole, below)
    th, th_neg = halves
    if not mixed:
        th_neg = th
    zero_x = len(nonzero) < len(xs)
    # For x not 0 and t not 0: x * z = t with zmin <= |z| <= top when |x| zmin <= |t| <=
    # |x| top; x / z = t when |x| / top <= |t| <= |x| / zmin; z / x = t when zmin / |x| <=
    # |t| <= top / |x|. t = 0 and x = 0 apart.
    if "*" in ops:  # x * z = t: z = t / x
        s = {
            (n // g) * K + d // g
            for (p, q), m, positive in nonzero
            for part, pv in (th if positive else th_neg)
            for tp, tq in part[bl(pv, m * zmin - E) : br(pv, m * top + E)]
            if (d := tq * abs(p)) // (g := gcd(n := (tp * q if p > 0 else -tp * q), d)) <= D
        }
        if zero_t:
            if nonzero:
                s.add(1)  # x * 0 = 0
            if zero_x:
                s.add(_ANY_KEY)  # 0 * z = 0 for every z
        yield s
    if "/" in ops:
        # x / z = t: z = x / t; any z but 0 when x = t = 0
        s = {
            (n // g) * K + d // g
            for (p, q), m, positive in nonzero
            for part, pv in (th if positive else th_neg)
            for tp, tq in part[bl(pv, m / top - E) : br(pv, m / zmin + E)]
            if (d := q * abs(tp)) // (g := gcd(n := (p * tq if tp > 0 else -p * tq), d)) <= D
        }
        if zero_x and zero_t:
            s.add(_ANY_NONZERO_KEY)
        yield s
        # z / x = t: z = t * x; z = 0 when t = 0
        s = {
            (n // g) * K + d // g
            for (p, q), m, positive in nonzero
            for part, pv in (th if positive else th_neg)
            for tp, tq in part[bl(pv, zmin / m - E) : br(pv, top / m + E)]
            if (d := tq * q) // (g := gcd(n := tp * p, d)) <= D
        }
        if zero_t and nonzero:
            s.add(1)  # 0 / x = 0
        yield s
    if "^" in ops:
        yield _power_needs(targets, ra)


# A set's values as _needed_per_value takes them (_value_rows)
_ValueRows = tuple[
    list[tuple[tuple[int, int], float]],
    list[tuple[int, float]],
    list[tuple[tuple[int, int], float]],
    list[tuple[int, float]],
    list[tuple[tuple[int, int], float]],
    list[tuple[tuple[int, int], float, bool]],
]


def _value_rows(la: list[tuple[int, int]], lv: list[float]) -> _ValueRows:
    """The values of la (values lv) as _needed_per_value goes through them, the same for every
    split they are met in: all as ((p, q), x); the whole ones as (p, x) (with t whole, t - x,
    x - t and t + x have t's own denominator, no gcd) and the others as ((p, q), x), each
    list also with its x >= 0 alone; and those but 0 as ((p, q), |x|, x > 0)."""
    xs = list(zip(la, lv, strict=True))
    xw = [(p, x) for (p, q), x in xs if q == 1]
    xf = [row for row in xs if row[0][1] != 1] if len(xw) < len(xs) else []
    return (
        xs,
        xw,
        xf,
        [row for row in xw if row[1] >= 0],
        [row for row in xf if row[1] >= 0],
        [(pq, abs(x), x > 0) for pq, x in xs if x],
    )


# A set's values without those made by + or - with a lone card at the top
# (_Tier3Keys._without_sums): (p, q) pairs sorted by value, their values, and the same as
# _value_rows
_PlusMinus = tuple[list[tuple[int, int]], list[float], _ValueRows]
# _Tier3Keys._needs leaves the sums out of parts of up to this many cards: for three, finding
# them cost about what leaving them out saved (counted), and ran slower (timed)
_SUMS_LEFT_OUT = 2


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
    powers = targets.powers
    if powers is None:
        powers = targets.powers = []
        for e in range(2, MAX_EXPONENT + 1):
            roots = _root_table(e)
            if found := [k for k in keys if k in roots]:
                powers.append((e, roots, found))
    s: set[int] = set()
    if K + 1 in keys and len(ra) > (1 in ra):
        s.add(1)  # x ^ 0 = 1 for x not 0: z = 0 (its key is 1)
    if not keys.isdisjoint(ra):
        s.add(K + 1)  # x ^ 1 = x
    for e, roots, found in powers:  # x ^ e = t: some x is an e-th root of t
        if any(not ra.isdisjoint(roots[k]) for k in found):
            s.add(e * K + 1)
    if K + 1 in ra:  # z ^ 1 = t
        s |= keys
    if 1 in ra and K + 1 in keys:  # z ^ 0 = 1 for z not 0
        s.add(_ANY_NONZERO_KEY)
    for e, roots, found in powers:  # z ^ e = t, e one of the x
        if e * K + 1 in ra:
            for k in found:
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
