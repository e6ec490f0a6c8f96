"""How long a child who answers at once waits over 10 of their turns, in a practice game against
the two easy computers the home page offers (issue 40: 303-364 s measured by hand before).

Simulated seconds, not a speed: every game is driven through games.services on a held clock
(tests/flow_clock.py), the child answering every question the moment it is asked (OK to every
check window, the operation the solver finds, else "nothing to do"); time passes only while the
child has nothing to do. Two ways the due moves are played:

- workers: each due move is applied the moment it falls due (a worker's countdown task);
- tablet: the embedded default (tasks in-process, no worker, no beat): only the child's tablet
  plays them, through its polls, as static/js/table.js sends them with its push stream up
  (every 10 s, or at the moment its board names in data-due, when the board names one).

Fixed seeds (seed s, s+1... for the games of one run; runs start at 0, 1000, 2000...). Also
counted: check windows opened, windows run out, and windows run out with only computers left
to answer (R5.1). No database server is needed: a fresh SQLite file in a temporary folder.

    .venv/bin/python benchmarks/bench_flow_waiting.py            # 30 runs per mode
    .venv/bin/python benchmarks/bench_flow_waiting.py --quick    # 3 runs per mode
    .venv/bin/python benchmarks/bench_flow_waiting.py --tutorial # "Learn to play", as the
                                                      # coach asks, done at once (deterministic)

Run it on an older tree (git archive of a commit, with this script and tests/flow_clock.py
copied in) for the before figures: a practice_create without a seed argument is given its seed
through the random generator it draws from.
"""

from __future__ import annotations

import argparse
import inspect
import os
import statistics
import sys
import tempfile
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.quick import parse_args  # noqa: E402


def _setup(folder: str) -> None:
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    os.environ["SQLITE_PATH"] = os.path.join(folder, "bench.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kavet_site.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _practice(student, seed: int):
    """The practice game the home page starts (two easy computers), with a fixed seed."""
    from games import services

    if "seed" in inspect.signature(services.practice_create).parameters:
        game, _deal = services.practice_create(student=student, bots=2, strength="easy", seed=seed)
    else:  # an older tree: its seed comes from random.SystemRandom().randrange

        class Fixed:
            def randrange(self, *_args):
                return seed

        with mock.patch("games.services.setup.random.SystemRandom", Fixed):
            game, _deal = services.practice_create(student=student, bots=2, strength="easy")
    return services.game_start(game=game)


def _run(run: int, mode: str):
    from django.test import Client

    from tests import factories
    from tests.flow_clock import held_clock, practice_waiting

    school = factories.school(slug=f"bench-{mode}-{run}")
    classroom = factories.classroom(school=school)
    child = factories.student(classroom=classroom, name="Anna")
    seeds = iter(range(1000 * run, 1000 * run + 100))
    tablet = None
    if mode == "tablet":
        tablet = Client()
        tablet.force_login(child.user)
    with held_clock() as clock:
        return practice_waiting(lambda: _practice(child, next(seeds)), clock, tablet=tablet)


def _tutorial(mode: str):
    from django.test import Client

    from tests import factories
    from tests.flow_clock import held_clock, tutorial_waiting

    school = factories.school(slug=f"bench-tutorial-{mode}")
    child = factories.student(classroom=factories.classroom(school=school), name="Anna")
    tablet = None
    if mode == "tablet":
        tablet = Client()
        tablet.force_login(child.user)
    with held_clock() as clock:
        return tutorial_waiting(child, clock, tablet=tablet)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="runs of 10 turns per mode")
    parser.add_argument("--mode", choices=["workers", "tablet", "both"], default="both")
    parser.add_argument(
        "--tutorial", action="store_true", help='"Learn to play" instead (one lesson per mode)'
    )
    args = parse_args(parser, {"runs": 3})
    with tempfile.TemporaryDirectory() as folder:
        _setup(folder)
        modes = ["workers", "tablet"] if args.mode == "both" else [args.mode]
        if not args.tutorial:
            print(f"{args.runs} runs of 10 child turns per mode (simulated seconds)")
            print(
                f"{'mode':8} {'median':>7} {'p90':>6} {'max':>6} {'min':>6} "
                f"{'longest wait':>13} {'windows':>8} {'ran out':>8} {'on computers':>13}"
            )
        for mode in modes:
            if args.tutorial:
                lesson = _tutorial(mode)
                print(
                    f"Learn to play, {mode}: {lesson.waited:.1f} s waited over "
                    f"{len(lesson.waits)} waits (longest {max(lesson.waits):.1f} s), "
                    f"{lesson.windows_run_out} of {lesson.windows} windows ran out"
                )
                continue
            results = [_run(run, mode) for run in range(args.runs)]
            totals = sorted(r.waited for r in results)
            p90 = totals[min(len(totals) - 1, int(0.9 * len(totals)))]
            print(
                f"{mode:8} {statistics.median(totals):7.1f} {p90:6.1f} {totals[-1]:6.1f} "
                f"{totals[0]:6.1f} {max(max(r.waits) for r in results):13.1f} "
                f"{sum(r.windows for r in results):8d} "
                f"{sum(r.windows_run_out for r in results):8d} "
                f"{sum(r.windows_run_out_on_computers for r in results):13d}"
            )


if __name__ == "__main__":
    main()
