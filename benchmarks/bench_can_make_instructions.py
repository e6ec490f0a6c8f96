"""can_make's slowest cases counted in instructions, not timed: ratios to the yardstick that a
shared machine's noise does not move (issue 13).

    .venv/bin/python benchmarks/bench_can_make_instructions.py [--slowest 10] [--quick]

bench_solver.py times each case against a run of the yardstick just before it; on a shared
machine both still move by a quarter or more from one run to the next, and an A/B of two
versions of the engine 5% apart cannot be told from noise. This script picks the `--slowest`
cases of the slowest class and of the random mix (bench_solver's own cases) by that timing,
each case's fastest of 2 cold runs, then counts each one's instructions under valgrind's
callgrind in a fresh process (cold: a new process has no memo, no cache of any kind), and the
yardstick's the same way (a warm run: two runs counted, less one). The same code and inputs give
the same count to the million on any load. Needs valgrind (Debian: apt-get install valgrind);
each count takes some 10-20 s, two at a time on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.bench_solver import (  # noqa: E402
    _yardstick_run_ms,
    mixed_operator_cases,
    slowest_class_cases,
)
from benchmarks.quick import parse_args  # noqa: E402
from games.engine import RuleSet, can_make  # noqa: E402
from games.engine.solver import clear_caches  # noqa: E402

_COLLECTED = re.compile(r"Collected : (\d+)")


def _run_one(kind: str, case: str | None) -> None:
    """The counted process: nothing, the yardstick once or twice, or one case cold."""
    if kind.startswith("yardstick"):
        for _ in range(int(kind[-1])):
            _yardstick_run_ms()
    elif kind == "case" and case is not None:
        operands, target, operators, use_all = json.loads(case)
        can_make(operands, target, RuleSet(tier=3, operators=operators), use_all=use_all)


def _count(kind: str, case: Any = None) -> int:
    """Instructions of one fresh process of this script running `kind` under callgrind."""
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        __file__,
        "--run-one",
        kind,
    ]
    if case is not None:
        command.append(json.dumps(case))
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    found = _COLLECTED.search(done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no count for {kind}: {done.stderr[-500:]}")
    return int(found.group(1))


def _timed(cases: list[Any]) -> list[tuple[float, Any]]:
    """Each case's fastest of 2 cold runs over the yardstick run just before it, slowest first."""
    out = []
    for operands, target, rules, use_all in cases:
        best = float("inf")
        for _ in range(2):
            yard = _yardstick_run_ms()
            clear_caches()
            start = time.perf_counter()
            can_make(operands, target, rules, use_all=use_all)
            best = min(best, (time.perf_counter() - start) * 1000 / yard)
        out.append((best, (operands, target, rules.operators, use_all)))
    return sorted(out, key=lambda row: row[0], reverse=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slowest", type=int, default=10, help="cases counted per class")
    parser.add_argument("--cases", type=int, default=0, help="cases timed per class (0: all)")
    parser.add_argument("--run-one", nargs="+", help=argparse.SUPPRESS)
    args = parse_args(parser, quick={"slowest": 2, "cases": 20})
    if args.run_one:
        _run_one(args.run_one[0], args.run_one[1] if len(args.run_one) > 1 else None)
        return
    if shutil.which("valgrind") is None:
        sys.exit("bench_can_make_instructions.py needs valgrind (Debian: apt-get install valgrind)")
    classes = {
        "the slowest class": list(slowest_class_cases(args.cases or 200)),
        "the random mix": list(mixed_operator_cases(args.cases or 300)),
    }
    picked = {name: _timed(cases)[: args.slowest] for name, cases in classes.items()}
    jobs: dict[str, Any] = {"none": None, "yardstick1": None, "yardstick2": None}
    jobs.update(
        {f"{name} {i}": case for name, rows in picked.items() for i, (_r, case) in enumerate(rows)}
    )
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        futures = {
            job: pool.submit(_count, job if case is None else "case", case)
            for job, case in jobs.items()
        }
        counts = {job: future.result() for job, future in futures.items()}
    start = counts["none"]
    yard = counts["yardstick2"] - counts["yardstick1"]
    print(
        f"can_make, cold, in instructions: the yardstick (3 3 8 8 = 24, exhaustive) is "
        f"{yard / 1e6:.1f} M; each case's own process less an empty one ({start / 1e6:.0f} M)"
    )
    for name, rows in picked.items():
        ratios = []
        print(f"\n{name}: its {len(rows)} slowest by time, x the yardstick counted / timed")
        for i, (timed, case) in enumerate(rows):
            work = counts[f"{name} {i}"] - start
            ratios.append(work / yard)
            print(f"  {work / 1e6:8.0f} M  {work / yard:6.1f} / {timed:5.1f}  {case}")
        print(
            f"  counted: median {statistics.median(ratios):.1f}, max {max(ratios):.1f} "
            f"x the yardstick"
        )


if __name__ == "__main__":
    main()
