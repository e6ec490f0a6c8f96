"""Tests for the referee's verdicts and their codes (RULES.md R2.2, R3)."""

from __future__ import annotations

import pytest

from games.engine import (
    INVALID_CODES,
    WRONG_CODES,
    Card,
    RuleSet,
    Verdict,
    check_operation,
)

TIER1, TIER2, TIER3 = RuleSet(tier=1), RuleSet(tier=2), RuleSet(tier=3)
TABLE = [8, 5, 13, 6, 3, 0, 0, 1, 1, 2, 2, 2, 4, 7, 19, 19, "X", *[20] * 7]


def _verdict(text: str, rules: RuleSet, cards: list[int | str] | None = None) -> Verdict:
    return check_operation(text, TABLE if cards is None else cards, rules)


def test_the_contract_example() -> None:
    # R3.3: correct when the value equals the result card and the tier is met.
    verdict = check_operation("(8-5)*6=18", [8, 5, 18, 6], TIER2)
    assert (verdict.ok, verdict.kind, verdict.code) == (True, None, None)
    verdict = check_operation("(8-5)*6=18", [8, 5, 18, 6, 17], TIER2)
    assert verdict.ok
    verdict = check_operation("(8-5)*5=18", [8, 5, 18, 5], TIER2)
    assert (verdict.ok, verdict.kind, verdict.code) == (False, "wrong", "wrong_result")


@pytest.mark.parametrize(
    ("text", "rules", "code"),
    [
        # R3.5 invalid: refused, nothing changes, nobody is penalised.
        ("9 + 5 = 14", TIER1, "card_unavailable"),
        ("8 + 8 = 16", TIER1, "card_reused"),
        ("13 = 13", TIER1, "too_few_cards"),
        ("X = 4", TIER1, "parse_error"),
        ("13 = 8 + 5 - 5 + 5 = 13", TIER1, "parse_error"),
        ("2 * 3 = 6", TIER1, "operator_not_allowed"),
        ("2 ^ 3 = 8", TIER2, "operator_not_allowed"),
        ("X + 3 = 7", TIER1, "x_value_missing"),
        ("X + 3 = 7 (X=4, X=5)", TIER1, "parse_error"),
        ("2 ^ 99999 = 8", TIER3, "card_unavailable"),
        # R3.5 wrong: a real mistake, open to challenge.
        ("8 + 5 = 6", TIER1, "wrong_result"),
        ("13 / 0 = 1", TIER2, "division_by_zero"),
        ("13 / 2 = 6", TIER2, "not_whole"),
        ("5 - 8 + 6 = 3", TIER1, "negative"),
        ("20 + 20 + 20 + 20 + 20 + 20 = 20", TIER1, "out_of_bounds"),
        ("20 * 20 * 2 = 20", TIER2, "out_of_bounds"),
        ("20 ^ 4 = 20", TIER3, "out_of_bounds"),
        ("1 / 19 / 19 / 3 = 0", TIER3, "out_of_bounds"),
        ("0 ^ 0 = 1", TIER3, "zero_power_zero"),
        ("2 ^ (1 / 2) = 1", TIER3, "exponent_not_allowed"),
        ("2 ^ (0 - 1) = 1", TIER3, "exponent_not_allowed"),
        ("20 ^ 20 ^ 20 = 20", TIER3, "exponent_not_allowed"),
        ("8 - 5 = 4, 4 + 6 = 13", TIER1, "wrong_result"),
        # R3.4, R2.2: an X card is a part of the expression, so its value is an intermediate
        # result; a value outside the tier is a real mistake, not a refusal.
        ("X + 3 = 7 (X=101)", TIER1, "x_value_out_of_range"),
        ("X + 3 = 7 (X=-1)", TIER2, "x_value_out_of_range"),
        ("X + 3 = 7 (X=10001)", TIER3, "x_value_out_of_range"),
        ("3 + 4 = X (X=-7)", TIER1, "x_value_out_of_range"),
    ],
)
def test_failure_codes(text: str, rules: RuleSet, code: str) -> None:
    # R3.5: each failure has a stable code, and invalid and wrong are never confused.
    verdict = _verdict(text, rules)
    assert verdict.code == code, verdict
    assert verdict.kind == ("invalid" if code in INVALID_CODES else "wrong")
    assert not verdict.ok
    assert verdict.message and "{" not in verdict.message


