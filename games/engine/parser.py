"""Reads an announcement, typed or sent as tablet tokens, into an expression tree (R3.1, R3.2)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# Long enough for a twelve-card operation written in steps, short enough that a megabyte of
# input is refused before any work is done on it.
MAX_INPUT_LENGTH = 300
MAX_TOKENS = 200
MAX_NESTING = 40  # keeps recursion far from Python's limit whatever the input

PRECEDENCE: dict[str, int] = {"+": 1, "-": 1, "*": 2, "/": 2, "^": 3}

# Children type announcements the way they write them: − × ÷ · and the ":" of French and
# German schools for division. Lower-case "x" is the X card or, between two numbers, "times".
_OPERATOR_CHARS: dict[str, str] = {
    "+": "+",
    "-": "-",
    "\u2212": "-",  # minus sign
    "\u2013": "-",  # en dash
    "\u2014": "-",  # em dash
    "\u2010": "-",
    "\u2011": "-",
    "*": "*",
    "\u00d7": "*",  # ×
    "\u00b7": "*",  # ·
    "\u22c5": "*",  # dot operator
    "\u2219": "*",  # bullet operator
    "/": "/",
    "\u00f7": "/",  # ÷
    ":": "/",
    "\u2236": "/",  # ratio
    "\u2215": "/",  # division slash
    "^": "^",
}
_PUNCTUATION: dict[str, str] = {"(": "(", ")": ")", "=": "=", "\uff1d": "="}
_SEPARATORS = frozenset(",;\n\r")
_SPACES = frozenset(" \t\u00a0\u2002\u2003\u2007\u2009\u200a\u202f")

# Tree nodes are tuples, small and fast to walk:
#   ("num", v)   a number written in text: a card of that value (matched later)
#   ("x",)       an X card written in text
#   ("card", p)  a card given by its position (tablet tokens)
#   ("op", sym, left, right)
#   ("step", stated, subtree)   a step of the step form, with the value the player stated
Node = tuple[Any, ...]
Token = tuple[str, Any]


class ParseFailure(Exception):
    """An announcement that cannot be read; always an *invalid* one (R3.5)."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


def _parse_error(reason: str, **params: Any) -> ParseFailure:
    return ParseFailure("parse_error", reason=reason, **params)


@dataclass
class Parsed:
    """An announcement read but not yet matched to cards."""

    expression: Node
    result: Node
    x_assignments: list[int] = field(default_factory=list)  # text "X=4", in order
    structured: bool = False


def tokenize_text(text: str) -> list[Token]:
    """Typed text to tokens; refuses over-long input before looking at it."""
    if len(text) > MAX_INPUT_LENGTH:
        raise ParseFailure("input_too_long", limit=MAX_INPUT_LENGTH)
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _SPACES:
            i += 1
        elif "0" <= ch <= "9":
            j = i
            while j < n and "0" <= text[j] <= "9":
                j += 1
            tokens.append(("num", int(text[i:j])))
            i = j
        elif ch in "xX":
            tokens.append(("x", None))
            i += 1
        elif ch == "*" and text.startswith("**", i):
            tokens.append(("op", "^"))
            i += 2
        elif ch in _OPERATOR_CHARS:
            tokens.append(("op", _OPERATOR_CHARS[ch]))
            i += 1
        elif ch in _PUNCTUATION:
            tokens.append((_PUNCTUATION[ch], None))
            i += 1
        elif ch in _SEPARATORS:
            tokens.append(("sep", None))
            i += 1
        elif unicodedata.digit(ch, None) is not None:
            # "٣" or "３" is a digit, but matching it to a card silently would hide a typo.
            raise ParseFailure("digit_not_ascii", char=ch, digit=unicodedata.digit(ch))
        else:
            raise ParseFailure("unknown_character", char=ch)
    return tokens


def tokenize_structured(items: Sequence[Any]) -> list[Token]:
    """Tablet tokens ({"card": p} | {"op": s} | {"num": v}) to tokens."""
    if len(items) > MAX_TOKENS:
        raise ParseFailure("input_too_long", limit=MAX_TOKENS)
    tokens: list[Token] = []
    for item in items:
        if not isinstance(item, dict) or len(item) != 1:
            raise _parse_error("bad_token")
        ((key, value),) = item.items()
        if key == "card" and type(value) is int:
            tokens.append(("card", value))
        elif key == "num" and type(value) is int and abs(value) <= 10**6:
            tokens.append(("lit", value))
        elif key == "op" and isinstance(value, str):
            if value in _OPERATOR_CHARS:
                tokens.append(("op", _OPERATOR_CHARS[value]))
            elif value in ("**",):
                tokens.append(("op", "^"))
            elif value in _PUNCTUATION:
                tokens.append((_PUNCTUATION[value], None))
            elif value in _SEPARATORS:
                tokens.append(("sep", None))
            else:
                raise _parse_error("bad_token")
        else:
            raise _parse_error("bad_token")
    return tokens


_OPERAND_START = frozenset({"num", "x", "card", "lit", "("})
_VALUE_KINDS = frozenset({"num", "x", "card", "lit"})


