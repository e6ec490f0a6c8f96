"""can_make's whole-number bit sets against plain brute force (RULES.md R2.2, R3.4, R9.4).

can_make first asks _WholeReach: every value made with whole intermediate results, as one
int used as a bit set. At tiers 1-2 that is every value there is; at tier 3 it is the part
made without fractions, and a target found there is made (its operation is correct).
"""

from __future__ import annotations

import random
from fractions import Fraction
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.reference import reference_step
from games.engine import RuleSet, can_make
from games.engine.solver import X, _WholeReach

RULE_SETS = [
    RuleSet(tier=1),
    RuleSet(tier=1, bound=30),
    RuleSet(tier=2),
    RuleSet(tier=2, operators="+/"),
    RuleSet(max_number=10, tier=2, bound=12),
    RuleSet(tier=3),
    RuleSet(tier=3, operators="+^"),
    RuleSet(tier=3, operators="+-/"),
    RuleSet(tier=3, operators="+*"),
]


def _step(sym: str, a: int, b: int, rules: RuleSet) -> int | None:
    """One step by the reference (R2.2), kept only when whole."""
    value = reference_step(sym, Fraction(a), Fraction(b), rules)
    return int(value) if value is not None and value.denominator == 1 else None


@cache
def _whole_reference(ms: tuple[int, ...], rules: RuleSet) -> frozenset[int]:
    """Every value of every expression on all of ms whose intermediate results are whole."""
    if len(ms) == 1:
        return frozenset(ms)
    out: set[int] = set()
    n = len(ms)
    for mask in range(1, (1 << n) - 1):
        left = tuple(ms[i] for i in range(n) if mask >> i & 1)
        right = tuple(ms[i] for i in range(n) if not mask >> i & 1)
        for a in _whole_reference(left, rules):
            for b in _whole_reference(right, rules):
                for sym in rules.operators or "":
                    value = _step(sym, a, b, rules)
                    if value is not None:
                        out.add(value)
    return frozenset(out)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 20), min_size=1, max_size=4), st.sampled_from(RULE_SETS))
def test_whole_reach_is_every_value_made_with_whole_steps(cards: list[int], rules: RuleSet) -> None:
    # R2.2: whole intermediate results within the tier's bounds, exactly
    cards = [c for c in cards if c <= rules.x_high] or [0]
    ms = tuple(sorted(cards))
    whole = _WholeReach(rules)
    expected = _whole_reference(ms, rules)
    assert set(whole.values(whole.reach(ms))) == expected
    if len(ms) >= 2:
        rng = random.Random(len(expected))
        lo, hi = rules.x_low, rules.x_high
        for target in [*list(expected)[:40], *(rng.randint(lo - 5, hi + 5) for _ in range(40))]:
            assert whole.has(ms, target) == (target in expected), target


def _random_set(rng: random.Random, lo: int, hi: int) -> set[int]:
    kind = rng.random()
    if kind < 0.3:  # scattered over the whole range
        return set(rng.sample(range(lo, hi + 1), min(hi - lo + 1, rng.randint(1, 40))))
    if kind < 0.6:  # an interval, like an X card or X plus a card
        centre = rng.randint(lo, hi)
        return set(
            range(max(lo, centre - rng.randint(0, 300)), min(hi, centre + rng.randint(0, 300)) + 1)
        )
    near_zero = range(max(lo, -120), min(hi, 120) + 1)
    return set(rng.sample(near_zero, min(len(near_zero), rng.randint(1, 60))))


@pytest.mark.parametrize("seed", range(40))
def test_combining_two_bit_sets_is_every_pair(seed: int) -> None:
    # R2.2: a op b and b op a for every a and b, by the reference, and nothing else
    rng = random.Random(seed)
    rules = RULE_SETS[seed % len(RULE_SETS)]
    whole = _WholeReach(rules)
    lo, hi = rules.x_low, rules.x_high
    left, right = _random_set(rng, lo, hi), _random_set(rng, lo, hi)
    if len(left) * len(right) > 100_000:
        right = set(sorted(right)[:25])
    ma = sum(1 << (v - lo) for v in left)
    mb = sum(1 << (v - lo) for v in right)
    expected = {
        value
        for a in left
        for b in right
        for sym in rules.operators or ""
        for p, q in ((a, b), (b, a))
        if (value := _step(sym, p, q, rules)) is not None
    }
    assert set(whole.values(whole.combine(ma, mb))) == expected
    for target in [*rng.sample(range(lo, hi + 1), min(150, hi - lo)), *list(expected)[:80]]:
        assert whole._closes(ma, mb, target) == (target in expected), target


def test_an_x_is_every_whole_value_of_its_range() -> None:
    # R3.4: X alone is 0..bound at tiers 1-2 and -10,000..10,000 at tier 3
    for rules in (RuleSet(tier=1), RuleSet(tier=2, bound=50), RuleSet(tier=3)):
        whole = _WholeReach(rules)
        assert whole.values(whole.reach((X,))) == list(range(rules.x_low, rules.x_high + 1))


@pytest.mark.parametrize("use_all", [False, True])
def test_eight_operands_answers(use_all: bool) -> None:
    # R2.2, R3.4: yes answers on eight operands, each X its own value, and no answers
    tier3 = RuleSet(tier=3)
    assert can_make([3, 7, 10, 4, 6, 9, 2, 8], 9973, tier3, use_all=use_all) is True
    assert can_make([3, 7, 10, 4, 6, 9, 2, "X"], -9999, tier3, use_all=use_all) is True
    assert can_make([1, 2, 3, 4, 5, 6, 7, 8], 36, RuleSet(tier=1), use_all=use_all) is True
    assert can_make([1, 1, 1, 1, 1, 1, 1, 1], 9, RuleSet(tier=1), use_all=use_all) is False
    assert can_make([20] * 8, 401, RuleSet(tier=2), use_all=use_all) is False
    # two X: X1 + X2 takes every value of the tier, plus the other cards' part
    assert (
        can_make([20, 20, 20, 20, 20, 20, "X", "X"], 400, RuleSet(tier=2), use_all=use_all) is True
    )
