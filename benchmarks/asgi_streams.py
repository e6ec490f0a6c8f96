"""An experiment for bench_push.py --app (not the production entry point): kavet_site.asgi with
the push streams' sync part (permission check, one read) on a few shared threads.

Django's ASGI handler runs each request in a ThreadSensitiveContext of its own, and asgiref
gives each such context its own single-thread executor, kept until the request ends. A push
stream is a request that lasts minutes, so each open stream keeps an idle OS thread: 10,000
tablets are 10,000 threads (about 115 KiB of RSS each), and every later request pays for them
(each request starts a thread and a join thread, and Python's thread start walks the list of
live threads' locks). Here /push/ requests enter a context with one of a few shared executors
first (asgiref's ThreadSensitiveContext(executor=...)), so Django's own context is a no-op and
no thread is made per stream. Pages and moves keep Django's default.
"""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext

from kavet_site.asgi import application as site

# Each must run one call at a time on one thread (asgiref's rule for a given executor); a few,
# so that one stream's database read does not hold up the others.
STREAM_EXECUTORS = [
    ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"kavet-streams-{i}") for i in range(4)
]
_turn = itertools.cycle(STREAM_EXECUTORS)


async def application(scope, receive, send):
    if scope["type"] == "http" and scope.get("path", "").startswith("/push/"):
        async with ThreadSensitiveContext(executor=next(_turn)):
            return await site(scope, receive, send)
    return await site(scope, receive, send)
