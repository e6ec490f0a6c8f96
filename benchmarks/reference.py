"""One step of arithmetic written straight from RULES.md R2.2, as plain as possible.

The reference that the solver's tests and the solver's benchmark both check the engine against;
it shares no code with games/engine on purpose.
"""

from __future__ import annotations

from fractions import Fraction

from games.engine import RuleSet


def reference_step(sym: str, a: Fraction, b: Fraction, rules: RuleSet) -> Fraction | None:
    """`a sym b`, or None when R2.2 gives it no value at this tier."""
    if sym == "+":
        v = a + b
    elif sym == "-":
        v = a - b
    elif sym == "*":
        v = a * b
    elif sym == "/":
        if b == 0:
            return None
        v = a / b
    else:
        if b.denominator != 1 or not 0 <= b <= 10 or (a == 0 and b == 0):
            return None
        v = a ** int(b)
    if rules.tier < 3:
        return v if v.denominator == 1 and 0 <= v <= (rules.bound or 0) else None
    return v if abs(v.numerator) <= 10_000 and v.denominator <= 1_000 else None
