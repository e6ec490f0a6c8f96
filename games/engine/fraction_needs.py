"""Tier 3 on int keys (p * 1024 + q): solving `x sym z = t` for the other operand z. For one
value and one target (_needs_key, _meets: the X-card search of games.engine.fraction_keys), or
for a set of values against a set of targets at once (_needed_per_target, _needed_per_value:
the batched search of _Tier3Keys._propagate), each set of needed keys a comprehension over
value windows found by bisection (R2.2: every key within the tier's bounds).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from functools import cache, lru_cache
from math import gcd
from typing import TypeVar

from .rules import MAX_DENOMINATOR, MAX_EXPONENT, MAX_NUMERATOR

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


# Past C901's 12 branches on purpose: one branch per operator and side, the X search's inner step.
def _needs_key(ops: str, ep: int, eq: int, tp: int, tq: int) -> list[int]:  # noqa: C901
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


# Two tier 3 values p/q differ by at least 1e-6 (q <= 1,000); float error on the window ends
# of _needed_per_* (magnitudes up to 1e8) stays below 1e-8: widening them by this loses none.
_SLACK = 1e-7
_T = TypeVar("_T")
_Halves = list[tuple[list[tuple[int, int]], list[float]]]


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


# Past C901's 12 branches on purpose: a comprehension per operator and sign; many small calls.
def _needed_per_target(  # noqa: C901
    ops: str,
    targets: _Targets,
    la: list[tuple[int, int]],
    lv: list[float],
    zone: tuple[float, float, float],
    ra: frozenset[int],
    negative: bool = False,
    pm: _PlusMinus | None = None,
) -> Iterator[set[int]]:
    """The keys _Tier3Keys._needs asks for, target by target.

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


# Past C901's 12 branches on purpose: a comprehension per operator and sign; many small calls.
def _needed_per_value(  # noqa: C901
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


# Past C901's 12 branches on purpose: roots and powers per exponent, inside the key search.
def _power_needs(targets: _Targets, ra: frozenset[int]) -> set[int]:  # noqa: C901
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


# Past C901's 12 branches on purpose: two sets met for one target, one branch per operator, inline.
def _meets(  # noqa: C901
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
