"""Tests for levels and rule sets (RULES.md R2)."""

from __future__ import annotations

import pytest

from games.engine import EngineError, RuleSet, combine_levels, find_operation, ruleset_for_players
from games.engine.rules import RULES_PROBLEMS


def test_tier_defaults() -> None:
    # R2.2: the operators and bounds of each tier.
    assert RuleSet(tier=1).allowed_operators == {"+", "-"}
    assert RuleSet(tier=1).bound == 100
    assert RuleSet(tier=2).allowed_operators == {"+", "-", "*", "/"}
    assert RuleSet(tier=2).bound == 400
    assert RuleSet(tier=3).allowed_operators == {"+", "-", "*", "/", "^"}
    assert RuleSet(tier=3).bound is None


def test_x_range_follows_the_tier() -> None:
    # R3.4: 0 to the tier's bound at tiers 1-2, |value| <= 10,000 at tier 3.
    assert (RuleSet(tier=1).x_low, RuleSet(tier=1).x_high) == (0, 100)
    assert (RuleSet(tier=2, bound=50).x_low, RuleSet(tier=2, bound=50).x_high) == (0, 50)
    assert (RuleSet(tier=3).x_low, RuleSet(tier=3).x_high) == (-10_000, 10_000)


def test_narrowing_operators_and_bound() -> None:
    # R2.2 with the teacher's narrowing: tier 2 without division, a lower bound.
    rules = RuleSet(tier=2, operators="*+-", bound=100)
    assert rules.operators == "+-*"  # normalised, so equal games compare equal
    assert rules == RuleSet(tier=2, operators="+-*", bound=100)
    assert rules.bound == 100


@pytest.mark.parametrize(
    "kwargs",
    [
        {"tier": 4},
        {"max_number": 15},
        {"tier": 1, "operators": "+*"},
        {"tier": 2, "operators": ""},
        {"tier": 3, "operators": "^"},
        {"tier": 2, "bound": 500},
        {"tier": 2, "bound": 10},
        {"tier": 3, "bound": 100},
    ],
)
def test_impossible_rules_are_refused(kwargs: dict[str, object]) -> None:
    # R2.2: only the tier's operators, a bound within the tier's, never above.
    with pytest.raises(EngineError) as caught:
        RuleSet(**kwargs)  # type: ignore[arg-type]
    assert caught.value.code == "rules_invalid"


@pytest.mark.parametrize("operators", ["*", "-*/", "/"])
def test_narrowing_never_removes_plus(operators: str) -> None:
    # R2.5: a teacher may remove - * / ^, never +; the refusal has a stable problem key
    with pytest.raises(EngineError) as caught:
        RuleSet(tier=2, operators=operators, bound=20)
    assert caught.value.code == "rules_invalid"
    assert caught.value.params["problem"] == "plus_required"
    assert RuleSet(tier=2, operators="+", bound=20).operators == "+"


def test_every_rules_refusal_has_a_stable_problem_key() -> None:
    # R2.2, R2.5: each impossible rule set is told apart by a key from RULES_PROBLEMS
    builds = [
        lambda: RuleSet(max_number=15),
        lambda: RuleSet(tier=4),
        lambda: RuleSet(tier=2, operators=""),
        lambda: RuleSet(tier=1, operators="+*"),
        lambda: RuleSet(tier=3, operators="^"),
        lambda: RuleSet(tier=3, operators="-^"),
        lambda: RuleSet(tier=3, bound=100),
        lambda: RuleSet(tier=2, bound=500),
        lambda: RuleSet(tier=2, show_steps="yes"),  # type: ignore[arg-type]
        lambda: combine_levels([]),
        lambda: combine_levels([(15, 1)]),
    ]
    problems = []
    for build in builds:
        with pytest.raises(EngineError) as caught:
            build()
        assert caught.value.code == "rules_invalid"
        problems.append(caught.value.params["problem"])
    assert set(problems) == RULES_PROBLEMS and len(problems) == len(RULES_PROBLEMS)


def test_x_and_two_cards_make_an_operation_at_every_narrowed_bound() -> None:
    # R2.5, R3.4: with + kept, X and two other cards always make an operation, whatever the
    # operators and the bound; the example of issue 13 (tier 2, only *, bound 20) is refused
    with pytest.raises(EngineError):
        RuleSet(tier=2, operators="*", bound=20)
    for tier, operator_sets in ((1, ["+", "+-"]), (2, ["+", "+*", "+/", "+-*/"])):
        for operators in operator_sets:
            for bound in (20, 21, 37, 100):
                rules = RuleSet(tier=tier, operators=operators, bound=bound)
                for a, b in ((13, 17), (20, 20), (0, 19), (20, 1)):
                    assert find_operation(["X", a, b], rules) is not None, (rules, a, b)


def test_show_steps_default() -> None:
    # R2.4: intermediate results shown at tier 1; a setting, off by default, at tiers 2-3.
    assert RuleSet(tier=1).show_steps is True
    assert RuleSet(tier=2).show_steps is False
    assert RuleSet(tier=3, show_steps=True).show_steps is True


def test_round_trip_and_describe() -> None:
    rules = RuleSet(max_number=10, tier=2, operators="+-*")
    assert RuleSet.from_dict(rules.to_dict()) == rules
    assert rules.describe() == {"max_number": 10, "tier": 2, "operators": "+-*"}


def test_lowest_level_wins_on_each_axis() -> None:
    # R2.3: the weakest player sets the range and the tier, independently.
    assert combine_levels([(20, 3), (10, 2), (20, 1)]) == (10, 1)
    assert combine_levels([(20, 2), (20, 3)]) == (20, 2)
    with pytest.raises(EngineError):
        combine_levels([])


def test_teacher_may_set_lower_never_higher() -> None:
    # R2.3: the teacher's cap lowers the game; it cannot raise it above the weakest player.
    assert ruleset_for_players([(20, 3), (20, 3)], cap=RuleSet(max_number=10, tier=2)) == RuleSet(
        max_number=10, tier=2
    )
    assert ruleset_for_players([(10, 1), (20, 3)], cap=RuleSet(max_number=20, tier=3)) == RuleSet(
        max_number=10, tier=1
    )
    # Narrowing carries to a lower tier where it still means something.
    narrowed = ruleset_for_players([(20, 2)], cap=RuleSet(tier=3, operators="+*"))
    assert narrowed.operators == "+*"
    assert ruleset_for_players([(20, 2)], operators="+-").operators == "+-"
