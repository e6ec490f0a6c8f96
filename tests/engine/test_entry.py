"""The tablet's keys and running results come from the engine (games/engine/entry.py).

The table of what may come next is checked against the real parser: every sequence it calls
complete parses, every announcement of the tablet's form that parses is allowed key by key,
and it never leads into an operation that can't be finished (R3.1). The running results are
the checker's own steps, exact (R2.4, R3.2).
"""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import RuleSet, check_operation
from games.engine.entry import (
    CLASSES,
    entry_table,
    is_complete,
    running_steps,
    token_class,
    walk,
)
from games.engine.parser import (
    MAX_NESTING,
    MAX_TOKENS,
    ParseFailure,
    operand_leaves,
    operators_of,
    parse_announcement,
)

TABLE = entry_table()


def texts(items: list[dict], values: dict) -> list[str]:
    return [step.text for step in running_steps(items, values)]


def tokens_of(classes: list[str], ops: str = "+") -> list[dict]:
    """Tablet tokens for a list of classes: cards 0, 1, 2... in order, operators from `ops`."""
    out: list[dict] = []
    cards = operators = 0
    for cls in classes:
        if cls == "card":
            out.append({"card": cards})
            cards += 1
        elif cls == "op":
            out.append({"op": ops[operators % len(ops)]})
            operators += 1
        else:
            out.append({"op": cls})
    return out


def n_cards(items: list[dict]) -> int:
    return sum("card" in item for item in items)


def tablet_form(items: list[dict]) -> bool:
    """Whether the parser reads these tokens as `expression = card` with an operator (R3.1)."""
    try:
        parsed = parse_announcement(items)
    except ParseFailure:
        return False
    return (
        parsed.result[0] == "card"
        and items[-2:] == [{"op": "="}, {"card": parsed.result[1]}]
        and bool(operators_of(parsed.expression))
    )


def parses(items: list[dict]) -> bool:
    try:
        parse_announcement(items)
    except ParseFailure:
        return False
    return True


# --- the table's shape --------------------------------------------------------------------


def test_the_table_is_small_json_the_same_for_every_game() -> None:
    text = json.dumps(TABLE, separators=(",", ":"))
    assert len(text) < 5000  # sent once with the table page
    assert TABLE["classes"] == list(CLASSES)
    assert all(len(row) == len(CLASSES) for row in TABLE["next"])
    n = len(TABLE["next"])
    assert all(-1 <= t < n for row in TABLE["next"] for t in row)
    assert len(TABLE["need_cards"]) == len(TABLE["need_tokens"]) == n
    assert TABLE["max_tokens"] == MAX_TOKENS


def test_the_first_keys_and_the_obvious_rules() -> None:  # R3.1
    start = TABLE["next"][TABLE["start"]]
    assert [cls for cls, t in zip(CLASSES, start, strict=True) if t >= 0] == ["card", "("]
    assert TABLE["need_cards"][TABLE["start"]] == 3  # two cards combined and the result
    first, plus = {"card": 0}, {"op": "+"}
    assert walk([first, {"card": 1}], 5) is None  # two cards in a row
    assert walk([first, plus, {"op": "*"}], 5) is None  # two operators in a row
    assert walk([first, {"op": "="}], 5) is None  # "=" before any operator
    assert walk([first, {"op": ")"}], 5) is None  # ")" without its "("
    assert walk([{"op": "("}, first, plus, {"card": 1}, {"op": "="}], 5) is None  # "=" in "("
    done = tokens_of(["card", "op", "card", "=", "card"])
    assert is_complete(done, 3)
    assert walk([*done, {"op": "+"}], 5) is None  # after the result, nothing


def test_the_keys_never_lead_where_the_cards_run_out() -> None:  # R3.1
    # Three cards: "2 + 3" leaves one card, the result's: no second "+", "=" only.
    two_plus_three = tokens_of(["card", "op", "card"])
    assert walk([*two_plus_three, {"op": "+"}], 3) is None
    assert walk([*two_plus_three, {"op": "+"}], 4) is not None
    assert walk([*two_plus_three, {"op": "="}], 3) is not None
    # Two cards (the table near the end of the game, nothing held): no operation can be made.
    assert walk([{"card": 0}], 2) is None
    assert walk([{"op": "("}], 2) is None


def test_the_parsers_nesting_limit_is_the_tables() -> None:
    deep = [{"op": "("}] * MAX_NESTING
    assert walk(deep, 3) is not None
    assert walk([*deep, {"op": "("}], 3) is None
    whole = [*deep, *tokens_of(["card", "op", "card"]), *[{"op": ")"}] * MAX_NESTING]
    assert is_complete([*whole, {"op": "="}, {"card": 9}], 3)
    assert parses([*whole, {"op": "="}, {"card": 9}])
    assert not parses([{"op": "("}, *whole, {"op": ")"}, {"op": "="}, {"card": 9}])


def test_token_classes() -> None:
    assert [token_class(t) for t in tokens_of(list(CLASSES), ops="*")] == list(CLASSES)
    assert token_class({"op": "x"}) is None
    assert token_class({"num": 3}) is None


