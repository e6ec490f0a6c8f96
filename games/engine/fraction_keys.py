"""Tier 3 with fractions, on int keys (p * 1024 + q, no Fraction): every value some cards make,
and the batched search for "do these cards make t?" that can_make asks (R2.2, R3.1, R9.4).

Sets of up to four cards are built whole and memoised for the process (the memo of
games.engine.solver); for more cards, sets of wanted keys are pushed from each sub-multiset to
its large parts and met with the small parts' sets (_Tier3Keys._propagate). One step on keys
(`x sym z` for sets of values) is games.engine.fraction_steps; what a part must make for a
split to make a key (the other operand solved for) is games.engine.fraction_needs.
"""

from __future__ import annotations

import gc
from bisect import bisect_left
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from functools import cache, lru_cache
from operator import itemgetter

from .checker import Value
from .fraction_needs import (
    _ANY_KEY,
    _ANY_NONZERO_KEY,
    _ANY_SIGN,
    _KEY,
    _LOW,
    _MIXED_KEYS,
    _NEGATIVE_KEYS,
    _NONNEG_KEYS,
    _SHIFT,
    _key_signs,
    _meets,
    _needed_per_target,
    _needed_per_value,
    _needs_key,
    _PlusMinus,
    _Targets,
    _value_rows,
    _ValueRows,
)
from .fraction_steps import _combine_keys
from .reach_sets import _KEY_SET_VALUES_LIMIT, _key_set_values, _key_sets, _operand_sets, _rules_key
from .rules import MAX_DENOMINATOR, MAX_EXPONENT, MAX_NUMERATOR, RuleSet

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
# (the largest |v|, the largest denominator, whether some v < 0, the smallest nonzero |v|)
_Bounds = tuple[float, int, bool, float]


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


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a search runs (_Tier3Keys.makes_once and
    makes_any_once), and back on after if it was. The search makes no reference cycles, only
    many small sets, lists and tuples, which set off the collector dozens of times in a cold
    search on 8 cards (counted under callgrind: benchmarks/README.md). Another thread's
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
        self.bounds: dict[tuple[bool, tuple[int, ...]], _Bounds] = {}
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
            return self._small_makes(ms, {y}, least=len(ms) if not some else 2)
        return self._propagate({ms: {y}}, some, top=ms)

    def makes_any(self, roots: dict[tuple[int, ...], set[int]]) -> bool:
        """Whether some part of some multiset of `roots` (a single card included) makes one of
        the whole numbers it is asked for: one batched search for all of them, whose sets
        below the roots are shared."""
        keyed = {ms: {t * _KEY + 1 for t in ts} for ms, ts in roots.items()}
        large = {ms: keys for ms, keys in keyed.items() if len(ms) > _MATERIALISE}
        if any(
            self._small_makes(ms, keys, least=1)
            for ms, keys in keyed.items()
            if len(ms) <= _MATERIALISE
        ):
            return True
        return bool(large) and self._propagate(large, some=True, top=None)

    def _small_makes(self, ms: tuple[int, ...], keys: set[int], least: int) -> bool:
        """Whether a part of ms (at most _MATERIALISE cards) with at least `least` cards makes
        one of `keys`: a set already built answers at once, else each part is asked
        (_whole_makes), not built whole (a set of four cards is ~1,000 values, where asking
        for one value meets the sets of its parts of one to three cards)."""
        if least <= 1:
            found = self.built.get((True, ms)) or _key_sets.get((self.rkey, True, ms))
            if found is not None:
                return not found.isdisjoint(keys)
        return any(
            self._whole_makes(sub, keys)
            for size in range(max(least, 1), len(ms) + 1)
            for sub in _operand_sets(ms, size)
        )

    def _whole_makes(self, ms: tuple[int, ...], keys: set[int]) -> bool:
        """Whether ms (at most _MATERIALISE cards, all of them used) makes one of `keys`: its
        set if built (here or by an earlier call of the process), else its splits' sets met
        for each key (_meets), the parts' sets built (and kept for the process)."""
        if len(ms) == 1:
            return ms[0] * _KEY + 1 in keys
        found = self.built.get((False, ms)) or _key_sets.get((self.rkey, False, ms))
        if found is not None:
            return not found.isdisjoint(keys)
        if len(ms) == 2:
            return not self.reach(ms).isdisjoint(keys)
        ops = self.ops
        for a, b in _balanced_splits(ms):
            ra, rb = self.reach(a), self.reach(b)
            if len(ra) > len(rb):
                a, b, ra, rb = b, a, rb, ra
            la = [(k >> _SHIFT, k & _LOW) for k in ra]
            for t in keys:
                tp, tq = t >> _SHIFT, t & _LOW
                if len(la) > 4:
                    if _meets(ops, la, ra, rb, tp, tq):
                        return True
                    continue
                # a few values (a card): solved for one by one, as _split_search does
                for ep, eq in la:
                    for k in _needs_key(ops, ep, eq, tp, tq):
                        if k in rb or (k <= _ANY_NONZERO_KEY and self.has(b, k)):
                            return True
        return False

    @classmethod
    def makes_once(cls, rules: RuleSet, ms: tuple[int, ...], t: int, some: bool) -> bool:
        """cls(rules).makes(ms, t, some) for one question: the search on more than
        _MATERIALISE cards runs with the cyclic garbage collector paused
        (_collector_paused) and its sets are gone when it is back, so the collection that
        follows has only the process's memo to look at. A few cards make too few objects
        for the pause to pay (the 24 game: benchmarks/README.md)."""
        if len(ms) <= _MATERIALISE:
            return cls(rules).makes(ms, t, some)
        with _collector_paused():
            return cls(rules).makes(ms, t, some)

    @classmethod
    def makes_any_once(cls, rules: RuleSet, roots: dict[tuple[int, ...], set[int]]) -> bool:
        """cls(rules).makes_any(roots) for one question, as makes_once."""
        if all(len(ms) <= _MATERIALISE for ms in roots):
            return cls(rules).makes_any(roots)
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
        without + and with a subtrahend >= 0 (_key_signs, _needs): if u makes v < 0 as
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
                    ops = self.ops if mags is None else self._split_ops(a, b, mags, some, far)
                    if ops is None:
                        continue
                    if len(b) <= _MATERIALISE or (some, b) in self.built:
                        if self._meet(a, b, live, sign, some, ops):
                            return True
                    elif self._push(a, b, live, sign, wanted[len(b)], some, ops):
                        return True
        return False

    def _split_ops(
        self, a: tuple[int, ...], b: tuple[int, ...], mags: list[float], some: bool, far: str
    ) -> str | None:
        """The operators a split of _propagate is met with, from its parts' bounds and `mags`
        (the sorted |v| of the keys but 0): None when no key is within them (not with ^,
        whose bounds reach the tier's), `far` (no + or -) when x + z and x - z reach none."""
        bounds, flags = self.bounds, self.flags
        pa = bounds.get((False, a)) or self._bounds(a, False)
        pb = bounds.get((some, b)) or self._bounds(b, some)
        if not flags[2]:
            h, lo, _d = _split_bounds(pa, pb, *flags)
            i = bisect_left(mags, lo * (2.0 - _OUTWARDS))
            if i == len(mags) or mags[i] > h * _OUTWARDS:
                return None
        if mags[0] > (pa[0] + pb[0]) * _OUTWARDS:
            return far
        return self.ops

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
        """For each operator (and side), the keys z with `x sym z` or `z sym x` equal to a key
        t = tp/tq of `live`, x = p/q from a's values (for + and -, from those of
        _without_sums where given), z within `zone`: one set per operator, + first, by `ops`
        (all of them by default): the generator of fraction_needs._needed_per_value or
        _needed_per_target itself (not one wrapped in another: these calls are many and
        small). With _NONNEG_KEYS (every key >= 0, "-", cards >= 0: see
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
        ops = self.ops if ops is None else ops
        ra = self.built.get(key) or self.reach(a, sa)
        negative, mixed = sign == _NEGATIVE_KEYS, sign == _MIXED_KEYS
        # Solving value by value costs a little more per value than target by target per
        # target (counted under callgrind on the slowest inputs: best from about 1.5 values a
        # target). Chosen here, not in a function between: these calls are many and small.
        if 2 * len(la) < 3 * len(live.keys):
            return _needed_per_value(ops, live, la, lv, zone, ra, negative, mixed, rows, pm)
        return _needed_per_target(ops, live, la, lv, zone, ra, negative, pm)

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
                if self._sets_meet(a, b, tp, tq, some):
                    return True
                continue
            for ep, eq in la:
                for k in _needs_key(ops, ep, eq, tp, tq):
                    if has(b, k, some):
                        return True
        return False

    def _sets_meet(
        self, a: tuple[int, ...], b: tuple[int, ...], tp: int, tq: int, some: bool
    ) -> bool:
        """_split_search for a split whose parts' sets are small or built: met directly."""
        ops = self.ops
        ra, rb = self.reach(a, some), self.reach(b, some)
        if len(ra) > len(rb):
            a, b, ra, rb = b, a, rb, ra
        la = self.by_size(a, some)
        if len(la) <= 4:  # a few values: solved for one by one, no sets built
            for ep, eq in la:
                for k in _needs_key(ops, ep, eq, tp, tq):
                    if k in rb or (k <= _ANY_NONZERO_KEY and self.has(b, k, some)):
                        return True
            return False
        return _meets(ops, la, ra, rb, tp, tq)

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

    def _bounds(self, ms: tuple[int, ...], some: bool) -> _Bounds:
        """(the largest |v|, the largest denominator, whether some v is negative, the smallest
        nonzero |v|) over every v the cards make: exact for built sets, else bounds from the
        parts' bounds. Floats, rounded outwards at every step (by a relative 1e-12, far above
        a float's error): a bound may be a little loose, never wrong."""
        skey = (some, ms)
        found = self.bounds.get(skey)
        if found is not None:
            return found
        if some and len(ms) <= _MATERIALISE:
            result = self._bounds_of_parts(ms)
        elif len(ms) <= _MATERIALISE or skey in self.built:
            result = self._bounds_of_set(ms, some)
        else:
            result = self._bounds_of_splits(ms, some)
        self.bounds[skey] = result
        return result

    def _bounds_of_parts(self, ms: tuple[int, ...]) -> _Bounds:
        """Any part of a small set: its own bounds and those of any part of each of its parts
        one card smaller (as reach builds the set), none of the values sorted."""
        parts = [self._bounds(ms, False)]
        if len(ms) > 1:
            parts += [self._bounds(sub, True) for sub in _operand_sets(ms, len(ms) - 1)]
        return (
            max(part[0] for part in parts),
            max(part[1] for part in parts),
            any(part[2] for part in parts),
            min(part[3] for part in parts),
        )

    def _bounds_of_set(self, ms: tuple[int, ...], some: bool) -> _Bounds:
        """One pass over the keys (no sorting: a set only met as the larger part never is)."""
        up, down = _OUTWARDS, 2.0 - _OUTWARDS
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
        return (high * up, den, negative, low * down if high else float(MAX_NUMERATOR))

    def _bounds_of_splits(self, ms: tuple[int, ...], some: bool) -> _Bounds:
        """A large set not built: bounds from its splits' parts' bounds."""
        up, down = _OUTWARDS, 2.0 - _OUTWARDS
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
        return (min(high, float(MAX_NUMERATOR)), den, negative, max(low, down / den))


def _split_bounds(
    pa: _Bounds,
    pb: _Bounds,
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


# _Tier3Keys._needs leaves the sums out of parts of up to this many cards: for three, finding
# them cost about what leaving them out saved (counted), and ran slower (timed)
_SUMS_LEFT_OUT = 2

_OUTWARDS = 1 + 1e-12  # _Tier3Keys._bounds: a float bound widened by this at each step


# A product step (one pair of values combined by every operator, _combine_keys) costs about
# this many needed-key steps (one value solved for one operator inside a comprehension, the
# windows of _Tier3Keys._needs leaving out most of them).
_PRODUCT_STEP = 30


def _mag(pq: tuple[int, int]) -> tuple[int, int, int]:
    p, q = pq
    return (abs(p) // q, q, p)
