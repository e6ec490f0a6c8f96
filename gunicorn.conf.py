"""gunicorn settings for production.

    gunicorn -c gunicorn.conf.py kavet_site.asgi   # ASGI (uvicorn workers): pages, moves and the
                                                    # push streams (server-sent events)
    gunicorn -c gunicorn.conf.py kavet_site.wsgi   # WSGI (threads): no streams, tablets poll

Under ASGI one worker holds thousands of open streams on its event loop (they wait on the push
hub, not on a thread or a database connection); sync views run in threads beside it.
"""

import multiprocessing
import os
import sys

ASGI = any("asgi" in arg for arg in sys.argv[1:]) or "asgi" in os.environ.get("GUNICORN_APP", "")

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
# Recycle workers now and then so a slow leak never grows without bound.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "20000"))
max_requests_jitter = 2000
accesslog = os.environ.get("GUNICORN_ACCESSLOG", None)
errorlog = "-"
preload_app = True

if ASGI:
    # Two event loops per core; each serves pages and moves and holds its share of the open
    # streams. Each request's sync code runs in a thread of its own (Django's per-request
    # ThreadSensitiveContext), but one process runs Python in one thread at a time (the GIL):
    # the event loop (streams, new requests) waited behind the request threads, and with one
    # process per core the boards a move makes every tablet fetch queued in it
    # (benchmarks/bench_push.py, 2,000 tablets, 2 cores: move p95 82-144 ms with 2 workers,
    # 56-75 ms with 4).
    workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2))
    worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "uvicorn_worker.UvicornWorker")
    keepalive = 10
    # A stream ends by itself within its lifetime (games/stream.py); on a restart the open ones
    # are cut after this and the browsers reconnect to another worker.
    graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "10"))
    # Each ASGI request runs its sync code in a thread of its own, so a persistent database
    # connection would never be reused, only left open: one connection per request instead.
    os.environ.setdefault("CONN_MAX_AGE", "0")
    # ... borrowed from psycopg's pool rather than opened for each request (settings: DB_POOL).
    os.environ.setdefault("DB_POOL", "1")
else:
    workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
    # Threaded workers keep each tablet's connection alive between its polls (every 2 s) without
    # tying up a whole process per idle connection, as sync workers do without a proxy in front.
    threads = int(os.environ.get("GUNICORN_THREADS", "4"))
    worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "gthread" if threads > 1 else "sync")
    keepalive = 10  # longer than the 2 s poll interval, so a tablet keeps its connection


def pre_fork(server, worker):
    """Move what the preloaded master built (modules, URLs, templates: kavet_site/warmup.py)
    out of the garbage collector's sight before each fork: a worker's collections then walk
    only its own objects (short pauses, and the shared pages are not touched, so not copied)."""
    import gc

    gc.freeze()


def post_fork(server, worker):
    """Collect the youngest objects less often than Python's default (700 allocations): a
    worker holding a thousand open streams makes many short-lived objects per event, and each
    collection stops its event loop."""
    import gc

    gc.set_threshold(
        *(int(v) for v in os.environ.get("KAVET_GC_THRESHOLD", "7000,20,20").split(","))
    )
