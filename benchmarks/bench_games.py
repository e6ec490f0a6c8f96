"""How many complete games between computer players the engine plays per second, by level and seats.

Run: .venv/bin/python benchmarks/bench_games.py [--games N] [--seats 2 3 4]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.quick import parse_args  # noqa: E402
from games.engine.bots import play_bot_game  # noqa: E402
from games.engine.game import GameConfig, apply_move, new_game  # noqa: E402
from games.engine.rules import RuleSet  # noqa: E402

STRENGTHS = {"easy": "easy", "hard": "hard", "mixed": None}


def bench(max_number: int, tier: int, seats: int, mix: str, games: int) -> dict[str, float]:
    config = GameConfig(
        players=[f"p{i}" for i in range(seats)], rules=RuleSet(max_number=max_number, tier=tier)
    )
    strengths = [STRENGTHS[mix] or ("easy", "medium", "hard")[i % 3] for i in range(seats)]
    durations, moves, replays = [], 0, []
    for seed in range(games):
        start = time.perf_counter()
        game = play_bot_game(config, strengths, seed=seed)
        durations.append(time.perf_counter() - start)
        moves += len(game.moves)
        # The engine alone: replaying the recorded moves, without the bots' thinking.
        start = time.perf_counter()
        state = new_game(config, seed=seed)
        for move in game.moves:
            state, _ = apply_move(state, move)
        replays.append(time.perf_counter() - start)
    total = sum(durations)
    return {
        "games_per_s": games / total,
        "median_ms": statistics.median(durations) * 1000,
        "worst_ms": max(durations) * 1000,
        "moves_per_game": moves / games,
        "engine_moves_per_s": moves / sum(replays),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per line")
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--mix", choices=sorted(STRENGTHS), default="mixed")
    args = parse_args(parser, quick={"games": 3, "seats": [2]})
    print(
        f"{'range':>5} {'tier':>4} {'seats':>5} {'games/s':>8} {'median':>8} {'worst':>8} "
        f"{'moves':>6} {'engine moves/s':>15}"
    )
    for max_number in (10, 20):
        for tier in (1, 2, 3):
            for seats in args.seats:
                r = bench(max_number, tier, seats, args.mix, args.games)
                print(
                    f"{max_number:>5} {tier:>4} {seats:>5} {r['games_per_s']:>8.1f} "
                    f"{r['median_ms']:>6.1f}ms {r['worst_ms']:>6.0f}ms {r['moves_per_game']:>6.0f} "
                    f"{r['engine_moves_per_s']:>15.0f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
