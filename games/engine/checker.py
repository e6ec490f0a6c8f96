"""The referee's verdict on an announcement: correct, invalid or wrong (RULES.md R2.2, R3)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from .cards import Card
from .operations import CardValue, Operation, StepWrong, Verdict, operate
from .parser import Parsed, ParseFailure, operand_leaves, operators_of, parse_announcement
from .rules import MAX_DENOMINATOR, MAX_NUMERATOR, RuleSet

Value = int | Fraction
Node = tuple[Any, ...]


_Wrong = StepWrong  # an arithmetic mistake found while evaluating (R3.5 "wrong")


def card_values(available: Sequence[Any]) -> list[CardValue | None]:
    """Cards as the checker and solver see them: a value, "X", or None for an event card."""
    values: list[CardValue | None] = []
    for card in available:
        if isinstance(card, Card):
            values.append(
                card.value if card.kind == "number" else "X" if card.kind == "x" else None
            )
        elif isinstance(card, str) and card in ("X", "x"):
            values.append("X")
        elif type(card) is int:
            values.append(card)
        else:
            values.append(None)
    return values


def format_value(value: Value) -> str:
    if isinstance(value, Fraction):
        return (
            str(value.numerator)
            if value.denominator == 1
            else f"{value.numerator}/{value.denominator}"
        )
    return str(value)


def apply_operator(sym: str, a: Value, b: Value, rules: RuleSet) -> Value:
    """One step of an operation, refused (raising _Wrong) before any unbounded work (R2.2)."""
    if rules.tier < 3:
        # Tiers 1-2: whole numbers from 0 to the bound; operands are already bounded.
        if sym == "^":  # the checker refuses operators outside the tier before evaluating
            raise _Wrong("exponent_not_allowed")
        value = operate(sym, a, b, whole=True)
        if value < 0:
            raise _Wrong("negative", value=format_value(value))
        if value > (rules.bound or 0):
            raise _Wrong("out_of_bounds", value=format_value(value))
        return value
    value = operate(sym, a, b)
    if isinstance(value, Fraction):
        if value.denominator == 1:
            value = value.numerator
        elif abs(value.numerator) > MAX_NUMERATOR or value.denominator > MAX_DENOMINATOR:
            raise _Wrong("out_of_bounds", value=format_value(value))
    if abs(value) > MAX_NUMERATOR:
        raise _Wrong("out_of_bounds", value=format_value(value))
    return value


def _needs_parens(child: Node, parent_sym: str, right: bool) -> bool:
    while child[0] == "step":
        child = child[2]
    if child[0] != "op":
        return False
    from .parser import PRECEDENCE

    child_prec, parent_prec = PRECEDENCE[child[1]], PRECEDENCE[parent_sym]
    if child_prec != parent_prec:
        return child_prec < parent_prec
    # Same level: keep the tree the player (or solver) built, since its intermediate results
    # are what the tier bounds apply to. ^ groups to the right, the others to the left.
    return not right if parent_sym == "^" else right


def render(node: Node, label: Callable[[int], str]) -> str:
    """Canonical ASCII for a positioned tree; parsing it back gives the same tree."""
    kind = node[0]
    if kind == "step":
        return render(node[2], label)
    if kind == "card":
        return label(node[1])
    sym, left, right = node[1], node[2], node[3]
    left_text = render(left, label)
    right_text = render(right, label)
    if _needs_parens(left, sym, right=False):
        left_text = f"({left_text})"
    if _needs_parens(right, sym, right=True):
        right_text = f"({right_text})"
    return f"{left_text} {sym} {right_text}"


def _check_x_range(used_x: Mapping[int, int], rules: RuleSet, expression_text: str) -> None:
    """R3.4: an X value must meet the tier, like any intermediate result (R2.2, R3.5)."""
    for value in used_x.values():
        if not rules.x_low <= value <= rules.x_high:
            raise _Wrong(
                "x_value_out_of_range",
                low=rules.x_low,
                high=rules.x_high,
                value=value,
                expression=expression_text,
            )


def judge(
    expression: Node,
    result_position: int,
    values: Sequence[CardValue | None],
    x_values: Mapping[int, int],
    rules: RuleSet,
) -> Verdict:
    """Evaluates a tree whose leaves are ("card", position); shared by checker and solver."""
    leaf_positions = [leaf[1] for leaf in operand_leaves(expression)]
    positions = (*leaf_positions, result_position)
    cards: tuple[CardValue, ...] = tuple(values[p] for p in positions)  # type: ignore[misc]
    used_x = {p: int(x_values[p]) for p in positions if values[p] == "X"}

    def label(position: int) -> str:
        value = values[position]
        return "X" if value == "X" else str(value)

    def leaf_value(position: int) -> Value:
        value = values[position]
        return used_x[position] if value == "X" else value  # type: ignore[return-value]

    steps: list[str] = []

    def evaluate(node: Node) -> Value:
        kind = node[0]
        if kind == "card":
            return leaf_value(node[1])
        if kind == "step":
            value = evaluate(node[2])
            if value != node[1]:
                raise _Wrong(
                    "wrong_result",
                    expression=render(node[2], label),
                    value=format_value(value),
                    result=str(node[1]),
                )
            return value
        a, b = evaluate(node[2]), evaluate(node[3])
        try:
            value = apply_operator(node[1], a, b, rules)
        except _Wrong as wrong:
            wrong.params.setdefault("expression", render(node, label))
            raise
        steps.append(f"{format_value(a)} {node[1]} {format_value(b)} = {format_value(value)}")
        return value

    expression_text = render(expression, label)
    text = f"{expression_text} = {label(result_position)}"
    x_in_order = [used_x[p] for p in positions if values[p] == "X"]
    if x_in_order:
        text += " (" + ", ".join(f"X={v}" for v in x_in_order) + ")"
    result_value = leaf_value(result_position)
    failure: _Wrong | None = None
    try:
        _check_x_range(used_x, rules, expression_text)
        value = evaluate(expression)
        if value != result_value:
            failure = _Wrong(
                "wrong_result",
                expression=expression_text,
                value=format_value(value),
                result=str(result_value),
            )
    except _Wrong as wrong:
        failure = wrong
    operation = Operation(
        text=text,
        cards=cards,
        positions=positions,
        x_values=used_x,
        value=int(result_value),
        operators=frozenset(operators_of(expression)),
        steps=tuple(steps),
        n_operands=len(leaf_positions),
    )
    if failure is not None:
        return Verdict.failure(failure.code, operation=operation, **failure.params)
    return Verdict.correct(operation)


def _position_tree(node: Node, leaf_positions: list[int], counter: list[int]) -> Node:
    kind = node[0]
    if kind == "op":
        left = _position_tree(node[2], leaf_positions, counter)
        return ("op", node[1], left, _position_tree(node[3], leaf_positions, counter))
    if kind == "step":
        return ("step", node[1], _position_tree(node[2], leaf_positions, counter))
    counter[0] += 1
    return ("card", leaf_positions[counter[0] - 1])


def _int_or_none(value: Any) -> int | None:
    """A whole number sent as an int or as ASCII digits ("²" and "٣" are digits to isdigit)."""
    if type(value) is int:
        return value
    if isinstance(value, str) and len(value) < 12:
        digits = value.strip().lstrip("+-")
        if digits.isascii() and digits.isdigit():
            return int(value)
    return None


def _shown(number: int) -> int | str:
    """A number for a message: one too long to print (or to send as JSON) is cut short."""
    return number if -(10**15) < number < 10**15 else ("-" if number < 0 else "") + "10^15+"


def _match_positions(
    leaves: list[Any], values: list[CardValue | None], x_values: Mapping[Any, Any] | None
) -> tuple[list[int], dict[int, Any]]:
    """_match_cards for a tablet's tokens: each leaf names its card's position."""
    taken: set[int] = set()
    positions: list[int] = []
    for leaf in leaves:
        position = leaf[1]
        if not 0 <= position < len(values) or values[position] is None:
            raise ParseFailure("card_unavailable", card=f"#{_shown(position)}")
        if position in taken:
            raise ParseFailure("card_reused", card=str(values[position]))
        taken.add(position)
        positions.append(position)
    named: dict[int, Any] = {}
    for key, value in (x_values or {}).items():
        position = _int_or_none(key)
        if position is not None:
            named[position] = value
    return positions, named


def _named_x(
    x_order: list[int], x_seen: int, values: list[CardValue | None], taken: set[int]
) -> int:
    """The position of the next X card written, its value sent alongside the text."""
    if x_seen >= len(x_order):
        raise ParseFailure("x_value_missing")
    position = x_order[x_seen]
    if not 0 <= position < len(values) or values[position] != "X":
        raise ParseFailure("card_unavailable", card="X")
    if position in taken:
        raise ParseFailure("card_reused", card="X")
    return position


def _first_free(key: CardValue, by_value: dict[CardValue, list[int]], taken: set[int]) -> int:
    """The first card showing `key` not taken yet by an earlier one written."""
    candidates = by_value.get(key, [])
    free = [p for p in candidates if p not in taken]
    if not free:
        if candidates:
            raise ParseFailure("card_reused", card=str(key))
        # A number written that no card on the table shows (never there, or taken).
        raise ParseFailure("card_unavailable", card=str(key), written=True)
    return free[0]


def _match_cards(
    parsed: Parsed, values: list[CardValue | None], x_values: Mapping[Any, Any] | None
) -> tuple[list[int], dict[int, Any]]:
    """Assigns each written card to one available card; raises ParseFailure with R3.5 codes."""
    leaves = [*operand_leaves(parsed.expression), parsed.result]
    taken: set[int] = set()
    positions: list[int] = []
    named: dict[int, Any] = {}
    if parsed.structured:
        return _match_positions(leaves, values, x_values)
    by_value: dict[CardValue, list[int]] = {}
    for position, value in enumerate(values):
        if value is not None:
            by_value.setdefault(value, []).append(position)
    x_order: list[int] | None = None
    if not parsed.x_assignments and x_values:
        # Text without "X=4" but with values sent alongside: X cards in the order of their positions.
        x_order = sorted(p for p in (_int_or_none(k) for k in x_values) if p is not None)
        named = {p: v for k, v in x_values.items() if (p := _int_or_none(k)) is not None}
    x_seen = 0
    for leaf in leaves:
        key: CardValue = "X" if leaf[0] == "x" else leaf[1]
        if key == "X" and x_order is not None:
            position = _named_x(x_order, x_seen, values, taken)
        else:
            position = _first_free(key, by_value, taken)
        if key == "X":
            if x_order is None:
                if x_seen < len(parsed.x_assignments):
                    named[position] = parsed.x_assignments[x_seen]
            x_seen += 1
        taken.add(position)
        positions.append(position)
    if x_order is None and len(parsed.x_assignments) > x_seen:
        raise ParseFailure("parse_error", reason="x_assignment")
    return positions, named


def check_operation(
    announcement: Any,
    available: Sequence[Any],
    rules: RuleSet,
    *,
    x_values: Mapping[Any, Any] | None = None,
) -> Verdict:
    """R3: judge an announcement against the cards a player may use. Never raises.

    `available` is the table followed by the player's held cards (R3.1, R7.4); text matches
    cards by value, tablet tokens by position. Refusals come back as `invalid` verdicts.
    """
    values = card_values(available)
    try:
        parsed = parse_announcement(announcement)
        # R2.2: an operator outside the tier is refused before anything is computed.
        for sym in operators_of(parsed.expression):
            if sym not in rules.allowed_operators:
                raise ParseFailure("operator_not_allowed", operator=sym)
        # R3.1: at least two cards combined, plus the result.
        if len(operand_leaves(parsed.expression)) < 2:
            raise ParseFailure("too_few_cards")
        positions, named = _match_cards(parsed, values, x_values)
        x_chosen: dict[int, int] = {}
        for position in positions:
            if values[position] != "X":
                continue
            value = _int_or_none(named.get(position))
            if value is None:
                raise ParseFailure("x_value_missing")
            if abs(value) >= 10**15:  # no tier comes near; too long to print or send as JSON
                raise ParseFailure("parse_error", reason="number_too_long")
            x_chosen[position] = value
    except ParseFailure as failure:
        return Verdict.failure(failure.code, **failure.params)
    tree = _position_tree(parsed.expression, positions, [0])
    return judge(tree, positions[-1], values, x_chosen, rules)
