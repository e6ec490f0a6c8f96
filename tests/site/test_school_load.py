"""The school's load generator (benchmarks/school_load.py, issue 38) in a smoke run: a few tables
for a few seconds on the production ASGI command, PostgreSQL, Redis and a real Celery worker
(the computer players), every tablet signed in through the class code, name and pictures pages
and holding its stream, the teachers' live views and class boards open.

Not a speed: it checks the generator plays and measures what it says, so the sweep's figures
rest on a generator that works: moves were applied, each once (every applied answer is the
Move row of its seat, every child's Move row an answer), and every tablet shows the game's last
version, most of the other tablets' boards having come in the events (R5.1: every tablet of the
table hears the move)."""

from __future__ import annotations

import asyncio
import os

from tests.conftest import need_service


def test_a_small_school_plays_and_every_tablet_ends_on_the_last_version(
    transactional_db, celery_worker
):
    from django.db import connection

    need_service(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL) for the server")
    need_service(bool(os.environ.get("REDIS_URL")), "Redis (REDIS_URL) for the push channel")
    from benchmarks.loadgen import seed as seeding
    from benchmarks.loadgen.measure import Meter
    from benchmarks.school_load import run_school, web_server
    from benchmarks.serve import bench_env, free_port
    from kavet_site.celery import app
    from tests import workers

    # 14 children at 4 tables (the last two with computer players), two classes.
    seeded = seeding.seed(
        tablets=14, tables_per_class=2, classes_per_school=2, bot_share=0.0, log=lambda s: None
    )
    assert [len(t["seats"]) for t in seeded["tables"]] == [4, 4, 4, 2]
    seeding.sessions(seeded, [])
    database = workers.database_url(connection.settings_dict)
    env = bench_env(
        DATABASE_URL=database,
        REDIS_URL=os.environ["REDIS_URL"],
        CELERY_QUEUE=app.conf.task_default_queue,
        CONN_MAX_AGE="0",
    )
    port = free_port()
    lines: list[str] = []
    with web_server(port, 1, env) as web:
        meter = Meter(
            database_url=database, redis_url=os.environ["REDIS_URL"], web=web.pid, worker=None
        )
        try:
            out = asyncio.run(
                run_school(
                    seeded,
                    port=port,
                    rates=[5],
                    seconds=5,
                    signin=14,
                    live_share=1.0,
                    board_share=1.0,
                    drops=0.4,
                    pool=16,
                    meter=meter,
                    log=lines.append,
                )
            )
        finally:
            meter.close()
    started, (w,) = out["started"], out["windows"]
    assert started["n_failures"] == 0, started["failures"]
    # A stream per tablet, and the live view and the class board of each of the two classes.
    assert out["streams"] == 14 + 4, lines
    assert w["human_rows"] >= 8, lines  # ~25 moves asked for; some wait on a computer's turn
    assert w["unmatched_answers"] == 0 and w["unanswered_rows"] == 0, lines
    assert w["checked_tablets"] >= 10 and w["behind"] == [], lines
    # The other tablets saw the moves, most of them as the board in the event (no fetch).
    assert len(w["boards"]) >= 2 * w["human_rows"], lines
    assert w["board_how"].get("push", 0) > w["board_how"].get("fetch", 0), lines
    assert w["teacher"], lines  # the class game's stream told the teachers' pages
    assert len(w["bare"]) >= 20 and len(w["answers"]) >= w["human_rows"]
    # What a window cost was read: the web process's CPU, PostgreSQL's and Redis's counters.
    spent = w["spent"]
    assert spent["cpu"]["web"] > 0 and spent["pg"]["xacts"] > 0 and spent["redis"]["out"] > 0
    assert "| 18 | 5 |" in lines[1]  # the table's row
