"""Command line: solve a table, check an announcement, or watch a game between computer players."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .errors import EngineError
from .rules import RuleSet

EXIT_OK = 0  # found / correct / game played
EXIT_NO = 1  # nothing to do / the announcement fails
EXIT_USAGE = 2  # bad arguments (argparse uses 2 as well)


def _card(text: str) -> int | str:
    if text.upper() == "X":
        return "X"
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a card: give a number or X") from None


def _level_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tier", type=int, choices=(1, 2, 3), default=1, help="operations tier (R2.2)"
    )
    parser.add_argument(
        "--range",
        dest="max_number",
        type=int,
        choices=(10, 20),
        default=20,
        help="number range: up to 10 or up to 20 (R2.1)",
    )
    parser.add_argument("--operators", default=None, help='narrow the operators, e.g. "+-*"')


def _rules(args: argparse.Namespace) -> RuleSet:
    return RuleSet(max_number=args.max_number, tier=args.tier, operators=args.operators)


def _solve(args: argparse.Namespace) -> int:
    from .solver import best_operation, find_operation

    rules = _rules(args)
    op = (find_operation if args.any else best_operation)(args.cards, rules, held=args.held or ())
    if op is None:
        print("nothing to do")
        return EXIT_NO
    print(op.text)
    if args.steps and op.steps:
        for step in op.steps:
            print(f"  {step}")
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    from .checker import check_operation

    verdict = check_operation(args.announcement, args.cards, _rules(args))
    if verdict.ok:
        print(f"correct: {verdict.operation.text if verdict.operation else args.announcement}")
        return EXIT_OK
    print(f"{verdict.kind} ({verdict.code}): {verdict.message}")
    return EXIT_NO


def _play(args: argparse.Namespace) -> int:
    from .bots import play_bot_game
    from .cards import DeckSpec
    from .game import BOT_STRENGTHS, GameConfig
    from .narration import describe_event

    strengths = [s.strip() for s in args.bots.split(",") if s.strip()]
    bad = [s for s in strengths if s not in BOT_STRENGTHS]
    if bad or not 2 <= len(strengths) <= 6:
        print(
            "--bots takes 2 to 6 strengths among easy, medium, hard, e.g. easy,hard",
            file=sys.stderr,
        )
        return EXIT_USAGE
    names = [f"{s}-{i + 1}" for i, s in enumerate(strengths)]
    config = GameConfig(
        players=names,
        rules=_rules(args),
        deck=DeckSpec(max_number=args.max_number, events=not args.no_events),
        challenge_window=args.window,
    )
    game = play_bot_game(config, strengths, seed=args.seed)
    if not args.quiet:
        for event in game.events:
            line = describe_event(event, names)
            if line:
                print(line)
    else:
        line = describe_event(game.events[-1], names)
        print(line)
    print(f"{len(game.moves)} moves.")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m games.engine",
        description="The rules engine of Kavet 'm eus: solve a table, check an announcement, "
        "or watch computer players play.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    solve = sub.add_parser(
        "solve", help="print the best operation on a table (exit 1: nothing to do)"
    )
    _level_options(solve)
    solve.add_argument("cards", nargs="+", type=_card, help="table cards: numbers or X")
    solve.add_argument("--held", nargs="*", type=_card, help="the player's held cards (R7.4)")
    solve.add_argument("--any", action="store_true", help="any operation, not the largest")
    solve.add_argument("--steps", action="store_true", help="also print the intermediate results")
    solve.set_defaults(run=_solve)

    check = sub.add_parser("check", help="judge an announcement (exit 1: invalid or wrong)")
    _level_options(check)
    check.add_argument("announcement", help='e.g. "(8-5)*6=18" or "8 - 5 = 3, 3 * 6 = 18"')
    check.add_argument("cards", nargs="+", type=_card, help="cards available: numbers or X")
    check.set_defaults(run=_check)

    play = sub.add_parser("play", help="print a whole game between computer players")
    _level_options(play)
    play.add_argument(
        "--seed", type=int, default=None, help="shuffle seed (R1.4); random if omitted"
    )
    play.add_argument(
        "--bots", default="easy,hard", help="strengths in seat order, e.g. easy,medium,hard"
    )
    play.add_argument("--window", type=int, default=10, help="challenge window in seconds, 0 = off")
    play.add_argument("--no-events", action="store_true", help="play without the six event cards")
    play.add_argument("--quiet", action="store_true", help="print only the result")
    play.set_defaults(run=_play)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except EngineError as error:
        print(f"error ({error.code}): {error.message}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
