"""can_make's common case beside commit 5bcc4f6's, in one run (issue 27): the 24 game and
random tables of 3-8 cards at every tier.

    .venv/bin/python benchmarks/bench_common_case.py [--rounds 3] [--repeats 3] [--tables 200]
    .venv/bin/python benchmarks/bench_common_case.py --also c678d62   # another commit beside

5bcc4f6 (2026-11-29) is the engine before the tier-3 work of issue 13 bounded can_make's
worst 8-card case; its games/engine/ (and --also's) is taken out of git (`git archive`)
into a temporary directory. Each round runs a fresh process of this script per engine, in
turn (the order reversed every other round), and each runs every section --repeats times
cold (clear_caches), with the yardstick just before each run (bench_solver's: the
exhaustive baseline solving 3 3 8 8 = 24, the fastest of 3 runs). Within a run the memo is
warm from one call to the next, as in a server process. The 24 game is all 1,820 hands
with use_all; a table section is --tables tables of n cards dealt from the standard deck's
number and X cards (R1.1), a target 0-20 (a card's value), use_all every other table, the
tier's own operators at tiers 1-2 and at tier 3 one of the sets a teacher may choose, per
table (R2.5). A run stops at --budget seconds (5bcc4f6 takes minutes on 7 tier-3 cards):
its figure is then a lower bound (">"). Printed per section and engine: the fastest run in
ms, the lowest ratio of a run to its yardstick, the least CPU time of a run (the process's
own: on a loaded machine it moves less than the wall clock), now / 5bcc4f6 of the three,
the slowest call, and how many answers differ (the calls both made). Figures:
benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import subprocess
import sys
import tempfile
import time
from itertools import combinations_with_replacement
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BASE = "5bcc4f6"
TIER3_OPERATORS = ["+-*/^", "+-*/", "+-/", "+/", "+*/", "+/^", "+-/^", "+*/^", "+-*^", "+-"]


class _Over(Exception):
    pass


def _sections(tables: int) -> list[tuple[str, list[tuple[list[Any], int, Any, bool]]]]:
    """(name, [(cards, target, rules, use_all)]) for every section, the same in both engines."""
    from games.engine import RuleSet

    rules_24 = RuleSet(max_number=20, tier=3, operators="+-*/")
    hands = combinations_with_replacement(range(1, 14), 4)
    out = [("24 game, 1,820 hands", [(list(h), 24, rules_24, True) for h in hands])]
    deck: list[Any] = [v for v in range(21) for _ in range(2)] + ["X"] * 4  # R1.1, no events
    for tier in (1, 2, 3):
        for n in range(3, 9):
            rng = random.Random(27_000 + 10 * tier + n)
            cases = []
            for i in range(tables):
                ops = rng.choice(TIER3_OPERATORS) if tier == 3 else None
                rules = RuleSet(tier=tier, operators=ops)
                cases.append((rng.sample(deck, n), rng.randint(0, 20), rules, i % 2 == 1))
            out.append((f"tier {tier}, {n} cards", cases))
    return out


def _worker(engine: str, tables: int, budget: float, repeats: int) -> None:
    """One engine in this process: each section's time, yardstick and answers, as JSON."""
    sys.path[:0] = [engine, str(ROOT)]  # the engine's `games` package first
    from games.engine import can_make  # isort: skip (before bench_solver, which puts ROOT first)
    from games.engine.solver import clear_caches  # isort: skip

    from benchmarks.bench_solver import _yardstick_run_ms

    def stop(*_: Any) -> None:
        raise _Over

    signal.signal(signal.SIGALRM, stop)
    import games.engine

    assert Path(games.engine.__file__).resolve().is_relative_to(Path(engine).resolve())
    results = []
    for name, cases in _sections(tables):
        runs = []  # (ms, yardstick ms, slowest call ms, complete, CPU ms) of each cold run
        for _ in range(repeats):
            yard = min(_yardstick_run_ms() for _ in range(3))
            clear_caches()
            answers = ""
            worst = 0.0
            start, cpu = time.perf_counter(), time.process_time()
            complete = True
            for cards, target, rules, use_all in cases:
                left = budget - (time.perf_counter() - start)
                if left <= 0:
                    complete = False
                    break
                signal.setitimer(signal.ITIMER_REAL, left)
                began = time.perf_counter()
                try:
                    answers += "1" if can_make(cards, target, rules, use_all=use_all) else "0"
                except _Over:
                    complete = False
                    break
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                worst = max(worst, time.perf_counter() - began)
            ms, cpu = (time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000
            runs.append((ms, yard, worst * 1000, complete, cpu))
            if not complete:
                break  # past the budget once: the figure is a lower bound already
        results.append(
            {
                "name": name,
                "runs": runs,
                "complete": complete,
                "answers": answers,
                "n": len(cases),
            }
        )
    print(json.dumps(results))


def _extract(rev: str, into: Path) -> Path:
    """The commit's games/engine/ under `into`, importable as the package games.engine."""
    into.mkdir()
    known = ["git", "-C", str(ROOT), "cat-file", "-e", f"{rev}^{{commit}}"]
    if subprocess.run(known, capture_output=True).returncode:
        sys.exit(f"bench_common_case.py needs the git history: commit {rev} is not in {ROOT}")
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "games/engine"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    (into / "games" / "__init__.py").touch()
    return into


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from benchmarks.quick import parse_args

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="runs of each engine, alternated")
    parser.add_argument("--tables", type=int, default=200, help="tables per section")
    parser.add_argument("--repeats", type=int, default=3, help="cold runs a section, a process")
    parser.add_argument("--budget", type=float, default=10.0, help="seconds at most a section")
    parser.add_argument("--also", nargs="*", default=[], help="other commits to run beside")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parse_args(parser, quick={"rounds": 1, "repeats": 1, "tables": 20, "budget": 2.0})
    if args.worker:
        _worker(args.worker, args.tables, args.budget, args.repeats)
        return
    labels = [BASE, *args.also, "now"]
    with tempfile.TemporaryDirectory() as tmp:
        engines = {rev: str(_extract(rev, Path(tmp) / rev)) for rev in labels[:-1]}
        engines["now"] = str(ROOT)
        runs: dict[str, list[list[dict[str, Any]]]] = {label: [] for label in labels}
        for r in range(args.rounds):
            for label in labels if r % 2 == 0 else labels[::-1]:
                command = [sys.executable, __file__, "--worker", engines[label]]
                command += ["--tables", str(args.tables), "--budget", str(args.budget)]
                command += ["--repeats", str(args.repeats)]
                done = subprocess.run(command, capture_output=True, text=True, check=True)
                runs[label].append(json.loads(done.stdout))
    print(
        f"can_make beside {BASE}: {args.rounds} rounds of a fresh process per engine, in turn, "
        f"{args.repeats} cold runs of each section a process; each engine's fastest run in ms, "
        f"its lowest ms / the yardstick run just before it, its least CPU time (ms), now / "
        f"{BASE} of the three, and each engine's slowest call over its runs (ms)"
    )
    head = "".join(f" {label[:9] + ' ms':>12} {'x yard':>7} {'CPU ms':>8}" for label in labels)
    print(f"{'':<21} {'n':>5}{head} {'now/' + BASE:>15}  slowest call{'':>11}answers differ")
    yards = [r[1] for label in runs for run in runs[label] for row in run for r in row["runs"]]
    for i, section in enumerate(runs["now"][0]):
        line = f"{section['name']:<21} {section['n']:>5}"
        best: dict[str, tuple[float, float]] = {}
        complete: dict[str, bool] = {}
        for label in labels:
            timed = [t for run in runs[label] for t in run[i]["runs"]]
            fastest = min(timed)
            best[label] = (fastest[0], min(r[0] / r[1] for r in timed), min(r[4] for r in timed))
            # a run past the budget is a lower bound: so is the figure when it is the fastest
            complete[label] = fastest[3] and all(
                r[3] for r in timed if r[0] / r[1] <= best[label][1]
            )
            mark = "" if complete[label] else ">"
            line += f" {mark + format(best[label][0], '.1f'):>12} "
            line += f"{mark + format(best[label][1], '.1f'):>7} "
            line += f"{mark + format(best[label][2], '.1f'):>8}"
        old, new = runs[BASE][0][i], runs["now"][0][i]
        bound = "" if complete[BASE] else "<"
        ratios = "/".join(f"{best['now'][j] / best[BASE][j]:.2f}" for j in range(3))
        line += f" {bound + ratios:>15}  "
        slowest = [max(r[2] for run in runs[label] for r in run[i]["runs"]) for label in labels]
        line += " / ".join(f"{ms:.1f}" for ms in slowest)
        shared = min(len(old["answers"]), len(new["answers"]))
        pairs = zip(old["answers"][:shared], new["answers"][:shared], strict=True)
        line += f"  {sum(a != b for a, b in pairs)} of {shared}"
        if not complete[BASE]:
            line += f" ({BASE}: {len(old['answers'])} in the budget)"
        print(line)
    print(
        f"yardstick (3 3 8 8 = 24, exhaustive): {min(yards):.2f}-{max(yards):.2f} ms over the run"
    )


if __name__ == "__main__":
    main()