# Stands for the result of the step just before (the spoken chain of R3.2).
_PREVIOUS: Token = ("prev", None)


def _equals_ahead(tokens: list[Token], start: int) -> bool:
    """Whether an "=" follows within the same step (before the next separator)."""
    for kind, _value in tokens[start:]:
        if kind == "sep":
            return False
        if kind == "=":
            return True
    return False


def _split_segments(tokens: list[Token]) -> list[list[Token]]:
    """Splits the step form into steps: at separators, and after "= value" when a new step follows."""
    segments: list[list[Token]] = []
    current: list[Token] = []
    i, n = 0, len(tokens)
    while i < n:
        kind = tokens[i][0]
        if kind == "sep":
            segments.append(current)
            current = []
            i += 1
            continue
        current.append(tokens[i])
        i += 1
        if kind == "=":
            # "= 3" or "= -3" followed by the start of an operand begins the next step.
            j = i
            if j < n and tokens[j] == ("op", "-"):
                j += 1
            if j < n and tokens[j][0] in _VALUE_KINDS and j + 1 < n:
                if tokens[j + 1][0] in _OPERAND_START:
                    current.extend(tokens[i : j + 1])
                    segments.append(current)
                    current = []
                    i = j + 1
                elif tokens[j + 1][0] == "op" and _equals_ahead(tokens, j + 1):
                    # R3.2, the spoken chain "8 - 5 = 3 x 6 = 18": the next step works on
                    # the result just stated.
                    current.extend(tokens[i : j + 1])
                    segments.append(current)
                    current = [_PREVIOUS]
                    i = j + 1
    segments.append(current)
    return segments


def _x_assignment(segment: list[Token]) -> int | None:
    """The value of a segment that reads "X = 4" (or "X = -4"), else None."""
    if (
        len(segment) == 3
        and segment[0][0] == "x"
        and segment[1][0] == "="
        and segment[2][0] == "num"
    ):
        return int(segment[2][1])
    if (
        len(segment) == 4
        and segment[0][0] == "x"
        and segment[1][0] == "="
        and segment[2][0] == "op"
        and segment[2][1] in "+-"
        and segment[3][0] == "num"
    ):
        return -int(segment[3][1]) if segment[2][1] == "-" else int(segment[3][1])
    return None


def _strip_trailing_assignments(tokens: list[Token]) -> tuple[list[Token], list[int]]:
    """Removes a final "(X=4, X=9)" group, the form Operation.text uses."""
    if not tokens or tokens[-1][0] != ")":
        return tokens, []
    depth = 0
    for start in range(len(tokens) - 1, -1, -1):
        kind = tokens[start][0]
        if kind == ")":
            depth += 1
        elif kind == "(":
            depth -= 1
            if depth == 0:
                break
    else:
        return tokens, []
    inner = tokens[start + 1 : -1]
    values: list[int] = []
    part: list[Token] = []
    for token in [*inner, ("sep", None)]:
        if token[0] == "sep":
            value = _x_assignment(part)
            if value is None:
                return tokens, []
            values.append(value)
            part = []
        else:
            part.append(token)
    return tokens[:start], values


class _SegmentParser:
    """Precedence climbing over one step: ^ binds tightest (right to left), then * /, then + -."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.i = 0
        self.depth = 0

    def peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def expression(self, min_prec: int = 1) -> Node:
        left = self.operand()
        while True:
            token = self.peek()
            if token is None:
                return left
            if token[0] == "op":
                sym = token[1]
            elif token[0] == "x":
                sym = "*"  # "3 x 4": an x where an operator belongs can only mean times
            else:
                return left
            prec = PRECEDENCE[sym]
            if prec < min_prec:
                return left
            self.i += 1
            right = self.expression(prec if sym == "^" else prec + 1)
            left = ("op", sym, left, right)

    def _parenthesised(self) -> Node:
        """What follows an opening bracket, up to its closing one."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise _parse_error("too_deep")
        inner = self.expression()
        if self.peek() is None or self.peek()[0] != ")":  # type: ignore[index]
            raise _parse_error("unbalanced")
        self.i += 1
        self.depth -= 1
        return inner

    def operand(self) -> Node:
        token = self.peek()
        if token is None:
            raise _parse_error("operand_missing")
        kind = token[0]
        self.i += 1
        if kind == "(":
            return self._parenthesised()
        if kind == "num":
            return ("num", token[1])
        if kind == "x":
            return ("x",)
        if kind == "card":
            return ("card", token[1])
        if kind == "lit":
            return ("lit", token[1])
        if kind == "prev":
            return ("prev",)
        if token == ("op", "-"):
            nxt = self.peek()
            if nxt is not None and nxt[0] in ("num", "lit"):
                self.i += 1
                # Only a negative step result may be written this way (tier 3); see _resolve.
                return ("neg", -int(nxt[1]))
            raise _parse_error("unary_minus")
        if kind == ")":
            raise _parse_error("unbalanced")
        raise _parse_error("operand_missing")

    def segment(self) -> tuple[Node, Node]:
        left = self.expression()
        token = self.peek()
        if token is None:
            raise _parse_error("equals_missing")
        if token[0] != "=":
            raise _parse_error("unbalanced" if token[0] == ")" else "unexpected")
        self.i += 1
        right = self.expression()
        token = self.peek()
        if token is not None:
            raise _parse_error("several_equals" if token[0] == "=" else "unexpected")
        return left, right


