"""Foundation figures: /healthz under wrk against gunicorn + PostgreSQL, beside a bare Django view,
and the memory of one gunicorn worker at rest.

    python benchmarks/bench_healthz.py [--seconds 10] [--connections 32]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.quick import parse_args  # noqa: E402
from benchmarks.serve import bench_env, ensure_database, gunicorn, rss_mib, worker_pids  # noqa: E402


def wrk(url: str, seconds: int, connections: int) -> dict:
    out = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+\w+)", out).group(1)
    p50 = re.search(r"50%\s+([\d.]+\w+)", out).group(1)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    return {
        "rps": rps,
        "p50": p50,
        "p99": p99,
        "non2xx": int(non2xx.group(1)) if non2xx else 0,
        "socket_errors": errors.group(1) if errors else "none",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=4)
    args = parse_args(parser, quick={"seconds": 2, "connections": 8, "workers": 2, "threads": 2})
    env = bench_env()
    ensure_database(env)
    port = 8311
    with gunicorn(port, workers=args.workers, threads=args.threads, env=env) as master:
        for _ in range(20):  # warm every worker's connections
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz").read()
        time.sleep(2)
        rest = [rss_mib(pid) for pid in worker_pids(master)]
        base = f"http://127.0.0.1:{port}"
        bare = wrk(base + "/bench/bare", args.seconds, args.connections)
        health = wrk(base + "/healthz", args.seconds, args.connections)
    print(
        f"gunicorn {args.workers} workers x {args.threads} threads, PostgreSQL + Redis, wrk -t2 -c{args.connections} "
        f"-d{args.seconds}s on loopback (2-core machine; wrk shares the cores)"
    )
    print(f"worker RSS at rest: {', '.join(f'{m:.1f}' for m in rest)} MiB")
    print(f"{'view':<12}{'req/s':>10}{'p50':>10}{'p99':>10}{'non-2xx':>10}")
    for name, r in (("bare view", bare), ("/healthz", health)):
        print(
            f"{name:<12}{r['rps']:>10.0f}{r['p50']:>10}{r['p99']:>10}{r['non2xx']:>10}"
            f"   socket errors: {r['socket_errors']}"
        )
    print(
        f"/healthz runs at {health['rps'] / bare['rps']:.2f}× the bare view's rate "
        "(it does a SELECT 1, a Redis set/get/delete and a broker connection check)"
    )


if __name__ == "__main__":
    main()