def test_codes_are_split_into_two_disjoint_kinds() -> None:
    # R3.5: "Two kinds of failure, never confused".
    assert not INVALID_CODES & WRONG_CODES
    assert {
        "card_unavailable",
        "card_reused",
        "too_few_cards",
        "operator_not_allowed",
    } <= INVALID_CODES
    assert {
        "wrong_result",
        "division_by_zero",
        "not_whole",
        "negative",
        "out_of_bounds",
    } <= WRONG_CODES


def test_a_wrong_operation_still_names_its_cards() -> None:
    # R4.6: the referee shows everyone why a wrong operation is wrong, so it keeps the cards.
    verdict = _verdict("13 / 2 = 6", TIER2)
    assert verdict.kind == "wrong" and verdict.operation is not None
    assert verdict.operation.cards == (13, 2, 6)
    assert verdict.params["expression"] == "13 / 2"


def test_tier_1_and_2_bounds_apply_to_every_intermediate_result() -> None:
    # R2.2: intermediate results are whole numbers 0..100 (tier 1), 0..400 (tier 2).
    assert _verdict("20 + 20 + 20 + 20 + 20 - 20 = X (X=80)", TIER1).ok  # reaches exactly 100
    assert _verdict("8 - 5 + 6 = 9", TIER1, [8, 5, 6, 9]).ok
    assert _verdict("5 - 8 + 6 = 3", TIER1).code == "negative"
    assert _verdict("8 + (5 - 6) = 7", TIER1).code == "negative"
    assert _verdict("20 * 20 / 20 = 20", TIER2).ok  # 400 is allowed
    assert _verdict("8 / 4 * 2 = 4", TIER2, [8, 4, 2, 4]).ok
    narrowed = RuleSet(tier=2, bound=50)
    assert _verdict("20 * 20 / 20 = 20", narrowed).code == "out_of_bounds"


def test_tier_3_fractions_and_negatives() -> None:
    # R2.2 tier 3: fractions p/q within bounds, negatives allowed, powers 0..10.
    assert _verdict("7 / 2 * 2 = 7", TIER3, [7, 2, 2, 7]).ok
    assert _verdict("5 - 8 + 6 = 3", TIER3).ok
    assert _verdict("2 ^ 0 = 1", TIER3, [2, 0, 1]).ok
    assert _verdict("0 ^ 2 = 0", TIER3, [0, 2, 0]).ok
    assert _verdict("(1 - 2) ^ 2 = 1", TIER3, [1, 2, 2, 1]).ok
    assert _verdict("(1 / 2) ^ 2 * 4 = 1", TIER3, [1, 2, 2, 4, 1]).ok
    assert _verdict("7 / 2 = 3", TIER3, [7, 2, 3]).code == "wrong_result"


def test_x_as_operand_or_result() -> None:
    # R3.4: an X card stands for a named whole number, as operand or result.
    assert check_operation("X + 3 = 7 (X=4)", ["X", 3, 7], TIER1).ok
    assert check_operation("3 + 4 = X (X=7)", [3, 4, "X"], TIER1).ok
    assert check_operation("3 - 4 = X (X=-1)", [3, 4, "X"], TIER3).ok
    assert check_operation("3 + 4 = X (X=8)", [3, 4, "X"], TIER1).code == "wrong_result"


def test_held_cards_are_available_after_the_table() -> None:
    # R3.1, R7.4: a player uses the table and their own held cards.
    table, held = [8, 5], [13]
    verdict = check_operation("8 + 5 = 13", [*table, *held], TIER1)
    assert verdict.ok and verdict.operation is not None
    assert verdict.operation.positions == (0, 1, 2)
    assert check_operation("8 + 5 = 13", table, TIER1).code == "card_unavailable"


def test_cards_as_card_objects_and_event_cards_ignored() -> None:
    # R4.2: event cards never lie on the table, so they are never operands.
    cards = [
        Card(0, "number", 8),
        Card(1, "number", 5),
        Card(2, "event", event="TRI"),
        Card(3, "number", 13),
    ]
    assert check_operation("8 + 5 = 13", cards, TIER1).ok
    tokens = [{"card": 0}, {"op": "+"}, {"card": 2}, {"op": "="}, {"card": 3}]
    assert check_operation(tokens, cards, TIER1).code == "card_unavailable"


