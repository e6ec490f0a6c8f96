"""The `--quick` convention of the benchmarks: a short run that checks a script still works.

Each bench_*.py names the smaller settings of its quick run; an option given explicitly on the
command line still wins. benchmarks/run_all.py runs every script with --quick.
"""

from __future__ import annotations

import argparse


def parse_args(parser: argparse.ArgumentParser, quick: dict) -> argparse.Namespace:
    shown = ", ".join(f"--{k.replace('_', '-')} {v}" for k, v in quick.items())
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"a short run to check the script works ({shown}); not for figures",
    )
    args = parser.parse_args()
    if args.quick:
        parser.set_defaults(**quick)
        args = parser.parse_args()
    return args
