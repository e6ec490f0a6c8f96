"""can_make's whole-number bit sets against plain brute force (RULES.md R2.2, R3.4, R9.4).

can_make first asks _WholeReach: every value made with whole intermediate results, as one
int used as a bit set. At tiers 1-2 that is every value there is; at tier 3 it is the part
made without fractions, and a target found there is made (its operation is correct).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from fractions import Fraction
from functools import cache
from math import gcd

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.reference import reference_step
from games.engine import RuleSet, can_make
from games.engine.reach import _WholeReach
from games.engine.solver import X
from tests.conftest import examples

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
def _reference(ms: tuple[int, ...], rules: RuleSet, step) -> frozenset:
    """Every value of every expression on all of ms, each step taken by `step` (None: no value)."""
    if len(ms) == 1:
        return frozenset({Fraction(ms[0]) if step is reference_step else ms[0]})
    out: set = set()
    n = len(ms)
    for mask in range(1, (1 << n) - 1):
        left = tuple(ms[i] for i in range(n) if mask >> i & 1)
        right = tuple(ms[i] for i in range(n) if not mask >> i & 1)
        for a in _reference(left, rules, step):
            for b in _reference(right, rules, step):
                for sym in rules.operators or "":
                    value = step(sym, a, b, rules)
                    if value is not None:
                        out.add(value)
    return frozenset(out)


def _whole_reference(ms: tuple[int, ...], rules: RuleSet) -> frozenset[int]:
    """Every value of every expression on all of ms whose intermediate results are whole."""
    return _reference(ms, rules, _step)


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


# --- tier 3 past the whole-number bit sets: fractions, and "no" answers ----------------------

FRACTION_RULES = [
    RuleSet(tier=3),
    RuleSet(tier=3, operators="+-*/"),
    RuleSet(tier=3, operators="+-/"),
    RuleSet(tier=3, operators="+/"),
    RuleSet(tier=3, operators="+*/"),
    RuleSet(tier=3, operators="+/^"),
]


def _fraction_reference(ms: tuple[int, ...], rules: RuleSet) -> frozenset[Fraction]:
    """Every value of every expression on all of ms, fractions included, by the reference."""
    return _reference(ms, rules, reference_step)


def _subsets(ms: tuple[int, ...], use_all: bool) -> Iterator[tuple[int, ...]]:
    """Every subset of at least two of ms (all of them with use_all), sorted (R3.1)."""
    sizes = [len(ms)] if use_all else range(2, len(ms) + 1)
    for size in sizes:
        for mask in range(1 << len(ms)):
            if bin(mask).count("1") == size:
                yield tuple(sorted(ms[i] for i in range(len(ms)) if mask >> i & 1))


def _made(ms: tuple[int, ...], rules: RuleSet, use_all: bool) -> set[int]:
    """The whole values some subset of at least two (or all) of ms makes (R3.1)."""
    made: set[int] = set()
    for sub in _subsets(ms, use_all):
        made |= {int(v) for v in _fraction_reference(sub, rules) if v.denominator == 1}
    return made


def _whole_steps(ms: tuple[int, ...], rules: RuleSet, use_all: bool, target: int) -> bool:
    whole = _WholeReach(rules)
    return any(whole.has(sub, target) for sub in _subsets(ms, use_all))


def _targets(
    made: set[int], seed: int, *, spread: int, near: int, known: int, also: Iterable[int] = ()
) -> list[int]:
    """Targets to ask: `spread` random ones over the tier's range, -near..near, `also`, and
    `known` of the values the brute force makes, in that order (repeats kept)."""
    rng = random.Random(seed)
    out = [*rng.sample(range(-10_000, 10_001), spread), *range(-near, near + 1), *also]
    return out + rng.sample(sorted(made), min(len(made), known))


@settings(max_examples=examples(0.4))
@given(
    st.lists(st.integers(0, 12), min_size=2, max_size=5),
    st.sampled_from(FRACTION_RULES),
    st.booleans(),
    st.integers(0, 10**6),
)
def test_tier3_answers_past_whole_steps_agree_with_brute_force(
    cards: list[int], rules: RuleSet, use_all: bool, seed: int
) -> None:
    # R2.2, R3.3, R9.4: every "yes" that needs a fraction on the way, and "no" answers (the
    # targets the whole-number bit sets cannot make), exactly as the brute force says
    ms = tuple(sorted(cards))
    made = _made(ms, rules, use_all)
    candidates = _targets(made, seed, spread=30, near=30, known=30)
    past_whole = [t for t in candidates if not _whole_steps(ms, rules, use_all, t)]
    for target in past_whole[:12]:
        assert can_make(list(ms), target, rules, use_all=use_all) == (target in made), target


@pytest.mark.parametrize(
    ("cards", "target", "operators", "use_all", "made"),
    [
        # R3.3: 24 = 8 / (3 - 8 / 3), a fraction on the way (R2.2: none at tier 2)
        ([3, 3, 8, 8], 24, "+-*/", True, True),
        ([1, 5, 5, 5], 24, "+-*/", True, True),  # 5 * (5 - 1 / 5)
        ([3, 3, 7, 7], 24, "+-*/", True, True),  # 7 * (3 + 3 / 7)
        ([1, 3, 4, 6], 24, "+-*/", True, True),  # 6 / (1 - 3 / 4)
        ([1, 4, 5, 6], 24, "+-*/", True, True),  # 4 / (1 - 5 / 6)
        ([1, 1, 1, 1, 1], 9973, "+-*/^", True, False),  # R2.2: far above what five 1s make
        ([2, 3, 5, 7, 11], -9991, "+-/", False, False),
        ([0, 0, 1, 2, 3], 7, "+/^", True, False),
    ],
)
def test_small_tier3_cases_agree_with_brute_force(
    cards: list[int], target: int, operators: str, use_all: bool, made: bool
) -> None:
    # R2.2, R3.3: the brute force's answer, and none of them made with whole steps alone
    rules = RuleSet(tier=3, operators=operators)
    assert not _whole_steps(tuple(sorted(cards)), rules, use_all, target)
    assert (target in _made(tuple(sorted(cards)), rules, use_all)) is made
    assert can_make(cards, target, rules, use_all=use_all) is made


@pytest.mark.parametrize(
    ("cards", "target", "operators", "use_all", "made"),
    [
        # Answers the earlier exact fraction search gave (a different algorithm); eight
        # operands are beyond the brute force of a test. R2.2: bounds on every step.
        ([12, 6, 9, 3, 0, 3, 18, 0], 9024, "+-*/", False, False),
        ([17, 6, 8, 9, 18, 8, 14], -9005, "+-*/", False, False),
        ([16, 6, 11, 16, 0, 12, 18, 13], 1010, "+/", False, False),
        ([10, 16, 16, 0, 16, 3, 4, 10], -8140, "+*/", False, False),  # no -, no X: never < 0
        ([11, 12, 2, 18, 1, 4, 1, 16], 9439, "+/", True, False),
        ([9, 0, 2, 2, 0, 12, 8, 14], -8689, "+-/", True, False),
        ([12, 9, 14, 19, 10, 17, 16, 5], -1804, "+*/^", True, False),
        ([16, 3, 5, 16, 12, 11, 15, 0], 292, "+/", True, True),  # R3.3: via a fraction
        ([9, 0, 5, 6, 10, 18, 4, 10], 9715, "+-/^", True, True),
        ([17, 0, 6, 16, 14, 18, 0, 0], -52, "+-/", False, True),
        ([12, 3, 19, 4, 8, 9, 20, 19], -291, "+-/", False, True),
        ([3, 13, 19, 11, 18, 14], 9370, "+-*/^", True, False),
        ([4, 2, 20, 16, 1, 17, 7, 3], -10, "+*^", False, False),  # no /: whole steps only
    ],
)
def test_eight_operand_tier3_answers_past_whole_steps(
    cards: list[int], target: int, operators: str, use_all: bool, made: bool
) -> None:
    # R2.2, R3.3, R9.4: "no" answers and answers that need a fraction, on 6-8 operands
    rules = RuleSet(tier=3, operators=operators)
    assert not _whole_steps(tuple(sorted(cards)), rules, use_all, target)
    assert can_make(cards, target, rules, use_all=use_all) is made


def test_9024_with_every_operator_is_made_and_the_checker_agrees() -> None:
    # R3.3, R2.2: (6 - 3 ^ 0 + (9 ^ 3 + 18)) * 12 = 9024 (found by the search, checked by
    # the judge), while without ^ it cannot be made (the case above)
    from games.engine.checker import card_values, judge

    rules = RuleSet(tier=3)
    cards = [12, 6, 9, 3, 0, 3, 18, 0, "X"]
    tree = (
        "op",
        "*",
        (
            "op",
            "+",
            ("op", "-", ("card", 1), ("op", "^", ("card", 3), ("card", 4))),
            ("op", "+", ("op", "^", ("card", 2), ("card", 5)), ("card", 6)),
        ),
        ("card", 0),
    )
    verdict = judge(tree, 8, card_values(cards), {8: 9024}, rules)
    assert verdict.ok, verdict
    assert can_make(cards[:8], 9024, rules) is True


@settings(max_examples=examples(0.6))
@given(
    st.lists(st.integers(0, 20), min_size=2, max_size=6),
    st.sampled_from(FRACTION_RULES),
    st.integers(-10_000, 10_000),
)
def test_some_part_search_is_every_sub_multiset(cards: list[int], rules: RuleSet, t: int) -> None:
    # R3.1: without use_all any cards may be left out; the one search where every card may be
    # skipped answers as the exact search of every sub-multiset of at least two cards
    from games.engine.fraction_keys import _Tier3Keys
    from games.engine.solver import _operand_sets

    ms = tuple(sorted(cards))
    keys = _Tier3Keys(rules)
    expected = any(
        keys.makes(sub, t, some=False)
        for size in range(2, len(ms) + 1)
        for sub in _operand_sets(ms, size)
    )
    assert _Tier3Keys(rules).makes(ms, t, some=True) == expected, (ms, t)


@pytest.mark.parametrize("seed", range(30))
def test_meets_is_every_pair_of_fractions(seed: int) -> None:
    """_meets (keys reduced inline: sign to the numerator, gcd, denominators past 1,000 left
    out) against every pair of two small sets of fractions, negative and fractional targets
    included. R2.2: every intermediate p/q has |p| <= 10,000 and q <= 1,000; R3.3 the
    operators; R2.2 a power's exponent is whole 0..10 and 0 ^ 0 has no value."""
    from games.engine.fraction_needs import _KEY, _meets

    rng = random.Random(seed)
    rules = RuleSet(tier=3, operators=rng.choice(["+-*/^", "+-/", "+*/", "+/^", "+-*"]))

    def some_fraction() -> Fraction:
        q = rng.choice([1, 1, 1, 2, 3, 4, 6, 7, 12, 40, 999, 1000])
        return Fraction(rng.randint(-60, 60) * rng.choice([1, 1, 50]), q)

    def in_bounds(v: Fraction) -> bool:
        return abs(v.numerator) <= 10_000 and v.denominator <= 1_000

    A = {v for v in (some_fraction() for _ in range(rng.randint(1, 12))) if in_bounds(v)}
    B = {v for v in (some_fraction() for _ in range(rng.randint(1, 12))) if in_bounds(v)}
    A.add(Fraction(rng.randint(0, 4)))  # small whole numbers: exponents, 0 and 1
    B.add(Fraction(rng.randint(0, 4)))
    made = set()
    for a in A:
        for b in B:
            for sym in rules.operators:
                for x, y in ((a, b), (b, a)):
                    v = reference_step(sym, x, y, rules)
                    if v is not None:
                        made.add(v)

    def key(v: Fraction) -> int:
        return v.numerator * _KEY + v.denominator

    la = sorted((v.numerator, v.denominator) for v in A)
    ra, rb = frozenset(key(v) for v in A), frozenset(key(v) for v in B)
    targets = {v for v in made if rng.random() < 0.3} | {some_fraction() for _ in range(20)}
    targets |= {-v for v in targets}
    for t in targets:
        if not in_bounds(t):
            continue
        got = _meets(rules.operators, la, ra, rb, t.numerator, t.denominator)
        assert got == (t in made), (rules.operators, sorted(A), sorted(B), t)


