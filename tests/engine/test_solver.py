"""Tests for the solver: exact "anything to do?", the largest trick, targets (RULES.md R3, R9.4)."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import combinations, product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.reference import reference_step
from games.engine import RuleSet, best_operation, can_make, check_operation, find_operation
from games.engine.errors import EngineError
from tests.conftest import examples

TIER1, TIER2, TIER3 = RuleSet(tier=1), RuleSet(tier=2), RuleSet(tier=3)
# Narrow bounds keep X cards' values few enough to enumerate by brute force.
SMALL_X_RULES = [RuleSet(max_number=10, tier=1, bound=10), RuleSet(max_number=10, tier=2, bound=12)]


# --- A reference written straight from R2.2, as slow and plain as possible -------------------


@cache
def _reachable(values: tuple[Fraction, ...], rules: RuleSet) -> frozenset[Fraction]:
    """Every value of every expression using all the values once: pick two, combine, repeat."""
    if len(values) == 1:
        return frozenset(values)
    out: set[Fraction] = set()
    for i, j in combinations(range(len(values)), 2):
        rest = tuple(v for k, v in enumerate(values) if k not in (i, j))
        for sym in rules.operators or "":
            for a, b in ((values[i], values[j]), (values[j], values[i])):
                v = reference_step(sym, a, b, rules)
                if v is not None:
                    out |= _reachable(tuple(sorted((*rest, v))), rules)
    return frozenset(out)


def _brute_largest(cards: list[int | str], rules: RuleSet) -> int:
    """The most cards any correct operation wins (0 when there is nothing to do)."""
    xs = range(rules.x_low, rules.x_high + 1)
    best = 0
    for r in range(len(cards)):
        others = [c for k, c in enumerate(cards) if k != r]
        for size in range(2, len(others) + 1):
            if size + 1 <= best:
                continue
            for combo in combinations(others, size):
                n_x = sum(c == "X" for c in combo)
                for chosen in product(xs, repeat=n_x):
                    it = iter(chosen)
                    values = tuple(sorted(Fraction(next(it) if c == "X" else c) for c in combo))
                    reach = _reachable(values, rules)
                    if cards[r] == "X":
                        ok = any(
                            v.denominator == 1 and rules.x_low <= v <= rules.x_high for v in reach
                        )
                    else:
                        ok = Fraction(cards[r]) in reach
                    if ok:
                        best = max(best, size + 1)
                        break
    return best


def _assert_checked(
    op: object, cards: list[int | str], rules: RuleSet, held: list[int | str]
) -> None:
    """R9.4: whatever the solver finds, the checker accepts, by text and by positions."""
    assert op is not None
    available = [*cards, *held]
    verdict = check_operation(op.text, available, rules)  # type: ignore[attr-defined]
    assert verdict.ok, (op, verdict)
    tokens_ok = check_operation(
        _tokens(op.text, op.positions, available),  # type: ignore[attr-defined]
        available,
        rules,
        x_values=op.x_values,  # type: ignore[attr-defined]
    )
    assert tokens_ok.ok, (op, tokens_ok)


def _tokens(
    text: str, positions: tuple[int, ...], available: list[int | str]
) -> list[dict[str, object]]:
    """The tablet form of a canonical text, card by card in order of appearance."""
    body = text.split(" (X=")[0]
    out: list[dict[str, object]] = []
    queue = list(positions)
    for part in body.replace("(", " ( ").replace(")", " ) ").split():
        if part in "+-*/^()=":
            out.append({"op": part})
        else:
            out.append({"card": queue.pop(0)})
    return out


# --- Examples --------------------------------------------------------------------------------


def test_contract_examples() -> None:
    # R4.3: "is there anything to do?"
    op = find_operation([8, 5, 13, 6], TIER2)
    assert op is not None and op.cards[-1] == op.value
    assert op.n_operands == 2  # small operations first
    assert find_operation([1, 7, 19], TIER1) is None
    assert find_operation([2, 9, 20], TIER2) is None


def test_find_is_none_with_fewer_than_three_cards() -> None:
    # R3.1: a trick has at least three cards.
    assert find_operation([4, 4], TIER1) is None
    assert find_operation(["X", "X"], TIER3) is None


def test_held_cards_come_after_the_table() -> None:
    # R3.1, R7.4: the player's held cards are theirs to use; positions follow the table's.
    op = find_operation([8, 5], TIER1, held=[13])
    assert op is not None and 2 in op.positions
    _assert_checked(op, [8, 5], TIER1, [13])


def test_best_takes_the_largest_trick() -> None:
    # R8.2 (hard players), R5.6 (the lesson): as many cards as possible.
    op = best_operation([8, 5, 13, 6, 3], TIER2)
    assert op is not None and op.n_cards == 5
    _assert_checked(op, [8, 5, 13, 6, 3], TIER2, [])
    assert best_operation([8, 5, 13, 6, 2], TIER2).n_cards == 4  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "rules",
    [
        TIER1,
        TIER2,
        TIER3,
        RuleSet(tier=2, operators="+/"),
        RuleSet(tier=2, operators="+", bound=20),
        RuleSet(tier=3, operators="+^"),
    ],
)
@pytest.mark.parametrize("others", [(5, 6), (0, 0), (20, 19), (7, 3), ("X", 9), ("X", "X")])
def test_x_and_two_cards_always_make_an_operation(
    rules: RuleSet, others: tuple[int | str, ...]
) -> None:
    # R3.4: with X and two other cards there is always something to do.
    cards: list[int | str] = ["X", *others]
    op = find_operation(cards, rules)
    _assert_checked(op, cards, rules, [])
    best = best_operation(cards, rules)
    _assert_checked(best, cards, rules, [])


def test_x_values_meet_the_tier() -> None:
    # R3.4: an X value is within 0..bound at tiers 1-2.
    rules = RuleSet(tier=2, bound=30)
    op = best_operation(["X", 20, 20, 19], rules)
    assert op is not None
    assert all(0 <= v <= 30 for v in op.x_values.values())
    _assert_checked(op, ["X", 20, 20, 19], rules, [])


def test_can_make() -> None:
    # R3.1: at least two operands; use_all for games such as the 24 game.
    assert can_make(
        [3, 3, 8, 8], 24, RuleSet(max_number=20, tier=3, operators="+-*/"), use_all=True
    )
    assert not can_make([3, 3, 8, 8], 24, RuleSet(tier=2), use_all=True)  # needs 8/(3-8/3)
    assert can_make([3, 3, 8, 8], 24, RuleSet(tier=2))  # 3 * 8 from two of them
    assert not can_make([7], 7, TIER1)
    assert can_make([1, 2, 3, 4], 10, TIER1, use_all=True)
    assert not can_make([1, 2, 3, 4], 9, TIER1, use_all=True)  # parity: 1+2+3+4 is even
    assert can_make(["X", 4], 9, TIER1)
    assert can_make(["X", 4], 9, TIER3)


# --- Properties: R9.4 over random tables -----------------------------------------------------

_CARD = st.one_of(st.integers(0, 20), st.just("X"))


@given(
    st.lists(_CARD, min_size=3, max_size=8),
    st.lists(st.integers(0, 20), max_size=2),
    st.sampled_from(
        [TIER1, TIER2, TIER3, RuleSet(tier=2, operators="+*"), RuleSet(tier=3, operators="+/^")]
    ),
)
def test_whatever_the_solver_finds_is_accepted(
    cards: list[int | str], held: list[int | str], rules: RuleSet
) -> None:
    # R9.4: the checker accepts every operation the solver returns.
    found = find_operation(cards, rules, held=held)
    best = best_operation(cards, rules, held=held)
    assert (found is None) == (best is None)
    if found is not None:
        _assert_checked(found, cards, rules, held)
        _assert_checked(best, cards, rules, held)
        assert best.n_cards >= found.n_cards  # type: ignore[union-attr]


@given(st.lists(st.integers(0, 12), min_size=3, max_size=5), st.sampled_from([TIER1, TIER2, TIER3]))
def test_nothing_to_do_is_confirmed_by_brute_force(cards: list[int | str], rules: RuleSet) -> None:
    # R9.4: a "nothing" from the solver is true, and the largest trick is the largest.
    largest = _brute_largest(cards, rules)
    found = find_operation(cards, rules)
    assert (found is None) == (largest == 0)
    best = best_operation(cards, rules)
    assert (best.n_cards if best else 0) == largest


@settings(max_examples=examples(0.6))
@given(
    st.lists(st.one_of(st.integers(0, 10), st.just("X")), min_size=3, max_size=4),
    st.sampled_from(SMALL_X_RULES),
)
def test_x_tables_are_confirmed_by_brute_force(cards: list[int | str], rules: RuleSet) -> None:
    # R3.4, R9.4: X cards searched exactly at tiers 1-2.
    largest = _brute_largest(cards, rules)
    found = find_operation(cards, rules)
    assert (found is None) == (largest == 0)
    best = best_operation(cards, rules)
    assert (best.n_cards if best else 0) == largest


@settings(max_examples=examples(0.8))
@given(
    st.lists(st.integers(1, 9), min_size=2, max_size=4),
    st.integers(0, 40),
    st.sampled_from([TIER1, TIER2, TIER3]),
)
def test_can_make_agrees_with_brute_force(operands: list[int], target: int, rules: RuleSet) -> None:
    # R3.1, R9.4: can_make with use_all is exactly "target in the reachable values".
    expected = Fraction(target) in _reachable(tuple(sorted(Fraction(v) for v in operands)), rules)
    assert can_make(operands, target, rules, use_all=True) == expected


@pytest.mark.parametrize("operators", ["+/", "+-/"])
def test_zero_divided_by_a_card_without_times(operators: str) -> None:
    # R9.4, R2.2, R2.5 — "0 / 6 = 0" is an operation when the teacher leaves out × (+ always
    # stays); the solver must
    # find it (and not fail while writing it out) at tiers 1-2 as at tier 3.
    for tier in (2, 3):
        rules = RuleSet(tier=tier, operators=operators)
        for cards in ([0, 6, 0], [6, 0, 0], [0, 0, 6, 9]):
            found = find_operation(cards, rules)
            best = best_operation(cards, rules)
            assert found is not None and best is not None, (cards, rules)
            _assert_checked(found, cards, rules, [])
            _assert_checked(best, cards, rules, [])


def test_can_make_zero_divided_without_times() -> None:
    # R3.1, R9.4 — can_make agrees with the checker: 0 / 2 = 0, and 0 / 2 / 3 / 5 = 0
    plus_divide = RuleSet(tier=3, operators="+/")  # R2.5: + is never removed
    assert can_make([0, 2], 0, plus_divide)
    assert can_make([0, 2, 3, 5], 0, plus_divide, use_all=True)
    assert can_make([2, 0], 0, RuleSet(tier=3, operators="+-/"), use_all=True)
    # but not everything: with + and / and the 0 used, nothing above 2 + 3 + 5 = 10
    assert not can_make([0, 2, 3, 5], 11, plus_divide, use_all=True)
    # X / 0 cannot make 5, but X + 0 can (X = 5) and 0 / X makes 0 (R3.4)
    assert can_make(["X", 0], 5, plus_divide)
    assert can_make(["X", 0], 0, plus_divide)


@pytest.mark.parametrize("tier", [1, 2, 3])
def test_the_largest_trick_search_is_bounded_on_crowded_tables(tier: int) -> None:
    # R8.2, R9.4 — on a sixteen-card table the search (bounded by a step budget; its time is
    # measured in benchmarks/bench_solver.py) finds at least what find_operation finds, and
    # every trick it returns is accepted by the checker
    import random

    from games.engine.solver import clear_caches

    rng = random.Random(tier)
    rules = RuleSet(tier=tier)
    for _ in range(3):
        cards = [rng.choice([*range(21), "X"]) for _ in range(16)]
        clear_caches()
        best = best_operation(cards, rules)
        found = find_operation(cards, rules)
        assert best is not None and found is not None
        assert best.n_cards >= found.n_cards
        _assert_checked(best, cards, rules, [])


def test_the_largest_trick_on_eight_cards_at_tier_3() -> None:
    # R8.2 — the table: all eight cards in one trick
    best = best_operation([3, 7, 10, 4, 6, 9, 2, 8], TIER3)
    assert best is not None and best.n_cards == 8
    _assert_checked(best, [3, 7, 10, 4, 6, 9, 2, 8], TIER3, [])


# --- can_make: exact (R2.2, R3.4) and bounded --------------------------------------------------


def _reference_can_make(
    operands: list[int | str], target: int, rules: RuleSet, use_all: bool
) -> bool:
    """Brute force: every subset (all of them with use_all), every value of every X card."""
    xs = range(rules.x_low, rules.x_high + 1)
    sizes = [len(operands)] if use_all else range(2, len(operands) + 1)
    for size in sizes:
        for combo in combinations(operands, size):
            n_x = sum(c == "X" for c in combo)
            for chosen in product(xs, repeat=n_x):
                it = iter(chosen)
                values = tuple(sorted(Fraction(next(it) if c == "X" else c) for c in combo))
                if Fraction(target) in _reachable(values, rules):
                    return True
    return False


@given(
    st.lists(st.integers(0, 12), min_size=2, max_size=4),
    st.integers(-60, 400),
    st.sampled_from(
        [TIER1, TIER2, TIER3, RuleSet(tier=3, operators="+/^"), RuleSet(tier=2, operators="+*")]
    ),
    st.booleans(),
)
def test_can_make_agrees_with_a_brute_force_reference(
    operands: list[int], target: int, rules: RuleSet, use_all: bool
) -> None:
    # R2.2, R9.4: exactly "some subset (or all) makes the target", intermediates in bounds
    assert can_make(operands, target, rules, use_all=use_all) == _reference_can_make(
        list(operands), target, rules, use_all
    )


@settings(max_examples=examples(0.8))
@given(
    st.lists(st.one_of(st.integers(0, 10), st.just("X")), min_size=2, max_size=3),
    st.integers(-3, 14),
    st.sampled_from(SMALL_X_RULES),
    st.booleans(),
)
def test_can_make_with_x_agrees_with_brute_force_at_tiers_1_2(
    operands: list[int | str], target: int, rules: RuleSet, use_all: bool
) -> None:
    # R3.4: an X stands for each whole value from 0 to the bound, no other
    assert can_make(operands, target, rules, use_all=use_all) == _reference_can_make(
        operands, target, rules, use_all
    )


@pytest.mark.parametrize("card", [0, 1, 2, 3, 7, 20])
@pytest.mark.parametrize(
    "rules", [TIER3, RuleSet(tier=3, operators="+"), RuleSet(tier=3, operators="+/^")]
)
def test_x_and_one_card_at_tier_3_agree_with_every_x_value(card: int, rules: RuleSet) -> None:
    # R3.4, R2.2: an X card takes each whole value with |X| <= 10,000 and no other; divided
    # by, or raised to, a card as readily as added to it. Every value of X is tried.
    made: set[Fraction] = set()
    for x in range(-10_000, 10_001):
        made |= _reachable(tuple(sorted((Fraction(x), Fraction(card)))), rules)
    targets = [
        *range(-10_000, -9_950),
        *range(-100, 101),
        *range(9_950, 10_001),
        4_096,
        1_024,
        -1_000,
    ]
    for target in targets:
        assert can_make(["X", card], target, rules) == (Fraction(target) in made), (card, target)


def test_can_make_no_longer_takes_an_x_value_out_of_range() -> None:
    # R3.4: X + 20 + 20 = -9990 would need X = -10030; -9960 needs X = -10000, allowed
    only_plus = RuleSet(tier=3, operators="+")
    assert not can_make(["X", 20, 20], -9990, only_plus, use_all=True)
    assert can_make(["X", 20, 20], -9960, only_plus, use_all=True)
    # R2.5: the examples used rule sets without +, which a game can no longer have
    for operators in ("*/", "/", "*^"):
        with pytest.raises(EngineError) as refused:
            RuleSet(tier=3, operators=operators)
        assert refused.value.code == "rules_invalid"
        assert refused.value.params.get("problem") == "plus_required"
    plus_ops = RuleSet(tier=3, operators="+*/")
    assert can_make(
        [2, 11, 18, 19, "X"], 16, plus_ops, use_all=True
    )  # 2 + 11 + 18 + 19 + X, X = -34
    assert can_make(
        ["X", 12, 5], 7, RuleSet(tier=3, operators="+/"), use_all=True
    )  # X / 12 + 5, X = 24 too
    assert can_make(["X", 2], 9, RuleSet(tier=3, operators="+*^"), use_all=True)
    assert not can_make(["X", 2], -10_000, RuleSet(tier=3, operators="+^"))  # X would be -10002
    assert not can_make([1, 2], 20_000, TIER3) and not can_make([1, 2], 401, TIER2)