def _is_leaf(node: Node) -> bool:
    return node[0] in ("num", "x", "card")


def _step_value(node: Node) -> int:
    if node[0] in ("num", "lit", "neg"):
        return int(node[1])
    raise _parse_error("step_value")


def _resolve(node: Node, steps: list[tuple[int, Node]], used: list[bool], upto: int) -> Node:
    """Replaces a number equal to an earlier, unused step result by that step (R3.2)."""
    kind = node[0]
    if kind == "op":
        return (
            "op",
            node[1],
            _resolve(node[2], steps, used, upto),
            _resolve(node[3], steps, used, upto),
        )
    if kind == "prev":
        # R3.2: ", x 6 = 18" works on the result of the step just before.
        if upto == 0 or used[upto - 1]:
            raise _parse_error("operand_missing")
        used[upto - 1] = True
        return ("step", steps[upto - 1][0], steps[upto - 1][1])
    if kind in ("num", "lit", "neg"):
        for index in range(upto):
            if not used[index] and steps[index][0] == node[1]:
                used[index] = True
                return ("step", steps[index][0], steps[index][1])
        if kind == "lit":
            raise _parse_error("step_unknown", value=node[1])
        if kind == "neg":
            raise _parse_error("unary_minus")
    return node


def _chained(segment: list[Token], steps: list[tuple[int, Node]], used: list[bool]) -> bool:
    """Whether a step begins with its operator, as in "8 - 5 = 3, x 6 = 18" (R3.2).

    A leading "-" before a number that names an earlier negative step result ("= -3, -3 x 2")
    is that result, as before; any other leading operator works on the step just before.
    """
    first = segment[0]
    if first[0] != "op":
        return False
    if first[1] == "-" and len(segment) > 1 and segment[1][0] in ("num", "lit"):
        value = -int(segment[1][1])
        if any(not u and stated == value for (stated, _tree), u in zip(steps, used, strict=True)):
            return False
    return True


def _segments(announcement: Any, structured: bool) -> tuple[list[list[Token]], list[int]]:
    """An announcement's segments between its "=" signs, and the values named for X cards."""
    x_assignments: list[int] = []
    if structured:
        if not isinstance(announcement, (list, tuple)):
            raise _parse_error("bad_token")
        tokens = tokenize_structured(announcement)
    else:
        tokens, x_assignments = _strip_trailing_assignments(tokenize_text(announcement))
    if not tokens:
        raise _parse_error("empty")
    segments: list[list[Token]] = []
    for segment in _split_segments(tokens):
        value = None if structured else _x_assignment(segment)
        if value is not None:
            x_assignments.append(value)
        elif segment:
            segments.append(segment)
        else:
            raise _parse_error("empty_step")
    if not segments:
        raise _parse_error("empty")
    return segments, x_assignments


def parse_announcement(announcement: Any) -> Parsed:
    """Text or tablet tokens to a Parsed announcement; raises ParseFailure."""
    structured = not isinstance(announcement, str)
    segments, x_assignments = _segments(announcement, structured)
    steps: list[tuple[int, Node]] = []
    used: list[bool] = []
    for index, segment in enumerate(segments):
        if index and _chained(segment, steps, used):
            segment = [_PREVIOUS, *segment]
        left, right = _SegmentParser(segment).segment()
        last = index == len(segments) - 1
        if not last:
            if left[0] != "op":
                # "13 = 8 + 5 = 13": a step combines cards; a lone card is no step.
                raise _parse_error("step_without_operator")
            stated = _step_value(right)
            steps.append((stated, _resolve(left, steps, used, len(steps))))
            used.append(False)
            continue
        if _is_leaf(right):
            expression, result = left, right
        elif _is_leaf(left) and len(segments) == 1:
            expression, result = right, left  # "13 = 8 + 5"
        else:
            raise _parse_error("result_not_card")
        expression = _resolve(expression, steps, used, len(steps))
        if not all(used):
            raise _parse_error("step_unused", value=steps[used.index(False)][0])
        return Parsed(expression, result, x_assignments, structured)
    raise _parse_error("empty")  # unreachable: the last segment returns


def operand_leaves(node: Node) -> list[Node]:
    """The card leaves of an expression, in the order they are written."""
    out: list[Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current[0]
        if kind == "op":
            stack.append(current[3])
            stack.append(current[2])
        elif kind == "step":
            stack.append(current[2])
        else:
            out.append(current)
    return out


def operators_of(node: Node) -> list[str]:
    """The operators of an expression, in the order they are written."""
    kind = node[0]
    if kind == "op":
        return [*operators_of(node[2]), node[1], *operators_of(node[3])]
    if kind == "step":
        return operators_of(node[2])
    return []