@pytest.mark.parametrize("seed", range(40))
def test_needed_sets_are_every_pair_of_fractions(seed: int) -> None:
    """_needed_per_target and _needed_per_value (the keys z with x sym z or z sym x equal to
    one of the targets, x from one set, enumerated only where z can lie in the other set's
    zone; the two ways _Tier3Keys._needs solves for them) met with the other set,
    against every pair of two small sets of fractions, several targets at once, negative,
    zero and fractional ones included. R2.2: every intermediate p/q has |p| <= 10,000 and
    q <= 1,000, a power's exponent is whole 0..10, 0 ^ 0 and x / 0 have no value; R3.3."""
    from games.engine.fraction_needs import (
        _ANY_KEY,
        _ANY_NONZERO_KEY,
        _KEY,
        _needed_per_target,
        _needed_per_value,
        _Targets,
    )

    rng = random.Random(seed)
    ops = rng.choice(["+-*/^", "+-/", "+*/", "+/^", "+-*", "+-/^", "+*/^"])
    rules = RuleSet(tier=3, operators=ops)

    def some_fraction() -> Fraction:
        q = rng.choice([1, 1, 1, 2, 3, 4, 6, 7, 12, 40, 999, 1000])
        return Fraction(rng.randint(-60, 60) * rng.choice([1, 1, 50, 150]), q)

    def in_bounds(v: Fraction) -> bool:
        return abs(v.numerator) <= 10_000 and v.denominator <= 1_000

    A = {v for v in (some_fraction() for _ in range(rng.randint(1, 14))) if in_bounds(v)}
    B = {v for v in (some_fraction() for _ in range(rng.randint(1, 14))) if in_bounds(v)}
    A.add(Fraction(rng.randint(0, 4)))  # small whole numbers: exponents, 0 and 1
    B.add(Fraction(rng.randint(0, 4)))
    made: set[Fraction] = set()
    for a in A:
        for b in B:
            for sym in ops:
                for x, y in ((a, b), (b, a)):
                    v = reference_step(sym, x, y, rules)
                    if v is not None:
                        made.add(v)

    def key(v: Fraction) -> int:
        return v.numerator * _KEY + v.denominator

    la = sorted(((v.numerator, v.denominator) for v in A), key=lambda pq: pq[0] / pq[1])
    lv = [p / q for p, q in la]
    rb = frozenset(key(v) for v in B)
    nonzero = [abs(v) for v in B if v]
    zone = (
        float(min(min(B), 0)),
        float(max(abs(v) for v in B)),
        float(min(nonzero)) if nonzero else 10_000.0,
    )
    pool = sorted({v for v in made if rng.random() < 0.3} | {some_fraction() for _ in range(30)})
    pool = [v for v in {*pool, *(-v for v in pool), Fraction(0), Fraction(1)} if in_bounds(v)]
    for _ in range(25):
        targets = rng.sample(pool, min(len(pool), rng.choice([1, 1, 2, 5, 20, 40])))
        for needed_sets in (_needed_per_target, _needed_per_value):
            got = False
            wanted = _Targets({key(t) for t in targets})
            for needed in needed_sets(ops, wanted, la, lv, zone, frozenset(key(v) for v in A)):
                got = got or not rb.isdisjoint(needed) or _ANY_KEY in needed
                got = got or (_ANY_NONZERO_KEY in needed and any(B))
            expected = any(t in made for t in targets)
            assert got == expected, (needed_sets.__name__, ops, sorted(A), sorted(B), targets)


