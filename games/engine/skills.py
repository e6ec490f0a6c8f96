"""Which arithmetic skills an operation shows, for the progress reports."""

from __future__ import annotations

from fractions import Fraction

from .operations import Operation
from .rules import RuleSet

SKILLS: tuple[str, ...] = (
    "addsub_10",
    "addsub_20",
    "mult",
    "div",
    "multi_step",
    "frac_pow",
    "joker",
)


def _is_fraction(token: str) -> bool:
    # Steps read "7 / 2 = 7/2": an operator stands alone between spaces, a fraction does not.
    return "/" in token and token != "/"


def skills_of(operation: Operation, rules: RuleSet) -> frozenset[str]:
    """The skills an operation exercises (a subset of SKILLS)."""
    skills: set[str] = set()
    ops = operation.operators
    if ops & {"+", "-"}:
        # Adding and subtracting within 10 is the first thing taught; beyond 10 the second.
        # Judge by the numbers in the + and - steps: "(8 - 5) * 6 = 18" subtracts within 10.
        numbers = [
            abs(Fraction(part))
            for step in operation.steps
            if step.split()[1] in "+-"
            for part in step.split()[::2]
        ]
        skills.add("addsub_20" if any(v > 10 for v in numbers) else "addsub_10")
    if "*" in ops:
        skills.add("mult")
    if "/" in ops:
        skills.add("div")
    if operation.n_operands >= 3:
        skills.add("multi_step")
    if "^" in ops or any(_is_fraction(t) for step in operation.steps for t in step.split()):
        skills.add("frac_pow")
    if "X" in operation.cards:
        skills.add("joker")
    return frozenset(skills)
