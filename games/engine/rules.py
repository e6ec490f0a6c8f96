"""Levels and the rule set a game is played with (RULES.md R2)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

from .errors import EngineError

TIER_OPERATORS: dict[int, str] = {1: "+-", 2: "+-*/", 3: "+-*/^"}
TIER_BOUND: dict[int, int] = {1: 100, 2: 400}  # R2.2: whole numbers from 0 to this
# R2.2, tier 3: fractions p/q with |p| <= 10,000 and q <= 1,000; exponents whole, 0..10.
MAX_NUMERATOR = 10_000
MAX_DENOMINATOR = 1_000
MAX_EXPONENT = 10
NUMBER_RANGES: tuple[int, ...] = (10, 20)
OPERATOR_ORDER = "+-*/^"


# The stable `problem` keys of a "rules_invalid" refusal, one for each way a rule set can be
# impossible; `reason` is English for the CLI, `problem` is what a page translates.
RULES_PROBLEMS: frozenset[str] = frozenset(
    {
        "number_range",
        "tier",
        "no_operator",
        "operator_not_in_tier",
        "no_basic_operator",
        "plus_required",
        "bound_fixed",
        "bound_range",
        "show_steps",
        "no_level",
        "unknown_level",
    }
)


def _refuse(reason: str, problem: str) -> EngineError:
    assert problem in RULES_PROBLEMS, problem
    return EngineError("rules_invalid", reason=reason, problem=problem)


@dataclass(frozen=True)
class RuleSet:
    """The range, tier and operators a game is played at; `None` fields take the tier default."""

    max_number: int = 20
    tier: int = 1
    operators: str | None = None
    bound: int | None = None
    show_steps: bool | None = None

    def __post_init__(self) -> None:
        if self.max_number not in NUMBER_RANGES:
            raise _refuse(
                f"the number range must be 10 or 20, not {self.max_number!r}", "number_range"
            )
        if self.tier not in TIER_OPERATORS:
            raise _refuse(f"the tier must be 1, 2 or 3, not {self.tier!r}", "tier")
        tier_ops = TIER_OPERATORS[self.tier]
        ops = tier_ops if self.operators is None else self.operators
        if not isinstance(ops, str) or not ops:
            raise _refuse("at least one operator is needed", "no_operator")
        stray = sorted(set(ops) - set(tier_ops))
        if stray:
            raise _refuse(
                f"tier {self.tier} has no operator {''.join(stray)}", "operator_not_in_tier"
            )
        # A game of powers alone has almost nothing to play.
        if not set(ops) & set("+-*/"):
            raise _refuse("at least one of + - * / is needed", "no_basic_operator")
        # R2.5: a teacher may narrow the operators but never removes +, so R3.4's promise
        # (X and two other cards always make an operation) holds at every bound.
        if "+" not in ops:
            raise _refuse("+ is always kept: a game may drop - * / ^, never +", "plus_required")
        # Resolve the defaults once, so equal games compare equal and serialise identically.
        object.__setattr__(self, "operators", "".join(o for o in OPERATOR_ORDER if o in ops))
        if self.tier == 3:
            if self.bound is not None:
                raise _refuse("tier 3 has fixed bounds", "bound_fixed")
        else:
            bound = TIER_BOUND[self.tier] if self.bound is None else self.bound
            if type(bound) is not int or not self.max_number <= bound <= TIER_BOUND[self.tier]:
                raise _refuse(
                    f"the bound must be a whole number from {self.max_number} "
                    f"to {TIER_BOUND[self.tier]}, not {bound!r}",
                    "bound_range",
                )
            object.__setattr__(self, "bound", bound)
        # R2.4: intermediate results are shown at tier 1, hidden at tiers 2-3 unless set.
        steps = self.tier == 1 if self.show_steps is None else self.show_steps
        if type(steps) is not bool:
            raise _refuse("show_steps must be true or false", "show_steps")
        object.__setattr__(self, "show_steps", steps)

    @property
    def allowed_operators(self) -> frozenset[str]:
        return frozenset(self.operators or "")

    @property
    def x_low(self) -> int:
        """The smallest value an X card may stand for (R3.4)."""
        return -MAX_NUMERATOR if self.tier == 3 else 0

    @property
    def x_high(self) -> int:
        """The largest value an X card may stand for (R3.4)."""
        return MAX_NUMERATOR if self.tier == 3 else int(self.bound or 0)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def describe(self) -> dict[str, Any]:
        """What a page shows about the level."""
        return {"max_number": self.max_number, "tier": self.tier, "operators": self.operators}


def combine_levels(levels: Iterable[tuple[int, int]]) -> tuple[int, int]:
    """R2.3: the game's (number range, tier) is the lowest among its players on each axis."""
    levels = list(levels)
    if not levels:
        raise _refuse("a game needs at least one player's level", "no_level")
    for number_range, tier in levels:
        if number_range not in NUMBER_RANGES or tier not in TIER_OPERATORS:
            raise _refuse(f"unknown level ({number_range!r}, {tier!r})", "unknown_level")
    return min(r for r, _ in levels), min(t for _, t in levels)


def ruleset_for_players(
    levels: Iterable[tuple[int, int]], *, cap: RuleSet | None = None, **narrowing: Any
) -> RuleSet:
    """R2.3: the rule set for a game, lowered to the weakest player and never above `cap`.

    `cap` is what the teacher set for the game: it can lower the level further and narrow
    the operators and the bound; `narrowing` (operators, bound, show_steps) applies last.
    """
    number_range, tier = combine_levels(levels)
    options: dict[str, Any] = {}
    if cap is not None:
        number_range, tier = min(number_range, cap.max_number), min(tier, cap.tier)
        # The teacher's narrowing carries over to a lower tier where it still means something.
        ops = "".join(o for o in (cap.operators or "") if o in TIER_OPERATORS[tier])
        if "+" in ops:  # R2.5: always, since a cap keeps +
            options["operators"] = ops
        if tier < 3 and cap.bound is not None:
            options["bound"] = max(number_range, min(cap.bound, TIER_BOUND[tier]))
        if cap.tier == tier:
            options["show_steps"] = cap.show_steps
    options.update(narrowing)
    return RuleSet(max_number=number_range, tier=tier, **options)