@pytest.mark.parametrize("seed", range(6))
def test_propagated_search_is_the_whole_reach_set(seed: int) -> None:
    """R3.1, R2.2: on six cards the batched search (_propagate: sets of wanted keys pushed to
    the large parts, met with the small parts' sets) answers exactly as the six cards' whole
    reach set, built by every split, with all of them or (without use_all) any two or more."""
    from games.engine.fraction_keys import _KEY, _Tier3Keys
    from games.engine.solver import _operand_sets

    rng = random.Random(seed)
    ops = ["+-/", "+/^", "+*/", "+-*/", "+-/^", "+/"][seed]
    rules = RuleSet(tier=3, operators=ops)
    ms = tuple(sorted(rng.randint(0, 20) for _ in range(6)))
    builder = _Tier3Keys(rules)
    every = builder.reach(ms)
    some = set().union(
        *(builder.reach(sub) for size in range(2, 7) for sub in _operand_sets(ms, size))
    )
    whole = sorted(k >> 10 for k in every if k & 1023 == 1)
    targets = {0, 1, -1, *rng.sample(whole, min(len(whole), 25))}
    targets |= {rng.randint(-10_000, 10_000) for _ in range(15)}
    for t in sorted(targets):
        assert _Tier3Keys(rules).makes(ms, t, some=False) == (t * _KEY + 1 in every), (ms, t)
        assert _Tier3Keys(rules).makes(ms, t, some=True) == (t * _KEY + 1 in some), (ms, t)