# --- the table and the parser agree ---------------------------------------------------------


def _sequences(max_length: int):
    """Every sequence of keys up to `max_length` (one operator: whether a sequence parses does
    not depend on which; the hypothesis tests below mix them)."""
    for length in range(1, max_length + 1):
        for combo in itertools.product(CLASSES, repeat=length):
            yield tokens_of(list(combo))


def test_every_short_sequence_agrees_with_the_parser() -> None:  # R3.1, exhaustive to 7 keys
    complete = allowed_finished = 0
    for items in _sequences(7):
        cards = n_cards(items)
        state = walk(items, cards)
        if state is not None and state in TABLE["complete"]:
            complete += 1
            assert tablet_form(items), items  # complete: the parser reads it
        if tablet_form(items):
            allowed_finished += 1
            for end in range(1, len(items) + 1):  # every prefix was allowed, key by key
                assert walk(items[:end], cards) is not None, items[:end]
        elif parses(items):
            # What the parser reads and the builder never offers: the result first ("13 = 8 +
            # 5"), the result in parentheses ("8 + 5 = (13)") or no operator at all ("5 = 5",
            # refused later as too few cards).
            parsed = parse_announcement(items)
            result_last = items[-2:] == [{"op": "="}, {"card": parsed.result[1]}]
            assert not result_last or not operators_of(parsed.expression), items
            assert walk(items, cards) is None or state not in TABLE["complete"]
    # c+c=c, c+c+c=c, (c+c)=c, (c)+c=c, c+(c)=c
    assert complete == allowed_finished == 5


def _finish(items: list[dict], cards: int) -> list[dict]:
    """The shortest completion the table promises: keys that lower what is still needed."""
    state = walk(items, cards)
    assert state is not None
    used = n_cards(items)
    out = list(items)
    while state not in TABLE["complete"]:
        need = (TABLE["need_cards"][state], TABLE["need_tokens"][state])
        for cls, nxt in zip(CLASSES, TABLE["next"][state], strict=True):
            if (
                nxt >= 0
                and (
                    TABLE["need_cards"][nxt] + (cls == "card"),
                    TABLE["need_tokens"][nxt] + 1,
                )
                == need
            ):
                break
        else:
            raise AssertionError(f"state {state} has no way on")
        out.append({"card": 1000 + used} if cls == "card" else {"op": "+" if cls == "op" else cls})
        used += cls == "card"
        state = nxt
    assert used <= cards
    assert len(out) <= MAX_TOKENS
    return out


def test_every_state_can_still_be_finished_with_what_it_needs() -> None:  # R3.1
    # From every state, keys exist that finish it with exactly the cards and tokens it needs.
    for items in _sequences(5):
        cards = n_cards(items) + 3
        if walk(items, cards) is not None:
            finished = _finish(items, cards)
            assert tablet_form(finished), finished


@st.composite
def table_walks(draw):
    """Keys tapped at random among those the table turns on, with 3-30 cards."""
    cards = draw(st.integers(3, 30))
    items: list[dict] = []
    state, used = TABLE["start"], 0
    for _ in range(draw(st.integers(1, 260))):
        on = [
            (cls, nxt)
            for cls, nxt in zip(CLASSES, TABLE["next"][state], strict=True)
            if nxt >= 0
            and cards - used - (cls == "card") >= TABLE["need_cards"][nxt]
            and len(items) + 1 + TABLE["need_tokens"][nxt] <= TABLE["max_tokens"]
        ]
        if not on:
            break
        cls, state = draw(st.sampled_from(on))
        if cls == "card":
            items.append({"card": used})
            used += 1
        elif cls == "op":
            items.append({"op": draw(st.sampled_from("+-*/^"))})
        else:
            items.append({"op": cls})
    return items, cards


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(table_walks())
def test_walks_on_the_table_parse_once_complete_and_can_always_finish(walked) -> None:  # R3.1
    items, cards = walked
    assert walk(items, cards) is not None
    if is_complete(items, cards):
        assert tablet_form(items)
    finished = _finish(items, cards)
    assert tablet_form(finished)
    assert n_cards(finished) <= cards


@st.composite
def announcements(draw, depth: int = 0):
    """A random expression of the tablet's form, with any parentheses, as classes."""
    if depth > 6 or draw(st.booleans()):
        leaf = ["card"]
    else:
        leaf = [*draw(announcements(depth + 1)), "op", *draw(announcements(depth + 1))]
    wraps = draw(st.integers(0, 3 if depth else 45))
    return ["("] * wraps + leaf + [")"] * wraps


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(announcements(), st.text("+-*/^", min_size=1, max_size=5))
def test_what_parses_is_allowed_key_by_key(expression, ops) -> None:  # R3.1
    if "op" not in expression:
        expression = [*expression, "op", "card"]
    items = tokens_of([*expression, "=", "card"], ops=ops)
    cards = n_cards(items)
    if tablet_form(items):
        for end in range(1, len(items) + 1):
            assert walk(items[:end], cards) is not None, items[:end]
        assert is_complete(items, cards)
    else:
        # Only the parser's own limits refuse an expression of this shape.
        assert len(items) > MAX_TOKENS or max(_depths(items)) > MAX_NESTING
        assert not is_complete(items, cards)