def test_structured_card_reused_and_out_of_range() -> None:
    # R3.1: each card at most once.
    tokens = [{"card": 0}, {"op": "+"}, {"card": 0}, {"op": "="}, {"card": 2}]
    assert check_operation(tokens, [4, 4, 8], TIER1).code == "card_reused"
    tokens = [{"card": 0}, {"op": "+"}, {"card": 9}, {"op": "="}, {"card": 2}]
    assert check_operation(tokens, [4, 4, 8], TIER1).code == "card_unavailable"
    tokens = [{"card": 0}, {"op": "+"}, {"card": 1}, {"op": "="}, {"card": 2}]
    assert check_operation(tokens, ["X", 4, 8], TIER1).code == "x_value_missing"


def test_canonical_text_reads_back_to_the_same_operation() -> None:
    # R9.4: Operation.text is accepted by the checker, with the same intermediate results.
    for text, cards, rules in [
        ("90 + (20 - 15) = 95", [90, 20, 15, 95], RuleSet(tier=1)),
        ("8 - (5 - 3) = 6", [8, 5, 3, 6], TIER1),
        ("(2 ^ 3) ^ 1 = 8", [2, 3, 1, 8], TIER3),
        ("X + X = X (X=1, X=2, X=3)", ["X", "X", "X"], TIER2),
    ]:
        first = check_operation(text, cards, rules)
        assert first.operation is not None
        again = check_operation(first.operation.text, cards, rules)
        assert again.ok == first.ok
        assert again.operation is not None
        assert again.operation.steps == first.operation.steps
        assert again.operation.x_values == first.operation.x_values


def test_operation_round_trips_through_json_shapes() -> None:
    verdict = check_operation("X + 3 = 7 (X=4)", ["X", 3, 7], TIER1)
    assert verdict.operation is not None
    data = verdict.operation.to_dict()
    assert data["x_values"] == {"0": 4}
    assert type(verdict.operation).from_dict(data) == verdict.operation
    assert verdict.to_dict()["operation"] == data


def test_an_x_value_outside_the_tier_is_wrong_and_keeps_its_cards() -> None:
    # R3.4, R3.5: "wrong" (open to challenge), with the cards and the named value shown
    verdict = check_operation("X + 3 = 7 (X=101)", ["X", 3, 7], TIER1)
    assert (verdict.kind, verdict.code) == ("wrong", "x_value_out_of_range")
    assert verdict.params["low"] == 0 and verdict.params["high"] == 100
    assert verdict.params["value"] == 101
    assert verdict.operation is not None and verdict.operation.cards == ("X", 3, 7)
    assert verdict.operation.x_values == {0: 101}
    # A number too long to read is input that does not parse (invalid), not a value.
    tokens = [{"card": 0}, {"op": "+"}, {"card": 1}, {"op": "="}, {"card": 2}]
    verdict = check_operation(tokens, ["X", 3, 7], TIER3, x_values={0: 10**5000})
    assert (verdict.kind, verdict.code) == ("invalid", "parse_error")


def test_every_code_the_engine_raises_is_published() -> None:
    # R3.5: the codes written in the engine's sources are exactly the published ones, so a
    # new refusal cannot slip out without a stable code a page can translate
    import re
    from pathlib import Path

    from games.engine import errors

    source = "\n".join(p.read_text() for p in Path(errors.__file__).parent.glob("*.py"))
    raised = set(
        re.findall(
            r'(?:_refusal|Refusal|ParseFailure|_Wrong|StepWrong|EngineError|_config_error)\("([a-z_]+)"',
            source,
        )
    )
    reasons = set(re.findall(r'_parse_error\("([a-z_]+)"', source)) | set(
        re.findall(r'ParseFailure\("[a-z_]+", reason="([a-z_]+)"', source)
    )
    assert raised and raised <= errors.CODES, raised - errors.CODES
    assert reasons and reasons <= errors.PARSE_REASONS, reasons - errors.PARSE_REASONS
    assert errors.INVALID_CODES.isdisjoint(errors.WRONG_CODES)
    assert set(errors.MESSAGES) >= errors.INVALID_CODES | errors.WRONG_CODES