@pytest.mark.parametrize("seed", range(6))
def test_keys_of_both_signs_asked_at_once_answer_as_the_whole_reach_set(seed: int) -> None:
    """R3.1, R2.2: with - and cards >= 0, keys of both signs asked of a multiset at once
    (_MIXED_KEYS: each key by its own sign's rule, x and z >= 0 for a key >= 0, no + and a
    subtrahend >= 0 for a key < 0) answer as its whole reach set, any part of the cards."""
    from games.engine.fraction_keys import _KEY, _Tier3Keys

    rng = random.Random(seed)
    rules = RuleSet(tier=3, operators=["+-/", "+-/^", "+-*/", "+-*/^", "+-*", "+-^"][seed])
    ms = tuple(sorted(rng.randint(0, 20) for _ in range(rng.choice([5, 6]))))
    made = _Tier3Keys(rules).reach(ms, some=True)
    whole = sorted(k >> 10 for k in made if k & 1023 == 1)
    pool = [*rng.sample(whole, min(len(whole), 30))]
    pool += [rng.randint(-10_000, 10_000) for _ in range(30)]
    for _ in range(12):
        asked = set(rng.sample(pool, rng.choice([2, 3, 6])))
        asked |= {-t for t in asked if rng.random() < 0.5}
        got = _Tier3Keys(rules).makes_any({ms: asked})
        assert got == any(t * _KEY + 1 in made for t in asked), (ms, sorted(asked))


@pytest.mark.parametrize("seed", range(8))
def test_fractions_near_the_tiers_bounds_answer_as_the_whole_reach_set(seed: int) -> None:
    """R2.2, R3.1: keys with large denominators and numerators near 10,000 asked of five or
    six cards (_propagate, any part of them) answer as their whole reach set: a split whose
    bounds hold no key is skipped, and c + d, c - d, d - c of two cards are left out of + and
    - only where c with every key stays within the tier (the split of c from the rest makes
    them then, w = t - c within bounds), so near the bounds they are met as they are."""
    from games.engine.fraction_keys import _KEY, _Tier3Keys

    rng = random.Random(900 + seed)
    rules = RuleSet(tier=3, operators=["+-/", "+-*/", "+/", "+-", "+-/", "+-*", "+-/", "+*/"][seed])
    ms = tuple(sorted(rng.randint(0, 20) for _ in range(rng.choice([5, 6]))))
    made = _Tier3Keys(rules).reach(ms, some=True)
    # made keys p/q with q > 1 and the largest |p| q first, and fractions next to them
    near = sorted((k for k in made if k & 1023 > 1), key=lambda k: -abs(k >> 10) * (k & 1023))
    pool = near[:40] + rng.sample(near, min(len(near), 20))
    pool += [k + rng.choice([-_KEY, _KEY]) for k in pool if abs(k >> 10) < 10_000]
    pool += [rng.randint(-10_000, 10_000) * _KEY + rng.randint(2, 1000) for _ in range(20)]
    pool = [k for k in pool if abs(k >> 10) <= 10_000 and gcd(k >> 10, k & 1023) == 1]
    for _ in range(16):
        asked = set(rng.sample(pool, rng.choice([1, 2, 5, 12])))
        got = _Tier3Keys(rules)._propagate({ms: asked}, some=True, top=None)
        assert got == any(k in made for k in asked), (rules.operators, ms, sorted(asked))


def test_a_sum_of_two_cards_past_the_slack_of_a_key_is_still_met() -> None:
    # R2.2: -689/686 is made by 3, 12, 14, 16, 17 with "+-/^" with x + z or x - z, x a sum
    # or difference of 16 and 17 and z made by 3, 12, 14. Moved one split over, 16 + (17 + z)
    # and the like would need an intermediate numerator past 10,000 (689 + 16 * 686 > 10,000),
    # so these x are still met by + and - (found by a search where the engine left them out).
    from games.engine.fraction_keys import _KEY, _Tier3Keys

    rules = RuleSet(tier=3, operators="+-/^")
    ms, k = (3, 12, 14, 16, 17), -689 * _KEY + 686
    assert k in _Tier3Keys(rules).reach(ms, some=True)
    assert _Tier3Keys(rules)._propagate({ms: {k}}, some=True, top=None)


