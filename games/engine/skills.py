"""Which arithmetic skills an operation shows, and what each move was for each skill.

The one home of these facts: `skills_of` reads a judged operation (correct or wrong), or its
stored form (`Operation.to_dict()` or the game's `operation_dict`), and returns skill keys
from SKILLS. It judges by what the child computed: the operation as announced, evaluated
exactly, so a wrong "8 + 4 = 10" is a try at 8 + 4, whose true sum 12 is beyond 10.
`attempts_of` says, for one recorded move of a child, which skills it was a try at and
whether it was right, wrong or missed: the live skill grid and the reports both read it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from .operations import Operation, StepWrong, operate
from .parser import ParseFailure, parse_announcement
from .rules import RuleSet

SKILLS: tuple[str, ...] = (  # the skills of an operation's shape
    "addsub_10",
    "addsub_20",
    "mult",
    "div",
    "multi_step",
    "frac_pow",
    "joker",
)

# Two skills that come from the game rather than from an operation's shape.
SPOTTING = "spotting"  # right vs false "Kavet 'm eus!" challenges (R5.4, R5.5)
NOTICING = "noticing"  # "nothing to do" said rightly, vs an operation overlooked (R5.6)
GAME_SKILLS: tuple[str, ...] = (SPOTTING, NOTICING)
# Every skill key, in the order reports show them: the one home of these keys.
ALL_SKILLS: tuple[str, ...] = SKILLS + GAME_SKILLS

# What one move was for one skill.
RIGHT, WRONG, MISSED = "right", "wrong", "missed"

Step = tuple[Fraction, str, Fraction, Fraction]  # a sym b = value, the true value


def _true_steps(text: str) -> tuple[list[Step], int, bool, set[str]] | None:
    """The steps an announcement's canonical text asks for, with their true values.

    Returns (steps, operands, X used, operators), or None when the text cannot be read.
    A step whose value does not exist (÷ 0, 0^0, an exponent out of range) is left out, and
    so is every step above it: nothing was computed there.
    """
    try:
        parsed = parse_announcement(text)
    except ParseFailure:
        return None
    x_values = iter(parsed.x_assignments)
    steps: list[Step] = []
    operators: set[str] = set()
    counts = {"operands": 0, "x": False}

    def leaf(node: tuple[Any, ...]) -> Fraction | None:
        if node[0] == "x":
            counts["x"] = True
            value = next(x_values, None)
            return None if value is None else Fraction(value)
        return Fraction(node[1])

    def walk(node: tuple[Any, ...]) -> Fraction | None:
        kind = node[0]
        if kind == "step":
            return walk(node[2])
        if kind != "op":
            counts["operands"] += 1
            return leaf(node)
        sym = node[1]
        operators.add(sym)
        a, b = walk(node[2]), walk(node[3])
        if a is None or b is None:
            return None
        try:
            value: Fraction | None = Fraction(operate(sym, a, b))
        except StepWrong:
            value = None
        if value is not None:
            steps.append((a, sym, b, value))
        return value

    walk(parsed.expression)
    if parsed.result[0] == "x":
        counts["x"] = True
    return steps, counts["operands"], bool(counts["x"]), operators


def _text_of(operation: Operation | Mapping[str, Any]) -> str:
    if isinstance(operation, Operation):
        return operation.text
    return str(operation.get("text") or "")


def skills_of(
    operation: Operation | Mapping[str, Any], rules: RuleSet | None = None
) -> frozenset[str]:
    """The skills an operation exercises (a subset of SKILLS), correct or wrong.

    `operation` is an Operation or its stored form (a dict with its canonical "text", as
    Operation.to_dict and the game's operation_dict keep it). `rules` is not needed: the
    skills depend on the operation alone; it is accepted for callers that pass it.
    """
    read = _true_steps(_text_of(operation))
    if read is None:
        return frozenset()
    steps, operands, x_used, operators = read
    skills: set[str] = set()
    if operators & {"+", "-"}:
        # Adding and subtracting within 10 is the first thing taught; beyond 10 the second.
        # Judge by the numbers of the + and - steps: "(8 - 5) * 6 = 18" subtracts within 10.
        numbers = [abs(v) for a, sym, b, value in steps if sym in "+-" for v in (a, b, value)]
        skills.add("addsub_20" if any(v > 10 for v in numbers) else "addsub_10")
    if "*" in operators:
        skills.add("mult")
    if "/" in operators:
        skills.add("div")
    if operands >= 3:
        skills.add("multi_step")
    if "^" in operators or any(
        v.denominator != 1 for a, _sym, b, value in steps for v in (a, b, value)
    ):
        skills.add("frac_pow")
    if x_used:
        skills.add("joker")
    return frozenset(skills)


def outcome_of(
    *,
    kind: str,
    ok: bool | None,
    verdict_kind: str = "",
    missed: bool = False,
    challenge_outcome: str = "",
) -> str | None:
    """RIGHT, WRONG or MISSED for one move of a child, or None while it is not ruled.

    The move as games.models.Play records it from the engine's events: `kind` "announce",
    "nothing" or "challenge"; `ok` the verdict (None while not judged); `verdict_kind`
    "invalid" for a refused move; `missed` a false "nothing to do"; `challenge_outcome`
    "right"/"false" once the challenge is ruled.

    - An announcement is right or wrong (R3.5); a refused one is no mistake (R3.5 invalid).
    - A "nothing to do" is right when there was nothing, MISSED when an operation was
      possible (R5.6).
    - A ruled "Kavet 'm eus!" is right or wrong (R5.4, R5.5).
    """
    if kind == "announce":
        if verdict_kind == "invalid" or ok is None:
            return None
        return RIGHT if ok else WRONG
    if kind == "nothing":
        return MISSED if missed or ok is False else RIGHT
    if kind == "challenge" and challenge_outcome in ("right", "false"):
        return RIGHT if challenge_outcome == "right" else WRONG
    return None


def attempts_of(
    *,
    kind: str,
    ok: bool | None,
    verdict_kind: str = "",
    missed: bool = False,
    challenge_outcome: str = "",
    skills: Iterable[str] = (),
) -> tuple[tuple[str, str], ...]:
    """(skill, RIGHT/WRONG/MISSED) for each skill one move of a child is a try at.

    The move as outcome_of reads it, with `skills` its operation's skills_of: an announcement
    is a try at each of its operation's skills, a "nothing to do" at NOTICING, a challenge at
    SPOTTING; a move not ruled yet is a try at nothing.
    """
    outcome = outcome_of(
        kind=kind,
        ok=ok,
        verdict_kind=verdict_kind,
        missed=missed,
        challenge_outcome=challenge_outcome,
    )
    if outcome is None:
        return ()
    if kind == "announce":
        return tuple((s, outcome) for s in skills if s in SKILLS)
    return ((NOTICING if kind == "nothing" else SPOTTING, outcome),)