def _depths(items: list[dict]):
    depth = 0
    for item in items:
        depth += item.get("op") == "("
        depth -= item.get("op") == ")"
        yield depth


# --- R2.4: the running results ---------------------------------------------------------------


def c(i: int) -> dict:
    return {"card": i}


def op(s: str) -> dict:
    return {"op": s}


def test_steps_as_the_child_taps() -> None:  # R2.4
    values = {0: 8, 1: 5, 2: 6, 3: 18}
    assert texts([c(0)], values) == []
    assert texts([c(0), op("-")], values) == []
    assert texts([c(0), op("-"), c(1)], values) == ["8 - 5 = 3"]
    assert texts([c(0), op("-"), c(1), op("*")], values) == ["8 - 5 = 3"]
    # R3.2 precedence: 8 - 5 * 6 is 8 - 30.
    assert texts([c(0), op("-"), c(1), op("*"), c(2)], values) == [
        "5 * 6 = 30",
        "8 - 30 = -22",
    ]
    chain = [op("("), c(0), op("-"), c(1), op(")"), op("*"), c(2)]
    assert texts(chain, values) == ["8 - 5 = 3", "3 * 6 = 18"]
    # After "=", the steps are still those of the expression.
    assert texts([*chain, op("="), c(3)], values) == ["8 - 5 = 3", "3 * 6 = 18"]


def test_open_parentheses_read_as_closed() -> None:  # R2.4
    values = {0: 8, 1: 5, 2: 2}
    assert texts([op("("), c(0), op("-"), c(1)], values) == ["8 - 5 = 3"]
    assert texts([op("("), op("("), c(0)], values) == []


def test_steps_are_exact_fractions_not_decimals() -> None:  # R3.2
    assert texts([c(0), op("/"), c(1)], {0: 7, 1: 2}) == ["7 / 2 = 7/2"]
    assert texts([c(0), op("/"), c(1), op("*"), c(2)], {0: 7, 1: 2, 2: 4}) == [
        "7 / 2 = 7/2",
        "7/2 * 4 = 14",
    ]
    assert texts([c(0), op("/"), c(1), op("/"), c(2)], {0: 1, 1: 3, 2: 3}) == [
        "1 / 3 = 1/3",
        "1/3 / 3 = 1/9",
    ]


def test_a_step_with_no_value_is_left_out_with_what_it_feeds() -> None:  # R3.5
    values = {0: 8, 1: 0, 2: 2, 3: 3}
    items = [c(0), op("/"), c(1), op("+"), c(2), op("*"), c(3)]
    assert texts(items, values) == ["2 * 3 = 6"]
    assert texts([c(1), op("^"), c(1)], {1: 0}) == []  # 0^0 has no value (R2.2)


def test_an_x_card_counts_once_it_has_its_number() -> None:  # R3.4
    assert texts([c(0), op("+"), c(1)], {0: 4, 1: None}) == []
    assert texts([c(0), op("+"), c(1)], {0: 4, 1: 9}) == ["4 + 9 = 13"]


@pytest.mark.parametrize(
    "items",
    [
        [op(")"), c(0)],
        [c(0), op(")")],
        [c(0), c(1)],
        [op("x"), c(0)],
        [{"num": 3}, op("+"), c(0)],
        [c(0), op("+"), c(1), op(")"), op(")")],
    ],
)
def test_what_the_parser_does_not_read_shows_nothing(items) -> None:
    assert texts(items, {0: 1, 1: 2}) == []


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(
    announcements(depth=3),
    st.text("+-*/^", min_size=1, max_size=5),
    st.lists(st.integers(0, 20), min_size=30, max_size=30),
)
def test_the_running_steps_are_the_checkers_steps(expression, ops, numbers) -> None:  # R2.4
    if "op" not in expression:
        expression = [*expression, "op", "card"]
    left = tokens_of(expression, ops=ops)
    if not tablet_form([*left, op("="), c(99)]):
        return
    parsed = parse_announcement([*left, op("="), c(99)])
    leaves = [leaf[1] for leaf in operand_leaves(parsed.expression)]
    values = {i: numbers[i % len(numbers)] for i in leaves}
    steps = texts(left, values)
    # The checker, at tier 3, on these cards with the result of the steps' last value.
    last = steps[-1].rsplit(" = ", 1)[1] if steps else ""
    if len(steps) != len(operators_of(parsed.expression)) or "/" in last:
        return  # a step with no value, or a result that is no card
    available = [values[i] for i in range(len(leaves))] + [int(last)]
    verdict = check_operation([*left, op("="), c(len(leaves))], available, RuleSet(tier=3))
    if verdict.ok:
        assert list(verdict.operation.steps) == steps