@pytest.mark.parametrize("seed", range(8))
def test_bounds_hold_every_value_made(seed: int) -> None:
    """R2.2: the bounds of a set not built (from its parts' bounds, on floats rounded
    outwards) hold every value its cards make: largest |v|, largest denominator, a negative
    value, smallest nonzero |v|; with `some` every value of a part too."""
    from games.engine.fraction_keys import _Tier3Keys

    rng = random.Random(seed)
    ops = rng.choice(["+-*/^", "+-/", "+*/", "+/^", "+-/^", "+/"])
    rules = RuleSet(tier=3, operators=ops)
    ms = tuple(sorted(rng.randint(0, 20) for _ in range(5)))
    for some in (False, True):
        high, den, negative, low = _Tier3Keys(rules)._bounds(ms, some)
        values = [Fraction(k >> 10, k & 1023) for k in _Tier3Keys(rules).reach(ms, some)]
        assert max(abs(v) for v in values) <= high
        assert max(v.denominator for v in values) <= den
        assert negative or min(values) >= 0
        assert min(abs(v) for v in values if v) >= low


@pytest.mark.parametrize("seed", range(6))
def test_the_keys_asked_of_a_set_keep_every_value_it_makes(seed: int) -> None:
    """R2.2: of the keys a set not built is asked for (_live), every key it makes stays;
    keys past the numerator bound (|p| > 10,000: no value has one) and nonzero keys below
    its smallest nonzero |v| go, with `some` or not."""
    from games.engine.fraction_keys import _Tier3Keys
    from games.engine.rules import MAX_NUMERATOR

    rng = random.Random(seed)
    rules = RuleSet(tier=3, operators=rng.choice(["+-*/^", "+-/", "+*/", "+-/^", "+/"]))
    ms = tuple(sorted(rng.randint(0, 20) for _ in range(5)))
    for some in (False, True):
        made = _Tier3Keys(rules).reach(ms, some)
        keys = _Tier3Keys(rules)
        _high, _den, _negative, low = keys._bounds(ms, some)
        cards = {v * 1024 + 1 for v in ms}  # with `some`, a card alone: None, "made"
        asked = set(rng.sample(sorted(made - cards), min(len(made - cards), 300)))
        past = {
            p * s * 1024 + q for p in (MAX_NUMERATOR + 1, 25_000) for q in (1, 7) for s in (1, -1)
        }
        tiny = {1 * 1024 + q for q in range(2, 1001) if 1 / q < low}
        assert tiny or low <= 1 / 1000
        live = keys._live(ms, asked | past | tiny, some, top=False)
        assert live is not None
        assert asked <= live.keys
        assert live.keys.isdisjoint(past | tiny)


@pytest.mark.parametrize("seed", range(8))
def test_with_minus_a_set_asked_for_k_and_minus_k_is_asked_for_k_alone(seed: int) -> None:
    """R2.2, R3.1: with - and cards >= 0, whatever makes -k also makes k (the fold of
    _propagate: |v| is made from the same cards), so of a key asked with its opposite only
    the one >= 0 is kept (_live with `fold`); a key < 0 asked alone stays, and the answer is
    the same as with every key asked."""
    from games.engine.fraction_keys import _Tier3Keys

    rng = random.Random(seed)
    rules = RuleSet(tier=3, operators=rng.choice(["+-*/^", "+-/", "+-", "+-/^", "+-*"]))
    ms = tuple(sorted(rng.randint(0, 20) for _ in range(5)))
    for some in (False, True):
        made = _Tier3Keys(rules).reach(ms, some)
        negative = sorted(k for k in made if k < 0)
        assert all(2 * (k & 1023) - k in made for k in negative)  # -p/q made: p/q made
        cards = {v * 1024 + 1 for v in ms}  # with `some`, a card alone: None, "made"
        pairs = {k for k in negative if 2 * (k & 1023) - k not in cards}
        pairs = set(rng.sample(sorted(pairs), min(len(pairs), 40)))
        pairs |= {2 * (k & 1023) - k for k in pairs}  # each with its opposite
        alone = {-(20_000 + i) * 1024 + 1 for i in range(3)} | {-5 * 1024 + 7}
        asked = pairs | alone
        live = _Tier3Keys(rules)._live(ms, set(asked), some, top=False, fold=True)
        assert live is not None
        kept_negative = {k for k in live.keys if k < 0}
        assert kept_negative <= alone  # -k asked with k: gone
        assert {k for k in pairs if k > 0} <= live.keys
        unfolded = _Tier3Keys(rules)._live(ms, set(asked), some, top=False)
        assert unfolded is not None
        assert bool(made & live.keys) == bool(made & unfolded.keys)


