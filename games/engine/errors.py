"""Typed refusals the engine raises, and the stable failure codes of RULES.md R3.5."""

from __future__ import annotations

from typing import Any

# R3.5: an *invalid* announcement is refused and changes nothing; nobody is penalised.
INVALID_CODES: frozenset[str] = frozenset(
    {
        "input_too_long",
        "parse_error",
        "unknown_character",
        "digit_not_ascii",
        "card_unavailable",
        "card_reused",
        "too_few_cards",
        "operator_not_allowed",
        "x_value_missing",
    }
)

# R3.5: a *wrong* announcement is a real mistake, shown to everyone and open to challenge.
WRONG_CODES: frozenset[str] = frozenset(
    {
        "wrong_result",
        "division_by_zero",
        "not_whole",
        "negative",
        "out_of_bounds",
        "zero_power_zero",
        "exponent_not_allowed",
        # R3.4, R2.2: an X card is a part of the expression, so its value is an intermediate
        # result, and one outside the tier is "out of bounds", a real mistake.
        "x_value_out_of_range",
    }
)

# R3.5: the `reason` of a "parse_error" (input that does not parse), for pages that say more.
PARSE_REASONS: frozenset[str] = frozenset(
    {
        "bad_token",
        "empty",
        "empty_step",
        "equals_missing",
        "number_too_long",
        "operand_missing",
        "result_not_card",
        "several_equals",
        "step_unknown",
        "step_unused",
        "step_value",
        "step_without_operator",
        "too_deep",
        "unary_minus",
        "unbalanced",
        "unexpected",
        "x_assignment",
    }
)

# R9.3: a move refused by the game (nothing changes); an invalid announcement is refused with
# its INVALID_CODES code instead.
MOVE_REFUSAL_CODES: frozenset[str] = frozenset(
    {
        "already_answered",
        "bad_move",
        "game_over",
        "not_your_turn",
        "own_announcement",
        "place_odd_trick",
        "place_unavailable",
        "place_unknown",
        "stale_timeout",
        "too_late",
        "unknown_move",
        "unknown_seat",
        "wrong_phase",
    }
)

# A game's settings refused before it starts (EngineError, never a Refusal of a move).
SETTINGS_CODES: frozenset[str] = frozenset(
    {"config_invalid", "rules_invalid", "deck_invalid", "draw_order_invalid"}
)

# Every code the engine publishes: a verdict, a refusal or an EngineError carries one of these.
CODES: frozenset[str] = INVALID_CODES | WRONG_CODES | MOVE_REFUSAL_CODES | SETTINGS_CODES

# English texts for the CLI and debugging only; the web app maps codes to gettext strings.
MESSAGES: dict[str, str] = {
    "input_too_long": "The announcement is too long (at most {limit} characters).",
    "parse_error": "The announcement could not be read: {reason}.",
    "unknown_character": "The character {char!r} is not allowed in an announcement.",
    "digit_not_ascii": "Write the digit {char!r} as an ordinary digit (0-9).",
    "card_unavailable": "There is no {card} card to use.",
    "card_reused": "The {card} card is used more than once.",
    "too_few_cards": "An operation needs at least three cards (two combined, one result).",
    "operator_not_allowed": "The operator {operator} is not allowed at this level.",
    "x_value_missing": "Say which number each X card stands for.",
    "x_value_out_of_range": "An X card must stand for a whole number from {low} to {high}.",
    "wrong_result": "{expression} is {value}, not {result}.",
    "division_by_zero": "{expression}: you cannot divide by zero.",
    "not_whole": "{expression} does not divide exactly.",
    "negative": "{expression} = {value} is below zero.",
    "out_of_bounds": "{expression} = {value} is outside the numbers allowed at this level.",
    "zero_power_zero": "0^0 has no value.",
    "exponent_not_allowed": "{expression}: an exponent must be a whole number from 0 to 10.",
    "deck_invalid": "This deck cannot be built: {reason}.",
    "rules_invalid": "These rules are not possible: {reason}.",
}


def english_message(code: str, params: dict[str, Any]) -> str:
    """The English text for a code, falling back to the bare code if a parameter is missing."""
    template = MESSAGES.get(code, code)
    try:
        return template.format(**params)
    except (KeyError, IndexError, ValueError):
        return template if "{" not in template else code


class EngineError(Exception):
    """Base of every typed refusal the engine raises: a stable code plus message parameters."""

    def __init__(self, code: str, params: dict[str, Any] | None = None, /, **more: Any) -> None:
        self.code: str = code
        self.params: dict[str, Any] = {**(params or {}), **more}
        super().__init__(f"{code}: {self.message}")

    @property
    def message(self) -> str:
        return english_message(self.code, self.params)


class Refusal(EngineError):
    """A move or announcement refused: the state is left exactly as it was (R3.5, R9.3)."""
