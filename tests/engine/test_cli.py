"""The command line: solve, check and play, with meaningful exit codes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from games.engine.__main__ import EXIT_NO, EXIT_OK, EXIT_USAGE, main
from games.engine.checker import check_operation
from games.engine.rules import RuleSet
from games.engine.solver import best_operation

ROOT = Path(__file__).resolve().parents[2]


def test_solve_prints_the_best_operation(capsys):
    # R3, R9.4 — the largest trick on the table
    rules = RuleSet(max_number=20, tier=2)
    assert main(["solve", "--tier", "2", "--range", "20", "8", "5", "13", "6"]) == EXIT_OK
    out = capsys.readouterr().out.strip()
    assert out == best_operation([8, 5, 13, 6], rules).text
    assert check_operation(out, [8, 5, 13, 6], rules).ok


def test_solve_says_nothing_to_do(capsys):
    assert main(["solve", "--tier", "1", "--range", "10", "4", "9", "10"]) == EXIT_NO
    assert capsys.readouterr().out.strip() == "nothing to do"


def test_solve_with_held_cards_and_steps(capsys):
    # R7.4 — held cards count for their holder
    assert (
        main(["solve", "--tier", "1", "--range", "10", "4", "9", "--held", "5", "--steps"])
        == EXIT_OK
    )
    assert "4" in capsys.readouterr().out


def test_check_prints_the_verdict(capsys):
    # R3.3, R3.5 — correct, wrong, invalid
    assert main(["check", "--tier", "2", "(8-5)*6=18", "8", "5", "18", "6"]) == EXIT_OK
    assert capsys.readouterr().out.startswith("correct")
    assert main(["check", "--tier", "2", "(8-5)*6=17", "8", "5", "17", "6"]) == EXIT_NO
    assert capsys.readouterr().out.startswith("wrong (wrong_result)")
    assert main(["check", "--tier", "1", "8*5=40", "8", "5", "40"]) == EXIT_NO
    assert capsys.readouterr().out.startswith("invalid (operator_not_allowed)")


def test_play_prints_a_whole_game(capsys):
    # R8 — a game between computer players, turn by turn, then the scores
    assert main(["play", "--seed", "7", "--bots", "easy,hard"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "easy-1's turn" in out and "Game over" in out and "points" in out


def test_play_is_reproducible(capsys):
    # R9.2 — the same seed prints the same game
    main(["play", "--seed", "3", "--bots", "medium,medium,hard", "--range", "10"])
    first = capsys.readouterr().out
    main(["play", "--seed", "3", "--bots", "medium,medium,hard", "--range", "10"])
    assert capsys.readouterr().out == first


def test_bad_arguments_exit_with_usage_errors(capsys):
    assert main(["play", "--bots", "easy,genius"]) == EXIT_USAGE
    assert main(["play", "--bots", "easy"]) == EXIT_USAGE
    assert (
        main(["solve", "--tier", "1", "--operators", "*", "4", "5"]) == EXIT_USAGE
    )  # rules_invalid
    with pytest.raises(SystemExit) as info:
        main(["solve", "--tier", "4", "1", "2", "3"])
    assert info.value.code == EXIT_USAGE
    with pytest.raises(SystemExit) as info:
        main(["solve", "seven"])
    assert info.value.code == EXIT_USAGE
    capsys.readouterr()


def test_module_runs_with_help():
    done = subprocess.run(
        [sys.executable, "-m", "games.engine", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and "solve" in done.stdout and "play" in done.stdout
