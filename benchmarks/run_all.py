"""Run every benchmark in benchmarks/ (each bench_*.py) once, in its quick mode by default.

    .venv/bin/python benchmarks/run_all.py            # --quick runs: does every script still work?
    .venv/bin/python benchmarks/run_all.py --full     # the real figures (many minutes)
    .venv/bin/python benchmarks/run_all.py solver games   # only these

A script that needs a service or tool this machine does not offer (PostgreSQL, Redis, wrk,
valgrind) is not run: run_all says which and goes on. It exits non-zero when a script that
ran failed or timed out.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from benchmarks.local import answers  # noqa: E402

LOCAL_POSTGRES = "postgres://postgres@127.0.0.1:5432/kavet_bench"
LOCAL_REDIS = "redis://127.0.0.1:6379/3"

# What each script needs beyond Python; a script not listed needs nothing.
NEEDS = {
    "bench_healthz.py": ["postgres", "redis", "wrk"],
    "bench_table_load.py": ["postgres", "redis"],
    "bench_move_cpu.py": ["postgres", "redis"],
    "bench_board_render.py": ["postgres", "redis"],  # and the git history (3f20347's templates)
    "bench_push.py": ["postgres", "redis"],
    "bench_reports.py": ["postgres"],
    "bench_live_view.py": [],  # PostgreSQL when there is one (its target), else SQLite
    "bench_backup.py": [],  # PostgreSQL when it answers, and SQLite
    "bench_can_make_instructions.py": ["valgrind"],
}


def services(env: dict[str, str]) -> dict[str, str | None]:
    """Each service: None when available (env updated to point at it), else why not."""
    found: dict[str, str | None] = {}
    database = env.get("DATABASE_URL") or LOCAL_POSTGRES
    if not database.startswith("postgres"):
        found["postgres"] = f"DATABASE_URL is not PostgreSQL ({urlparse(database).scheme})"
    elif answers(database, 5432):
        env["DATABASE_URL"] = database
        found["postgres"] = None
    else:
        found["postgres"] = f"no PostgreSQL at {urlparse(database).netloc} (set DATABASE_URL)"
    redis = env.get("REDIS_URL") or LOCAL_REDIS
    if answers(redis, 6379):
        env["REDIS_URL"] = redis
        found["redis"] = None
    else:
        found["redis"] = f"no Redis at {urlparse(redis).netloc} (set REDIS_URL)"
    found["wrk"] = None if shutil.which("wrk") else "wrk is not installed (apt-get install wrk)"
    found["valgrind"] = (
        None if shutil.which("valgrind") else "valgrind is not installed (apt-get install valgrind)"
    )
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("only", nargs="*", help="names to run (solver, games, ...); all by default")
    parser.add_argument(
        "--full", action="store_true", help="the scripts' own defaults, not --quick"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds per script (default 600 quick, 3600 full)",
    )
    args = parser.parse_args()
    timeout = args.timeout or (3600 if args.full else 600)

    scripts = sorted(HERE.glob("bench_*.py"))
    if args.only:
        wanted = {n.removeprefix("bench_").removesuffix(".py") for n in args.only}
        unknown = wanted - {s.stem.removeprefix("bench_") for s in scripts}
        if unknown:
            parser.error(f"no such benchmark: {', '.join(sorted(unknown))}")
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in wanted]

    env = dict(os.environ)
    available = services(env)
    results: list[tuple[str, str, float]] = []
    for script in scripts:
        missing = [available[n] for n in NEEDS.get(script.name, []) if available[n]]
        if missing:
            print(f"\n== {script.name}: not run, it needs " + "; ".join(missing), flush=True)
            results.append((script.name, "not run: " + "; ".join(missing), 0.0))
            continue
        cmd = [sys.executable, str(script)] + ([] if args.full else ["--quick"])
        print(f"\n== {script.name}: {' '.join(cmd[1:])}", flush=True)
        started = time.monotonic()
        try:
            code = subprocess.run(cmd, cwd=ROOT, env=env, timeout=timeout).returncode
            outcome = "ok" if code == 0 else f"FAILED (exit {code})"
        except subprocess.TimeoutExpired:
            outcome = f"FAILED (still running after {timeout:.0f} s)"
        results.append((script.name, outcome, time.monotonic() - started))

    print(f"\n== benchmarks ({'full' if args.full else 'quick'} runs)")
    for name, outcome, seconds in results:
        print(f"  {name:<24} {outcome}" + (f"  ({seconds:.0f} s)" if seconds else ""))
    failed = [name for name, outcome, _ in results if outcome.startswith("FAILED")]
    if failed:
        print(f"{len(failed)} benchmark(s) failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
