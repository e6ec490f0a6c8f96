"""An announced operation and the checker's verdict on it (RULES.md R3)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .errors import INVALID_CODES, english_message
from .rules import MAX_DENOMINATOR, MAX_EXPONENT, MAX_NUMERATOR

CardValue = int | str  # a number card's value, or "X"
# How each operator is printed on a tablet's keys, the board and in sentences (the engine reads
# and writes ASCII): the one home of these symbols, for the pages and (through the keys'
# data-symbol) static/js/table.js.
OPERATOR_SYMBOLS: dict[str, str] = {"+": "+", "-": "−", "*": "×", "/": "÷", "^": "^"}


Number = int | Fraction


class StepWrong(Exception):
    """A step of an operation that has no value: a mistake the checker calls wrong (R3.5)."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


# The operators whose every step has a value (R2.2): one table for operate and
# operate_in_bounds; "/" and "^" have their own rules below.
ALWAYS_DEFINED: dict[str, Callable[[Number, Number], Number]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
}


def operate(sym: str, a: Number, b: Number, *, whole: bool = False) -> Number:
    """`a sym b` exactly: the one home of the operators' arithmetic (R2.2).

    `/` gives a Fraction, or with `whole` (tiers 1-2) the whole quotient, refusing any other
    as not_whole; `^` takes a whole exponent from 0 to 10 and a base of at most 10,000 in
    size, checked before any power is computed, so "20^20^20" stops at 20^20 without
    computing anything. A step with no value raises StepWrong: division_by_zero, not_whole,
    exponent_not_allowed, zero_power_zero, out_of_bounds. The checker (the tiers' bounds on
    top), the skills (what a child computed) and the entry read it; the searches read
    operate_in_bounds, the same arithmetic without exceptions.
    """
    plain = ALWAYS_DEFINED.get(sym)
    if plain is not None:
        return plain(a, b)
    if sym == "/":
        if b == 0:
            raise StepWrong("division_by_zero")
        if whole:
            if a % b:
                raise StepWrong("not_whole")
            return a // b
        return Fraction(a, b)
    if sym != "^":
        raise StepWrong("exponent_not_allowed")  # no other operator exists (R2.1)
    if isinstance(b, Fraction):
        if b.denominator != 1:
            raise StepWrong("exponent_not_allowed")
        b = b.numerator
    if not 0 <= b <= MAX_EXPONENT:
        raise StepWrong("exponent_not_allowed")
    if a == 0 and b == 0:
        raise StepWrong("zero_power_zero")
    if abs(a) > MAX_NUMERATOR:  # cards and checked steps never are; a child's text may be
        raise StepWrong("out_of_bounds", value=str(a))
    return a**b


def normal(value: Number) -> Number:
    """A whole Fraction as its int: the searches keep whole values as ints (the fast case)."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    return value


def in_bounds(value: Number) -> bool:
    """Within tier 3's bounds: numerator and whole value up to 10,000, denominator 1,000."""
    if isinstance(value, Fraction):
        return abs(value.numerator) <= MAX_NUMERATOR and value.denominator <= MAX_DENOMINATOR
    return abs(value) <= MAX_NUMERATOR


def operate_in_bounds(sym: str, a: Number, b: Number) -> Number | None:
    """operate for the searches (solver, reach): None where operate raises StepWrong or the
    value leaves tier 3's bounds, and an int wherever the value is whole (`a`, `b` normal).

    A power whose base is past 21 in size with an exponent past 3 is refused before it is
    computed: it already exceeds 10,000. The tier 3 sets' loop over pairs of whole numbers
    writes + - * / inline (reach_sets._SetArithmetic._combine_into, measured: a call per pair
    costs the common case), with this function for the rest.
    """
    plain = ALWAYS_DEFINED.get(sym)
    if plain is not None:
        value = plain(a, b)
    elif sym == "/":
        if b == 0:
            return None
        if type(a) is int and type(b) is int:
            value = a // b if a % b == 0 else Fraction(a, b)
        else:
            value = normal(Fraction(a) / b)
    else:
        if type(b) is not int or not 0 <= b <= MAX_EXPONENT or (a == 0 and b == 0):
            return None
        if b > 1 and abs(a) > 1 and (abs(Fraction(a).numerator) > 21 and b > 3):
            return None  # |a| > 21 and b > 3 already exceeds 10,000: skip the power
        value = normal(a**b) if isinstance(a, Fraction) else a**b
    return value if in_bounds(value) else None


@dataclass(frozen=True)
class Operation:
    """A parsed operation matched to cards: `text` is canonical ASCII the checker reads back."""

    text: str
    cards: tuple[CardValue, ...]  # values used, result last; X cards as "X"
    positions: tuple[int, ...]  # positions in the `available` list, same order as `cards`
    x_values: dict[int, int] = field(default_factory=dict)  # position -> value named for X
    value: int = 0  # the result's value
    operators: frozenset[str] = frozenset()
    steps: tuple[str, ...] = ()  # intermediate results, "8 - 5 = 3" (R2.4)
    n_operands: int = 0

    @property
    def n_cards(self) -> int:
        """The size of the trick this operation wins (R3.1)."""
        return len(self.positions)

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "cards": list(self.cards),
            "positions": list(self.positions),
            # JSON keys are strings; from_dict turns them back into positions.
            "x_values": {str(k): v for k, v in self.x_values.items()},
            "value": self.value,
            "operators": sorted(self.operators),
            "steps": list(self.steps),
            "n_operands": self.n_operands,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Operation:
        return cls(
            text=data["text"],
            cards=tuple(data["cards"]),
            positions=tuple(data["positions"]),
            x_values={int(k): int(v) for k, v in data.get("x_values", {}).items()},
            value=data["value"],
            operators=frozenset(data.get("operators", ())),
            steps=tuple(data.get("steps", ())),
            n_operands=data.get("n_operands", len(data["positions"]) - 1),
        )

    def __hash__(self) -> int:  # x_values is a dict, so the generated hash would fail
        return hash((self.text, self.positions))


@dataclass(frozen=True)
class Verdict:
    """The checker's answer: correct, or a failure that is `invalid` or `wrong` (R3.5)."""

    ok: bool
    kind: str | None = None  # None when ok, "invalid" (refused) or "wrong" (a mistake)
    code: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    operation: Operation | None = None

    @classmethod
    def correct(cls, operation: Operation) -> Verdict:
        return cls(ok=True, operation=operation)

    @classmethod
    def failure(cls, code: str, operation: Operation | None = None, **params: Any) -> Verdict:
        kind = "invalid" if code in INVALID_CODES else "wrong"
        return cls(ok=False, kind=kind, code=code, params=params, operation=operation)

    @property
    def is_invalid(self) -> bool:
        return self.kind == "invalid"

    @property
    def is_wrong(self) -> bool:
        return self.kind == "wrong"

    @property
    def message(self) -> str:
        """English, for the CLI and debugging; pages translate `code` with `params`."""
        return "Correct." if self.ok else english_message(self.code or "", self.params)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "kind": self.kind,
            "code": self.code,
            "params": dict(self.params),
            "operation": self.operation.to_dict() if self.operation else None,
        }