@pytest.mark.parametrize("seed", range(12))
def test_bounds_of_a_built_set_are_the_same_sorted_or_not(seed: int) -> None:
    """R2.2: a built set's bounds come from one pass over its keys, the same whether or not
    the set has been sorted by value, and exact (largest |v| and smallest nonzero |v|
    rounded outwards), with `some` or not."""
    from games.engine.fraction_keys import _Tier3Keys
    from games.engine.rules import MAX_NUMERATOR

    rng = random.Random(seed)
    rules = RuleSet(tier=3, operators=rng.choice(["+-*/^", "+-/", "+*/", "+/^", "+-/^", "+/"]))
    ms = tuple(sorted(rng.randint(0, 20) for _ in range(rng.randint(1, 4))))
    if seed == 0:
        ms = (0, 0)  # makes nothing but 0 (0 / 0 has no value)
    for some in (False, True):
        one_pass = _Tier3Keys(rules)._bounds(ms, some)
        keys = _Tier3Keys(rules)
        keys.by_value(ms, some)
        assert keys._bounds(ms, some) == one_pass
        values = [Fraction(k >> 10, k & 1023) for k in keys.reach(ms, some)]
        high, den, negative, low = one_pass
        assert max(abs(v) for v in values) <= high <= max(abs(v) for v in values) * (1 + 1e-9)
        assert den == max(v.denominator for v in values)
        assert negative == (min(values) < 0)
        nonzero = [abs(v) for v in values if v]
        assert (
            low == MAX_NUMERATOR
            if not nonzero
            else min(nonzero) * (1 - 1e-9) <= low <= min(nonzero)
        )


@settings(max_examples=examples(0.4))
@given(
    st.lists(st.integers(0, 12), min_size=2, max_size=5),
    st.sampled_from([r for r in FRACTION_RULES if "/" in (r.operators or "")]),
    st.booleans(),
    st.integers(0, 10**6),
)
def test_tier3_with_division_every_target_agrees_with_brute_force(
    cards: list[int], rules: RuleSet, use_all: bool, seed: int
) -> None:
    # R2.2, R3.1, R3.3: with / the key search answers every target alone (no bit-set pass
    # first), those made with whole steps included, exactly as the brute force says
    ms = tuple(sorted(cards))
    made = _made(ms, rules, use_all)
    for target in _targets(made, seed, spread=8, near=6, known=12):
        assert can_make(list(ms), target, rules, use_all=use_all) == (target in made), target


@pytest.mark.parametrize(
    ("cards", "target", "operators", "use_all", "made"),
    [
        # Answers the earlier search gave too: on more than eight cards the bit sets go
        # first and the key search (splits into two parts of five or more) answers the rest.
        ([19, 8, 11, 20, 16, 0, 14, 7, 20], -8301, "+-/", True, True),
        ([12, 5, 2, 4, 19, 19, 14, 4, 4], -9942, "+-/", True, False),
        ([15, 7, 12, 17, 3, 18, 7, 0, 6], 3374, "+-*/^", True, True),
        ([10, 2, 9, 11, 9, 15, 10, 5, 15, 15], -4229, "+-/", True, True),
    ],
)
def test_more_than_eight_cards(
    cards: list[int], target: int, operators: str, use_all: bool, made: bool
) -> None:
    # R2.2, R3.3, R9.4: exact on larger tables too
    rules = RuleSet(tier=3, operators=operators)
    assert can_make(cards, target, rules, use_all=use_all) is made


def _nonneg_step(sym: str, a: Fraction, b: Fraction, rules: RuleSet) -> Fraction | None:
    """One step by the reference (R2.2), kept only when >= 0 (leaves come as ints)."""
    value = reference_step(sym, Fraction(a), Fraction(b), rules)
    return value if value is not None and value >= 0 else None


@settings(max_examples=examples(0.6))
@given(
    st.lists(st.integers(0, 20), min_size=1, max_size=4),
    st.sampled_from(["+-/", "+-*/^", "+-/^", "+-*/", "+-^"]),
)
def test_values_made_are_those_made_with_every_step_at_least_zero(
    cards: list[int], ops: str
) -> None:
    # R2.2: with - and cards >= 0, a value >= 0 is made exactly when it is made with every
    # intermediate result >= 0 (what _Tier3Keys._propagate asks a key >= 0 with)
    rules = RuleSet(tier=3, operators=ops)
    ms = tuple(sorted(cards))
    every = _fraction_reference(ms, rules)
    assert {Fraction(v) for v in _reference(ms, rules, _nonneg_step)} == {
        v for v in every if v >= 0
    }


@settings(max_examples=examples(0.6))
@given(
    st.lists(st.integers(0, 20), min_size=2, max_size=4),
    st.sampled_from(["+-/", "+-*/^", "+-/^", "+-*/", "+-^"]),
)
def test_negative_values_are_made_without_plus_at_the_top_and_a_subtrahend_at_least_zero(
    cards: list[int], ops: str
) -> None:
    # R2.2: with - and cards >= 0, a value < 0 is made exactly when some split makes it as
    # x - z with z >= 0, or with * / ^, never needing x + z (what _Tier3Keys._propagate
    # asks a key < 0 with)
    rules = RuleSet(tier=3, operators=ops)
    ms = tuple(sorted(cards))
    n = len(ms)
    found: set[Fraction] = set()
    for mask in range(1, (1 << n) - 1):
        left = _fraction_reference(tuple(ms[i] for i in range(n) if mask >> i & 1), rules)
        right = _fraction_reference(tuple(ms[i] for i in range(n) if not mask >> i & 1), rules)
        for x in left:
            for z in right:
                for sym in ops.replace("+", ""):
                    if sym == "-" and z < 0:
                        continue
                    value = reference_step(sym, x, z, rules)
                    if value is not None and value < 0:
                        found.add(value)
    assert found == {v for v in _fraction_reference(ms, rules) if v < 0}


