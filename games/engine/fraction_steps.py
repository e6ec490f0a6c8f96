"""Tier 3 on int keys (p * 1024 + q, no Fraction): one step, `x sym z` for every x of one set
of values and z of another, in bounds (R2.2): the building of _Tier3Keys' reach sets
(games.engine.fraction_keys). Solving a step for an operand instead is
games.engine.fraction_needs; the same arithmetic on numbers is operations.operate.
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd

from .checker import Value
from .fraction_needs import _KEY, _fkey
from .rules import MAX_DENOMINATOR, MAX_EXPONENT, MAX_NUMERATOR


def _value_key(value: Value) -> int | None:
    if type(value) is int:
        return value * _KEY + 1 if -MAX_NUMERATOR <= value <= MAX_NUMERATOR else None
    f = Fraction(value)
    return _fkey(f.numerator, f.denominator)


# Past C901's 12 branches on purpose: the key search's pair loop, inline: a call a pair costs it.
def _combine_keys(  # noqa: C901
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


# Past C901's 12 branches on purpose: _combine_keys' loop for a whole value, inline likewise.
def _combine_whole(  # noqa: C901
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
