"""Tests for reading announcements: typed text and tablet tokens (RULES.md R3.1, R3.2)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import INVALID_CODES, WRONG_CODES, RuleSet, Verdict, check_operation
from games.engine.errors import PARSE_REASONS
from games.engine.parser import MAX_INPUT_LENGTH, ParseFailure, parse_announcement

TIER1, TIER2, TIER3 = RuleSet(tier=1), RuleSet(tier=2), RuleSet(tier=3)


def _assert_stable_verdict(verdict: Verdict) -> None:
    """R3.5: a verdict is correct, or carries a published code of its own kind (and a
    parse_error a published reason)."""
    assert isinstance(verdict, Verdict)
    if verdict.ok:
        assert (verdict.kind, verdict.code, verdict.operation is not None) == (None, None, True)
        return
    published = {"invalid": INVALID_CODES, "wrong": WRONG_CODES}[verdict.kind]  # type: ignore[index]
    assert verdict.code in published, verdict
    if verdict.code == "parse_error":
        assert verdict.params.get("reason") in PARSE_REASONS, verdict
    if verdict.kind == "wrong":
        assert verdict.operation is not None  # a wrong operation is shown to everyone


@pytest.mark.parametrize(
    "text",
    [
        "(8-5)*6=18",
        "(8 − 5) × 6 = 18",
        "(8 - 5) · 6 = 18",
        "(8 - 5) x 6 = 18",
        "8 − 5 = 3, 3 × 6 = 18",
        "8 - 5 = 3; 3 * 6 = 18",
        "8 - 5 = 3\n3 * 6 = 18",
        "8-5=3 3*6=18",
        "18 = (8 - 5) * 6",
        # R3.2: the spoken chain, a step beginning with its operator
        "8 − 5 = 3, × 6 = 18",
        "8 − 5 = 3 × 6 = 18",
        "8 - 5 = 3; * 6 = 18",
        "8-5=3*6=18",
        "  ( 8\u00a0-\u20095 )*6 =18 ",
    ],
)
def test_ways_of_writing_the_same_operation(text: str) -> None:
    # R3.2: the step form "8 − 5 = 3, 3 × 6 = 18" is the same operation as "(8 − 5) × 6 = 18";
    # Unicode − × · and a spoken "x" for times are read like - and *.
    verdict = check_operation(text, [8, 5, 18, 6], TIER2)
    assert verdict.ok, verdict
    assert verdict.operation is not None
    assert verdict.operation.text == "(8 - 5) * 6 = 18"
    assert verdict.operation.steps == ("8 - 5 = 3", "3 * 6 = 18")


def test_a_spoken_chain_works_on_the_result_before_it() -> None:
    # R3.2: each step that begins with its operator works on the step just before, so a
    # chain of three steps is one operation; "- 2" after "= -3" at tier 3 is a chain too.
    verdict = check_operation("9 + 3 = 12, ÷ 4 = 3, × 6 = 18", [9, 3, 4, 6, 18], TIER2)
    assert verdict.ok and verdict.operation is not None, verdict
    assert verdict.operation.text == "(9 + 3) / 4 * 6 = 18"
    assert verdict.operation.steps == ("9 + 3 = 12", "12 / 4 = 3", "3 * 6 = 18")
    verdict = check_operation("2 - 5 = -3 - 2 = -5 + 8 = 3", [2, 5, 2, 8, 3], TIER3)
    assert verdict.ok and verdict.operation is not None, verdict
    assert verdict.operation.text == "2 - 5 - 2 + 8 = 3"


def test_a_spoken_chain_from_tablet_tokens() -> None:
    # R3.2: the same chain built with tablet tokens, with and without a separator
    head = [{"card": 0}, {"op": "-"}, {"card": 1}, {"op": "="}, {"num": 3}]
    tail = [{"op": "×"}, {"card": 2}, {"op": "="}, {"card": 3}]
    for tokens in (head + tail, [*head, {"op": ","}, *tail]):
        verdict = check_operation(tokens, [8, 5, 6, 18], TIER2)
        assert verdict.ok and verdict.operation is not None, verdict
        assert verdict.operation.text == "(8 - 5) * 6 = 18"


def test_a_spoken_chain_is_judged_like_the_step_form() -> None:
    # R3.2, R3.5: a wrong stated step in a chain is a wrong operation, not an unreadable one;
    # a chain with nothing before it, or a "step" without an operator, cannot be read.
    verdict = check_operation("8 - 5 = 4, × 6 = 24", [8, 5, 6, 24], TIER2)
    assert (verdict.kind, verdict.code) == ("wrong", "wrong_result")
    for text, reason in (
        ("× 6 = 18", "operand_missing"),
        ("13 = 8 + 5 = 13", "step_without_operator"),
    ):
        verdict = check_operation(text, [8, 5, 6, 13, 18], TIER2)
        assert (verdict.kind, verdict.code, verdict.params.get("reason")) == (
            "invalid",
            "parse_error",
            reason,
        ), text


def test_division_signs() -> None:
    # R2.2 tier 2: ÷ and the ":" of French and German schools mean divide.
    for text in ("12 ÷ 4 = 3", "12 : 4 = 3", "12/4=3"):
        assert check_operation(text, [12, 4, 3], TIER2).ok


def test_step_results_are_not_cards() -> None:
    # R3.2: the named step result 3 is not a card, even when a 3 lies on the table.
    verdict = check_operation("8 - 5 = 3, 3 * 6 = 18", [8, 5, 6, 18, 3], TIER2)
    assert verdict.ok and verdict.operation is not None
    assert 4 not in verdict.operation.positions
    # ...but a second 3 in a later step is the card.
    verdict = check_operation("8 - 5 = 3, 3 + 3 = 6", [8, 5, 3, 6], TIER1)
    assert verdict.ok and verdict.operation is not None
    assert sorted(verdict.operation.positions) == [0, 1, 2, 3]


def test_a_step_result_must_be_used() -> None:
    # R3.2: steps form one operation; a loose step does not.
    verdict = check_operation("8 - 5 = 3, 2 + 6 = 8", [8, 5, 2, 6, 8], TIER1)
    assert (verdict.kind, verdict.code, verdict.params["reason"]) == (
        "invalid",
        "parse_error",
        "step_unused",
    )


def test_negative_step_results_at_tier_3() -> None:
    # R2.2 tier 3: negative intermediate results are allowed, and may be named in steps.
    assert check_operation("3 - 8 = -5, -5 + 10 = 5", [3, 8, 10, 5], TIER3).ok


def test_precedence_and_right_associative_powers() -> None:
    # R3.2: standard precedence; ^ groups to the right: 2^3^2 = 2^9 = 512, not 64.
    assert check_operation("2 + 3 * 4 = 14", [2, 3, 4, 14], TIER2).ok
    verdict = check_operation("2 ^ 3 ^ 2 = 8", [2, 3, 2, 8], TIER3)
    assert (verdict.code, verdict.params["value"]) == ("wrong_result", "512")
    assert check_operation("(2 ^ 3) ^ 1 = 8", [2, 3, 1, 8], TIER3).ok


def test_structured_tokens_match_cards_by_position() -> None:
    # R3.1: a tablet sends card positions and operator keys.
    tokens = [
        {"op": "("},
        {"card": 0},
        {"op": "-"},
        {"card": 1},
        {"op": ")"},
        {"op": "×"},
        {"card": 3},
        {"op": "="},
        {"card": 2},
    ]
    verdict = check_operation(tokens, [8, 5, 18, 6], TIER2)
    assert verdict.ok and verdict.operation is not None
    assert verdict.operation.positions == (0, 1, 3, 2)


def test_structured_step_form() -> None:
    # R3.2: in tokens, a named step result is {"num": v}.
    tokens = [
        {"card": 0},
        {"op": "-"},
        {"card": 1},
        {"op": "="},
        {"num": 3},
        {"num": 3},
        {"op": "*"},
        {"card": 3},
        {"op": "="},
        {"card": 2},
    ]
    verdict = check_operation(tokens, [8, 5, 18, 6], TIER2)
    assert verdict.ok and verdict.operation is not None
    assert verdict.operation.text == "(8 - 5) * 6 = 18"


def test_x_values_in_text_and_tokens() -> None:
    # R3.4: each X card gets its own value, named in the text or sent with the tokens.
    verdict = check_operation("X + X = 7 (X=3, X=4)", ["X", 7, "X"], TIER1)
    assert verdict.ok and verdict.operation is not None
    assert verdict.operation.x_values == {0: 3, 2: 4}
    assert check_operation("X + 3 = 7, X = 4", ["X", 3, 7], TIER1).ok
    tokens = [{"card": 0}, {"op": "+"}, {"card": 1}, {"op": "="}, {"card": 2}]
    assert check_operation(tokens, ["X", 3, 7], TIER1, x_values={0: 4}).ok
    assert check_operation(tokens, ["X", 3, 7], TIER1, x_values={"0": 4}).ok  # JSON keys
    assert check_operation("X + 3 = 7", ["X", 3, 7], TIER1, x_values={0: 4}).ok


def test_parser_builds_trees() -> None:
    parsed = parse_announcement("13 = 8 + 5")
    assert parsed.result == ("num", 13)
    assert parsed.expression == ("op", "+", ("num", 8), ("num", 5))
    with pytest.raises(ParseFailure):
        parse_announcement("8 + (5 = 13")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "parse_error"),
        ("   ", "parse_error"),
        ("8 +", "parse_error"),
        ("8 + 5", "parse_error"),
        ("(8 + 5 = 13", "parse_error"),
        ("8 + 5) = 13", "parse_error"),
        ("8 + 5 = 13 = 13", "parse_error"),
        ("8 5 = 13", "parse_error"),
        ("-8 + 21 = 13", "parse_error"),
        ("8 + 5 = 6 + 7", "parse_error"),
        ("(" * 100 + "8" + ")" * 100 + "+5=13", "parse_error"),
        ("8 + 5 = 13\x00", "unknown_character"),
        ("8 + 5 = 13 €", "unknown_character"),
        ("٨ + ٥ = ١٣", "digit_not_ascii"),
        ("８ + 5 = 13", "digit_not_ascii"),
        ("2² = 4", "digit_not_ascii"),
        ("8 + 5 = 13" + " " * MAX_INPUT_LENGTH, "input_too_long"),
        ("1" * 10_000_000, "input_too_long"),
    ],
)
def test_bad_text_gets_an_invalid_verdict(text: str, code: str) -> None:
    # R3.5: input that does not parse is refused (invalid), with a stable code.
    verdict = check_operation(text, [8, 5, 13, 6, 7, 2, 4], TIER3)
    assert (verdict.ok, verdict.kind, verdict.code) == (False, "invalid", code)
    _assert_stable_verdict(verdict)


@pytest.mark.parametrize(
    "tokens",
    [
        [],
        b"not a list",
        [{"card": 0}, {"op": "?"}],
        [{"card": "0"}],
        [{"card": 0, "op": "+"}],
        [1, 2, 3],
        [{"num": 3}, {"op": "+"}, {"card": 1}, {"op": "="}, {"card": 2}],
        [{"card": 0}] * 1000,
    ],
)
def test_bad_tokens_get_an_invalid_verdict(tokens: object) -> None:
    # R3.5: malformed tablet input is refused, never a crash.
    verdict = check_operation(tokens, [8, 5, 13], TIER2)
    assert verdict.kind == "invalid"
    _assert_stable_verdict(verdict)


@given(st.text(max_size=60))
def test_any_text_gets_a_verdict(text: str) -> None:
    # R3.5: any string at all gets a verdict with a code; nothing else escapes.
    verdict = check_operation(text, [8, 5, 13, "X", 2, 0], TIER3)
    _assert_stable_verdict(verdict)


@given(st.text(alphabet="0123456789+-*/^()=xX,; ", max_size=40))
def test_any_formula_like_text_gets_a_verdict(text: str) -> None:
    # R3.5, at every tier: arithmetic-looking noise is judged, never crashes.
    for rules in (TIER1, TIER2, TIER3):
        verdict = check_operation(text, [8, 5, 13, "X", 2, 0, 1, 20, 3], rules)
        _assert_stable_verdict(verdict)


_TOKEN = st.one_of(
    st.builds(lambda p: {"card": p}, st.integers(-2, 8)),
    st.builds(lambda o: {"op": o}, st.sampled_from(list("+-*/^()=,"))),
    st.builds(lambda n: {"num": n}, st.integers(-30, 30)),
)


@given(st.lists(_TOKEN, max_size=15), st.dictionaries(st.integers(0, 6), st.integers(-5, 500)))
def test_any_tokens_get_a_verdict(
    tokens: list[dict[str, object]], x_values: dict[int, int]
) -> None:
    # R3.5: any token sequence from a tablet is judged, never crashes.
    verdict = check_operation(tokens, [8, 5, 13, "X", 2, "X", 3], TIER3, x_values=x_values)
    _assert_stable_verdict(verdict)


@pytest.mark.parametrize(
    ("announcement", "x_values"),
    [
        ([{"card": 10**5000}, {"op": "+"}, {"card": 1}, {"op": "="}, {"card": 2}], None),
        ([{"card": 0}, {"op": "+"}, {"card": 1}, {"op": "="}, {"card": 2}], {0: 10**5000}),
        ([{"card": 0}, {"op": "+"}, {"card": 1}, {"op": "="}, {"card": 2}], {0: -(10**40)}),
        ("X + 1 = 2", {0: 10**5000}),
        ("X + 1 = 2", {0: "²"}),  # a digit to str.isdigit, not to int()
        ([{"card": 0}, {"op": "+"}, {"card": 1}, {"op": "="}, {"card": 2}], {"²": 1}),
    ],
)
def test_huge_numbers_get_a_verdict_that_can_be_sent(
    announcement: object, x_values: object
) -> None:
    # R3.5: a verdict for any input, with parameters a page can show and JSON can carry
    verdict = check_operation(announcement, ["X", 1, 2], TIER3, x_values=x_values)  # type: ignore[arg-type]
    assert not verdict.ok
    _assert_stable_verdict(verdict)
    json.dumps(verdict.to_dict())
    assert verdict.message


@given(st.text(max_size=400), st.sampled_from([TIER1, TIER2, TIER3]))
def test_any_text_at_any_tier_gets_a_verdict_that_can_be_sent(text: str, rules: RuleSet) -> None:
    # R3.5: any string at all, past the length limit too, gets a verdict JSON can carry
    verdict = check_operation(text, [8, 5, 13, "X", 2, 0, 1, 1, 3], rules)
    _assert_stable_verdict(verdict)
    json.dumps(verdict.to_dict())
