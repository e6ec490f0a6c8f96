"""The 24 game, a published figure the solver must reproduce (RULES.md R3.2, R9.4)."""

from __future__ import annotations

from itertools import combinations_with_replacement

from games.engine import RuleSet, can_make

# + - * / with fractions at intermediate steps: tier 3 without powers. 24 is no card value,
# which is why can_make takes any whole target.
RULES_24 = RuleSet(max_number=20, tier=3, operators="+-*/")


def test_1362_of_the_1820_hands_make_24() -> None:
    # R3.2 (exact rational arithmetic): of the 1,820 hands of four numbers from 1 to 13,
    # exactly 1,362 make 24 using all four.
    hands = list(combinations_with_replacement(range(1, 14), 4))
    assert len(hands) == 1820
    assert sum(can_make(hand, 24, RULES_24, use_all=True) for hand in hands) == 1362


def test_famous_hands() -> None:
    # R3.2: 8 / (3 - 8 / 3) = 24 needs a fraction on the way.
    assert can_make([3, 3, 8, 8], 24, RULES_24, use_all=True)
    assert can_make([1, 5, 5, 5], 24, RULES_24, use_all=True)  # (5 - 1/5) * 5
    assert not can_make([1, 1, 1, 1], 24, RULES_24, use_all=True)
    assert not can_make([13, 13, 13, 13], 24, RULES_24, use_all=True)
