"""Whether some of a hand of cards make a number, exactly (can_make, R2.2, R3.4, R9.4).

Whole-number bit sets answer tiers 1-2 and tier 3 without /; with / at tier 3 the fraction
search of games.engine.fraction_keys answers; X cards go through the goal-directed
_Tier3Target. benchmarks/bench_solver.py measures it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from functools import cache
from typing import Any

from .checker import Value, card_values
from .fraction_keys import (
    _MATERIALISE,
    _balanced_splits,
    _Tier3Keys,
)
from .fraction_needs import _exact_root
from .fraction_steps import _value_key
from .operations import in_bounds, normal
from .reach_sets import (
    _CACHE_LIMIT,
    X,
    _bits,
    _BitSetReach,
    _caches,
    _MaskArithmetic,
    _operand_sets,
    _rules_key,
    _SetArithmetic,
)
from .rules import MAX_EXPONENT, MAX_NUMERATOR, RuleSet


def can_make(operands: Sequence[Any], target: int, rules: RuleSet, use_all: bool = False) -> bool:
    """Whether `target` (a whole number) can be made from at least two of the operands.

    Exact (R2.2, R3.4, R9.4): every intermediate result meets the tier, and an X operand
    stands for any whole value the tier allows an X card (0 to the bound at tiers 1-2,
    |X| <= 10,000 at tier 3), each X its own. With `use_all`, every operand must be used
    (the 24 game). A target outside the tier's numbers can never be made.

    Cost: at tiers 1-2 every intermediate is a whole number 0..bound, so bit sets of every
    sub-multiset answer it, kept for the process (tables repeat their small sub-multisets).
    At tier 3 without / no step makes a fraction, so the whole-step bit sets over
    -10,000..10,000 are the whole answer there too, and a negative target without - or X is
    a "no" at once. With / (and no X) the exact fraction search on int keys (p * 1024 + q,
    no Fraction) answers alone: up to four cards (the 24 game, most small tables) by meeting
    their parts' sets for the target, sets of up to three cards built whole and kept for the
    process; for more cards sets of wanted keys pushed from each sub-multiset to its large
    parts and met with the small parts' sets of up to four cards (_propagate), each step a
    comprehension over value windows found by bisection and a set operation. Without
    use_all it is one search in which every card may be left out, not one per subset; with
    use_all a 0 card (with - and / or *, no ^) makes it that search on the other cards, and
    without use_all a 0 card with ^ makes it one search on the other cards and on them with
    a 1 in place of one card (_zero_powers). Two X cards make every number of the tier
    (with cards summing to at most 10,000); with one the bit sets answer most "yes" and the
    goal-directed _Tier3Target the rest. It is not proved bounded. The figures (benchmarks/README.md): the common case
    beside commit 5bcc4f6 (benchmarks/bench_common_case.py), 8 random operands over every
    operator set and the slowest class found (benchmarks/bench_solver.py, each case against
    the yardstick run beside it), and the slowest cases' instructions, which the machine's
    noise does not move (benchmarks/bench_can_make_instructions.py).
    """
    values = [v for v in card_values(list(operands)) if v is not None]
    if len(values) < 2 or type(target) is not int:
        return False
    if not _a_number_of(rules, target):
        return False
    ms = tuple(sorted(X if v == "X" else v for v in values))  # type: ignore[misc]
    sizes = [len(ms)] if use_all else range(2, len(ms) + 1)
    if target < 0 and _never_below_zero(ms, rules):
        return False
    if rules.tier == 3 and _keys_alone(ms, rules):
        return _by_keys_alone(ms, target, rules, use_all)
    if rules.tier == 3 and _two_x_make_all(ms):
        return True
    if all(v == X or rules.x_low <= v <= rules.x_high for v in ms):
        # Whole intermediates: the whole answer at tiers 1-2, and every "yes" found with
        # whole steps at tier 3 (most of them), in a few big-int operations per value.
        # Larger subsets first: their balanced splits need only small parts' sets and make
        # the most values, so a "yes" comes after a few of them; once the whole multiset has
        # said no, every smaller one is a set already built (has() looks it up).
        whole = _WholeReach(rules)
        if whole.has_any(ms, sorted(sizes, reverse=True), target):
            return True
        if rules.tier < 3 or "/" not in (rules.operators or ""):
            # Without / no step makes a fraction (a power's exponent is whole, R2.2), so the
            # whole-number bit sets were already the whole answer.
            return False
    if rules.tier == 3:
        return _by_fractions(ms, target, rules, sizes, use_all)
    # Tiers 1-2 with a card past the tier's numbers: the solver's bit sets.
    arith = _MaskArithmetic(rules)
    return any(
        arith.contains(arith.reach(subset), target)
        for size in sizes
        for subset in _operand_sets(ms, size)
    )


_KEYS_ALONE = 8  # tier 3 with /: up to this many cards the key search answers alone


def _by_fractions(
    ms: tuple[int, ...], target: int, rules: RuleSet, sizes: Sequence[int], use_all: bool
) -> bool:
    """can_make at tier 3 where fractions may be needed: the key search, or with X the
    goal-directed _Tier3Target on each sub-multiset of `sizes`."""
    if X not in ms:
        return _Tier3Keys.makes_once(rules, ms, target, some=not use_all)
    search = _Tier3Target(rules)
    return any(search.has(subset, target) for size in sizes for subset in _operand_sets(ms, size))


def _never_below_zero(ms: tuple[int, ...], rules: RuleSet) -> bool:
    """+ * / ^ on numbers >= 0 never go below 0 (an X could)."""
    return "-" not in (rules.operators or "") and all(v != X and v >= 0 for v in ms)


def _a_number_of(rules: RuleSet, target: int) -> bool:
    """Whether the tier has the number `target`: 0 to the bound at tiers 1-2, |t| <= 10,000."""
    if rules.tier < 3:
        return 0 <= target <= int(rules.bound or 0)
    return abs(target) <= MAX_NUMERATOR


def _two_x_make_all(ms: tuple[int, ...]) -> bool:
    """Tier 3: (S + X1) + X2 = target, S the sum of the other cards, X1 = -S and X2 = target:
    every partial sum stays within |S| (R3.4: each X its own value), as _Tier3Target says
    at once; the bit sets of X cards (20,001 values each) would be gone through first."""
    return ms.count(X) >= 2 and sum(abs(v) for v in ms if v != X) <= MAX_NUMERATOR


def _keys_alone(ms: tuple[int, ...], rules: RuleSet) -> bool:
    """Whether the key search alone answers at tier 3: with /, no X, at most _KEYS_ALONE cards."""
    return len(ms) <= _KEYS_ALONE and X not in ms and "/" in (rules.operators or "")


def _by_keys_alone(ms: tuple[int, ...], target: int, rules: RuleSet, use_all: bool) -> bool:
    """can_make at tier 3 with / on at most _KEYS_ALONE cards, no X: the key search alone.

    Fractions possible: the exact search on int keys answers it all, whole steps included.
    A bit-set pass first would find some "yes" sooner but builds every sub-multiset's set,
    0.1-0.25 s on a "no" on 8 cards. On more cards the bit sets go first: they find most
    "yes" in milliseconds, where the key search would build whole sets of five cards
    (splits into two parts of five or more).
    """
    if 0 in ms and not use_all and target and _zero_powers(rules):
        # 0 cards with ^: each 0 left out, turning a card into a 1 (c ^ 0) or negating the
        # result (0 - v), so one search over the other cards with ones in place of some.
        return _Tier3Keys.makes_any_once(rules, _zero_power_roots(ms, target))
    if 0 in ms and _zero_absorbs(rules):
        # A 0 card: some part of the rest makes |target| (R2.2), with use_all or not.
        rest = ms[1:]  # sorted: the first card is a 0
        return target == 0 or _Tier3Keys.makes_any_once(rules, {rest: {abs(target)}})
    return _Tier3Keys.makes_once(rules, ms, target, some=not use_all)


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


def _zero_power_roots(ms: tuple[int, ...], t: int) -> dict[tuple[int, ...], set[int]]:
    """For cards ms (sorted, k >= 1 of them 0) and t != 0 (_zero_powers): for each j <= k
    and each j cards C != 0, the other cards != 0 with j ones in place of C, asked for t,
    and for |t| too while a 0 is left to negate with (j < k)."""
    k = ms.count(0)
    nonzero = ms[k:]  # sorted: the 0 cards first
    roots: dict[tuple[int, ...], set[int]] = {}
    for j in range(min(k, len(nonzero)) + 1):
        for chosen in _operand_sets(nonzero, j):
            kept = list(nonzero)
            for c in chosen:
                kept.remove(c)
            keys = roots.setdefault(tuple(sorted([*kept, *[1] * j])), set())
            keys.add(t)
            if j < k:
                keys.add(abs(t))
    return roots


def _zero_powers(rules: RuleSet) -> bool:
    """Whether, at tier 3 (cards >= 0, no X) and with cards left out, k >= 1 cards 0 together
    with the cards N != 0 make t != 0 exactly when, for some j <= k and j cards C of N, some
    part of N - C with j ones (a single card included) makes t, or makes |t| with j < k
    (_zero_power_roots). True with + - ^.

    If: a 1 in place of c is c ^ 0 (c != 0, R2.2), a part making v = t or |t| is v, or
    0 - v = -|t| with a 0 to spare, and a single card v is v + 0. Only if: follow each 0
    leaf up the tree. Its parent is w (w + 0, w - 0: the 0 is not needed), -w (0 - w), 0
    (0 * w, 0 / w, 0 ^ w, 0 - 0: a larger 0, followed up in turn) or 1 (w ^ 0 with w != 0:
    a 1 in place of w's cards, which hold a card c != 0, as parts of 0s make only 0; with
    cards left out, c alone may go and the rest stay). A -w cancels at the next step
    (u + (-w) = u - w, u - (-w) = u + w), carries up (-w - u = -(w + u), (-w) * u,
    (-w) / u, u / (-w), (-w) ^ u for u odd) or vanishes ((-w) ^ u for u even); it is never
    an exponent (exponents are 0..10). So what is left (N - C and the ones) makes t, or -t
    when some 0 negated: then it makes |t| (the fold of _Tier3Keys._propagate) and that 0
    made no 1. Without ^ no 1 appears (_zero_absorbs)."""
    ops = rules.operators or ""
    return "-" in ops and "^" in ops


_ANY, _ANY_NONZERO = "any", "any_nonzero"  # "some value" / "some value but 0" is needed


def _rational_root(value: Value, n: int) -> list[Value]:
    """The rational y with y ** n == value (n >= 1): none, one, or two of opposite signs."""
    f = Fraction(value)
    roots: list[Value] = []
    if f < 0 and n % 2 == 0:
        return roots
    num, den = abs(f.numerator), f.denominator

    rn, rd = _exact_root(num, n), _exact_root(den, n)
    if rn is None or rd is None:
        return roots
    root = normal(Fraction(rn, rd))
    roots.append(-root if f < 0 else root)
    if n % 2 == 0 and root != 0:
        roots.append(-root)
    return roots


# Each (y, e on the left) with `e sym y` or `y sym e` equal to t, one function per operator
# (_Tier3Target._wanted); _ANY and _ANY_NONZERO: any y (but 0) will do.
_Wanted = list[tuple[Value | str, bool]]


def _times_wanted(e: Value, t: Value) -> _Wanted:
    return [(normal(Fraction(t) / e), True)] if e else ([(_ANY, True)] if t == 0 else [])


def _divide_wanted(e: Value, t: Value) -> _Wanted:
    wanted: _Wanted = []
    if t:
        wanted.append((normal(Fraction(e) / t), True))
    elif e == 0:
        wanted.append((_ANY_NONZERO, True))  # 0 / y = 0 for every y but 0
    if e:
        wanted.append((normal(t * Fraction(e)), False))
    return wanted


def _power_wanted(e: Value, t: Value) -> _Wanted:
    """0 ^ 0 has no value."""
    wanted: _Wanted = [(y, True) for y in _exponents(e, t)]
    if type(e) is int and 0 <= e <= MAX_EXPONENT:
        if e == 0:
            wanted += [(_ANY_NONZERO, False)] if t == 1 else []
        else:
            wanted += [(y, False) for y in _rational_root(t, e)]
    return wanted


def _x_splits(
    ms: tuple[int, ...],
) -> list[tuple[bool, int, tuple[int, ...], tuple[int, ...]]]:
    """The splits (a, b) of cards with X that _Tier3Target._has goes through: a the part
    enumerated, without X; small parts first, those past _MATERIALISE (large) last."""
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
    return splits


_WANTED: dict[str, Callable[[Value, Value], _Wanted]] = {
    "+": lambda e, t: [(t - e, True)],
    "-": lambda e, t: [(e - t, True), (t + e, False)],
    "*": _times_wanted,
    "/": _divide_wanted,
    "^": _power_wanted,
}


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
        if not in_bounds(t):
            return False
        if len(ms) == 1:
            return self._x_fits(t) if ms[0] == X else ms[0] == t
        n_x = ms.count(X)
        if n_x == 0:
            return self._has_cards(ms, t)
        if type(t) is int and _two_x_make_all(ms):
            return True
        for large, _size, a, b in _x_splits(ms):
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
            for y, e_left in _WANTED[sym](e, t):
                if isinstance(y, str):
                    yield y, sym, e_left
                    continue
                if not in_bounds(y):
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
            normal(power * e)
            if isinstance(power, Fraction) or isinstance(e, Fraction)
            else power * e
        )
        if not in_bounds(power):
            break
    return out


class _WholeReach(_BitSetReach):
    """Every whole value a multiset of operands makes with whole intermediates, as a bit set.

    Value v is bit v - lo of one Python int over lo..hi: 0..bound at tiers 1-2 (exactly the
    tier's numbers, so this is the whole answer there), -10,000..10,000 at tier 3 (there it
    is the operations whose intermediates are all whole: each is correct (R2.2), so a target
    found here is made; fractions are left to _Tier3Target). An X operand is every whole
    value of its range (R3.4), each X its own. Sets are combined by shifts for + and -,
    by spreading a binary string for x a (multiples) and by slicing it for / d (quotients),
    so a step costs a few big-int operations per value of the smaller side.

    The sets are memoised for the process (games.engine.reach_sets' memo, emptied by
    clear_caches), as find_operation's are (and 5bcc4f6's can_make's were): tables repeat
    their small sub-multisets from one call to the next (benchmarks/README.md).
    """

    def __init__(self, rules: RuleSet) -> None:
        self.ops = rules.operators or ""
        self.lo, self.hi = (rules.x_low, rules.x_high)
        self.off = -self.lo
        self.width = self.hi - self.lo + 1
        self.full = (1 << self.width) - 1
        self.memo: dict[tuple[int, ...], int] = _caches.setdefault(
            ("whole", *_rules_key(rules)), {}
        )
        # tiers 1-2: ints of at most 401 bits; tier 3: 20,001 bits (2.5 KB) each
        self.limit = _CACHE_LIMIT if rules.tier < 3 else _WHOLE_TIER3_LIMIT
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

    _splits = staticmethod(_balanced_splits)

    # Past C901's 12 branches on purpose: bit-set steps per operator and sign: the hot loop.
    def combine(self, ma: int, mb: int, have: int = 0) -> int:  # noqa: C901
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

    _join = combine  # the values two parts make (_BitSetReach.reach)

    def has_any(self, ms: tuple[int, ...], sizes: Sequence[int], t: int) -> bool:
        """Whether some sub-multiset of `ms` of one of `sizes`, in that order, makes t."""
        return any(self.has(subset, t) for size in sizes for subset in _operand_sets(ms, size))

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

    # Past C901's 12 branches on purpose: the last step per operator on bit sets, inline.
    def _closes(self, ma: int, mb: int, t: int) -> bool:  # noqa: C901
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


_WHOLE_TIER3_LIMIT = 8_192  # tier-3 whole bit sets memoised for the process (~20 MB at most)

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