@settings(max_examples=examples(0.25))
@given(
    st.lists(st.integers(0, 20), min_size=5, max_size=5),
    st.sampled_from(["+-/", "+-*/^", "+-/^"]),
    st.booleans(),
    st.integers(0, 10**6),
)
def test_propagated_search_with_minus_agrees_with_brute_force(
    cards: list[int], ops: str, use_all: bool, seed: int
) -> None:
    # R2.2, R3.1: on five cards with - the batched search (keys >= 0 asked with values >= 0
    # only, keys < 0 without + and with a subtrahend >= 0) answers exactly as the brute force
    from games.engine.fraction_keys import _Tier3Keys

    rules = RuleSet(tier=3, operators=ops)
    ms = tuple(sorted(cards))
    made = _made(ms, rules, use_all)
    for t in sorted(set(_targets(made, seed, spread=6, near=4, known=12))):
        assert _Tier3Keys(rules).makes(ms, t, some=not use_all) == (t in made), (ms, t)


@settings(max_examples=examples(0.3))
@given(
    st.lists(st.integers(0, 20), min_size=1, max_size=4),
    st.sampled_from(["+-/", "+-*/"]),
    st.booleans(),
    st.integers(0, 10**6),
)
def test_a_zero_card_agrees_with_brute_force(
    cards: list[int], ops: str, use_all: bool, seed: int
) -> None:
    # R2.2, R3.4: a 0 card absorbs any part of the rest (0 / s) or leaves it out, so the
    # rest need only make |target| with some of its cards; exactly as the brute force
    rules = RuleSet(tier=3, operators=ops)
    ms = tuple(sorted([0, *cards]))
    made = _made(ms, rules, use_all)
    also = [*cards, *(-t for t in cards)]
    for t in sorted(set(_targets(made, seed, spread=6, near=8, known=12, also=also))):
        assert can_make(list(ms), t, rules, use_all=use_all) == (t in made), (ms, t)


@settings(max_examples=examples(0.8))
@given(
    st.lists(st.integers(0, 12), min_size=1, max_size=4),
    st.integers(1, 3),
    st.sampled_from(["+-/^", "+-*/^"]),
    st.integers(0, 10**6),
)
def test_zero_cards_with_powers_agree_with_brute_force(
    cards: list[int], zeros: int, ops: str, seed: int
) -> None:
    # R2.2, R3.1: with ^ and cards left out, each 0 card is left out, turns a card c into a 1
    # (c ^ 0) or negates (0 - v); one search over the other cards with ones in place of some
    # answers exactly as the brute force
    rules = RuleSet(tier=3, operators=ops)
    ms = tuple(sorted([0] * zeros + cards))[:5]
    made = _made(ms, rules, False)
    also = [1, -1, *cards, *(-t for t in cards), *(-t for t in sorted(made)[:6])]
    for t in sorted(set(_targets(made, seed, spread=6, near=8, known=12, also=also))):
        assert can_make(list(ms), t, rules) == (t in made), (ms, t)


@pytest.mark.parametrize("seed", range(12))
def test_zero_cards_with_powers_on_more_cards_agree_with_the_direct_search(seed: int) -> None:
    # R2.2, R3.1: on 6-8 cards (the reduction's batched search over several roots) 0 cards
    # with ^ answer as the search on every card does, which the brute force checks on fewer
    from games.engine.fraction_keys import _Tier3Keys

    rng = random.Random(seed)
    rules = RuleSet(tier=3, operators=["+-/^", "+-*/^"][seed % 2])
    zeros = [1, 1, 2, 3][seed % 4]
    ms = tuple(sorted([0] * zeros + [rng.randint(0, 20) for _ in range(rng.randint(5, 8 - zeros))]))
    targets = {1, -1, 2, -7, *(rng.randint(-10_000, 10_000) for _ in range(5))}
    targets |= {rng.randint(-300, 300) for _ in range(5)}
    for t in sorted(targets):
        assert can_make(list(ms), t, rules) == _Tier3Keys(rules).makes(ms, t, some=True), (ms, t)


@pytest.mark.parametrize("seed", range(20))
def test_balanced_splits_are_every_split_once_most_even_first(seed: int) -> None:
    """R3.1: the splits a tier-3 search walks (distinct cards through the position patterns,
    repeated cards through a set) are every split of the cards into two non-empty parts,
    each unordered pair once, the most even first."""
    from games.engine.fraction_keys import _balanced_splits

    rng = random.Random(seed)
    n = rng.randint(2, 9)
    cards = rng.sample(range(21), n) if seed % 2 else [rng.randint(0, 4) for _ in range(n)]
    ms = tuple(sorted(cards))
    expected = set()
    for mask in range(1, (1 << n) - 1):
        a = tuple(ms[i] for i in range(n) if mask >> i & 1)
        b = tuple(ms[i] for i in range(n) if not mask >> i & 1)
        expected.add(min(a, b) + (None,) + max(a, b))
    splits = _balanced_splits(ms)
    assert len(splits) == len(expected)
    assert {a + (None,) + b for a, b in splits} == expected
    assert all(a <= b for a, b in splits)
    sizes = [max(len(a), len(b)) for a, b in splits]
    assert sizes == sorted(sizes)


