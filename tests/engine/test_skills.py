"""Tests for the skills an operation shows, and what a move was for each (reports, live grid)."""

from __future__ import annotations

from games.engine import (
    MISSED,
    RIGHT,
    SKILLS,
    WRONG,
    RuleSet,
    attempts_of,
    check_operation,
    outcome_of,
    skills_of,
)

TIER1, TIER2, TIER3 = RuleSet(tier=1), RuleSet(tier=2), RuleSet(tier=3)


def _skills(text: str, cards: list[int | str], rules: RuleSet) -> frozenset[str]:
    verdict = check_operation(text, cards, rules)
    assert verdict.ok and verdict.operation is not None, verdict
    found = skills_of(verdict.operation, rules)
    assert found <= set(SKILLS)
    return found


def test_add_and_subtract_within_10_and_20() -> None:
    # R2.1, R2.2 tier 1: the two number ranges are separate skills.
    assert _skills("3 + 4 = 7", [3, 4, 7], TIER1) == {"addsub_10"}
    assert _skills("13 - 4 = 9", [13, 4, 9], TIER1) == {"addsub_20"}


def test_four_operations_and_steps() -> None:
    # R2.2 tier 2.
    assert _skills("3 * 4 = 12", [3, 4, 12], TIER2) == {"mult"}
    assert _skills("12 / 4 = 3", [12, 4, 3], TIER2) == {"div"}
    assert _skills("(8 - 5) * 6 = 18", [8, 5, 6, 18], TIER2) == {"addsub_10", "mult", "multi_step"}


def test_fractions_powers_and_joker() -> None:
    # R2.2 tier 3 and R3.4 (X cards).
    assert "frac_pow" in _skills("2 ^ 3 = 8", [2, 3, 8], TIER3)
    assert "frac_pow" in _skills("7 / 2 * 2 = 7", [7, 2, 2, 7], TIER3)
    assert "frac_pow" not in _skills("6 / 2 * 2 = 6", [6, 2, 2, 6], TIER3)
    assert "joker" in _skills("X + 3 = 7 (X=4)", ["X", 3, 7], TIER1)


def test_a_wrong_operation_is_a_try_at_what_the_child_computed() -> None:
    # R3.5 (a wrong operation is judged, not refused): "8 + 4 = 10" is a try at 8 + 4, whose
    # true sum 12 is beyond 10; "7 - 9 + 5 = 3" at tier 1 still tried 7 - 9 and then + 5
    verdict = check_operation("8 + 4 = 10", [8, 4, 10], TIER1)
    assert verdict.is_wrong and verdict.operation is not None
    assert skills_of(verdict.operation) == {"addsub_20"}
    verdict = check_operation("7 - 9 + 5 = 3", [7, 9, 5, 3], TIER1)
    assert verdict.code == "negative" and verdict.operation is not None
    assert skills_of(verdict.operation) == {"addsub_10", "multi_step"}
    verdict = check_operation("6 / 0 = 3", [6, 0, 3], TIER2)
    assert verdict.code == "division_by_zero" and verdict.operation is not None
    assert skills_of(verdict.operation) == {"div"}


def test_skills_from_the_stored_forms_are_the_same() -> None:
    # R3.2: the stored operation (Operation.to_dict, the game's operation_dict) gives the same
    # skills as the Operation itself, so reports read them without the engine's objects
    from games.engine.game import operation_dict

    for text, cards, rules in (
        ("(8 - 5) * 6 = 18", [8, 5, 6, 18], TIER2),
        ("X + 3 = 7 (X=4)", ["X", 3, 7], TIER1),
        ("7 / 2 * 2 = 7", [7, 2, 2, 7], TIER3),
        ("13 + 4 = 16", [13, 4, 16], TIER1),
    ):
        operation = check_operation(text, cards, rules).operation
        assert operation is not None
        expected = skills_of(operation)
        assert expected and expected <= set(SKILLS)
        assert skills_of(operation.to_dict()) == expected
        stored = operation_dict(operation, list(range(len(operation.positions))), rules)
        assert set(stored["skills"]) == expected and skills_of(stored) == expected


def test_an_announcement_is_a_try_at_each_of_its_skills() -> None:
    # R3.5: a wrong operation is a mistake at each skill it tried; a refused one is no try.
    assert attempts_of(kind="announce", ok=False, skills=["mult", "joker"]) == (
        ("mult", WRONG),
        ("joker", WRONG),
    )
    assert attempts_of(kind="announce", ok=True, skills=["addsub_10"]) == (("addsub_10", RIGHT),)
    assert attempts_of(kind="announce", ok=False, verdict_kind="invalid", skills=["mult"]) == ()
    assert attempts_of(kind="announce", ok=None, skills=["mult"]) == ()  # not judged yet
    assert attempts_of(kind="announce", ok=True, skills=["not_a_skill"]) == ()


def test_nothing_to_do_and_challenges_are_the_games_own_skills() -> None:
    # R5.6: a false "nothing to do" is a missed operation; a true one is right.
    assert attempts_of(kind="nothing", ok=False, missed=True) == (("noticing", MISSED),)
    assert attempts_of(kind="nothing", ok=True) == (("noticing", RIGHT),)
    # R5.4, R5.5: a challenge counts once it is ruled.
    assert attempts_of(kind="challenge", ok=None, challenge_outcome="right") == (
        ("spotting", RIGHT),
    )
    assert attempts_of(kind="challenge", ok=None, challenge_outcome="false") == (
        ("spotting", WRONG),
    )
    assert attempts_of(kind="challenge", ok=None) == ()
    assert outcome_of(kind="announce", ok=False) == WRONG  # even with no skill read
    assert outcome_of(kind="challenge", ok=None) is None