@pytest.mark.parametrize("enabled", [True, False])
def test_the_fraction_search_leaves_the_garbage_collector_as_it_found_it(enabled: bool) -> None:
    """R2.2, R3.1: the tier-3 search with / pauses Python's cyclic garbage collector while it
    runs and gives it back as it was, on a yes, on a no, and when the caller had it off; can_make
    asks it through makes_once and makes_any_once, which pause it."""
    import gc

    from games.engine.fraction_keys import _Tier3Keys

    rules = RuleSet(tier=3, operators="+-/")
    seen: list[bool] = []

    class Watched(_Tier3Keys):
        def _live(self, *args: object, **kwargs: object) -> object:
            seen.append(gc.isenabled())
            return super()._live(*args, **kwargs)  # type: ignore[arg-type]

    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        ms = (3, 5, 7, 11, 13, 17)
        assert Watched.makes_once(rules, ms, 3 + 5 + 7, some=True)  # a yes
        assert not Watched.makes_once(rules, ms, -9_973, some=True)  # a no
        assert Watched.makes_any_once(rules, {ms: {17 - 11}})  # the batched search
        assert len(seen) >= 3 and not any(seen)  # each search's first step, at least
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


@pytest.mark.parametrize("tier", [1, 2, 3])
def test_the_process_memo_never_changes_an_answer(tier: int) -> None:
    """R2.2, R3.4: the whole-number bit sets are kept for the process (from one can_make call
    to the next, as tables repeat their small sub-multisets): the same questions asked cold
    one by one and warm in two orders give the same answers."""
    from games.engine.solver import clear_caches

    rng = random.Random(27 + tier)
    deck: list = [v for v in range(21) for _ in range(2)] + ["X"] * 4
    ops = ["+-*/^", "+-/", "+*", "+-^"] if tier == 3 else [None]
    cases = [
        (rng.sample(deck, rng.randint(2, 6)), rng.randint(0, 30), rng.choice(ops), i % 2 == 0)
        for i in range(60)
    ]

    def ask(cards: list, t: int, operators: str | None, use_all: bool) -> bool:
        return can_make(cards, t, RuleSet(tier=tier, operators=operators), use_all=use_all)

    cold = []
    for case in cases:
        clear_caches()
        cold.append(ask(*case))
    clear_caches()
    warm = [ask(*case) for case in cases]
    backwards = [ask(*case) for case in reversed(cases)][::-1]
    assert cold == warm == backwards


@pytest.mark.parametrize("seed", range(8))
def test_a_few_cards_asked_answer_as_their_whole_reach_set(seed: int) -> None:
    """R3.1, R2.2: up to four cards (a small table, the 24 game) are asked, not built whole:
    each split's parts met for the target (_whole_makes). The answer is the four cards' whole
    reach set's, with all of them, with any two or more, and with any one or more
    (makes_any's roots), asked with the process memo empty and with it full."""
    from games.engine.fraction_keys import _KEY, _Tier3Keys
    from games.engine.solver import _operand_sets, clear_caches

    rng = random.Random(seed)
    ops = ["+-*/", "+-/", "+/^", "+*/", "+-*/^", "+-/^", "+/", "+*/^"][seed]
    rules = RuleSet(tier=3, operators=ops)
    for _ in range(4):
        ms = tuple(sorted(rng.choice([0, 1, rng.randint(0, 20)]) for _ in range(rng.randint(2, 4))))
        whole = sorted(k >> 10 for k in _Tier3Keys(rules).reach(ms) if k & 1023 == 1)
        targets = sorted(
            {*range(-30, 31), *rng.sample(whole, min(len(whole), 60))}
            | {rng.randint(-10_000, 10_000) for _ in range(20)}
        )
        clear_caches()
        asked = [
            (t, _Tier3Keys(rules).makes(ms, t, some=False), _Tier3Keys(rules).makes(ms, t, True))
            for t in targets
        ]
        any_part = [_Tier3Keys(rules).makes_any({ms: {t}}) for t in targets]
        builder = _Tier3Keys(rules)
        every = builder.reach(ms)  # now in the process memo: asked again, it answers
        some = set().union(
            *(
                builder.reach(sub)
                for size in range(2, len(ms) + 1)
                for sub in _operand_sets(ms, size)
            )
        )
        one_or_more = some | {v * _KEY + 1 for v in ms}
        for (t, all_used, some_used), any_used in zip(asked, any_part, strict=True):
            key = t * _KEY + 1
            assert all_used == (key in every) == _Tier3Keys(rules).makes(ms, t, False), (ms, t)
            assert some_used == (key in some) == _Tier3Keys(rules).makes(ms, t, True), (ms, t)
            assert any_used == (key in one_or_more), (ms, t)


@pytest.mark.parametrize("operators", ["+", "+*", "+-/", "+^", "+-*/^"])
def test_two_x_cards_make_every_number_of_the_tier(operators: str) -> None:
    """R3.4: at tier 3 each X is its own whole value of -10,000..10,000, so two X cards and
    cards S make any target t within the tier: (S + X1) + X2 with X1 = -sum(S), X2 = t, every
    partial sum within |sum(S)|; + is always an operator (R2.5)."""
    rules = RuleSet(tier=3, operators=operators)
    for cards in (["X", "X"], ["X", 7, "X"], [20, 19, "X", 18, "X", 0, 17, 16]):
        for t in (0, 1, -1, 24, -9_973, 10_000, -10_000):
            assert can_make(cards, t, rules, use_all=True), (cards, t)
            assert can_make(cards, t, rules), (cards, t)
        assert not can_make(cards, 10_001, rules)
