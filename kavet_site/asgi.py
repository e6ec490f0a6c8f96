"""ASGI entry point: the whole site, with the push streams (games/stream.py) as async bodies.

    gunicorn -c gunicorn.conf.py kavet_site.asgi        # uvicorn workers (see gunicorn.conf.py)
    uvicorn kavet_site.asgi:application --workers 2     # the same without gunicorn

Under ASGI each request runs its sync views in a thread of its own, so a persistent database
connection is never reused by the next request: run ASGI processes with CONN_MAX_AGE=0
(gunicorn.conf.py sets it) or a connection pool.

The push streams (/push/, games/urls.py) pass through kavet_site.admission first: only a few
of them per process are being authorized at once, so a flood of them leaves the pages and
/healthz their pooled database connections; and their sync part runs on a few shared threads
(kavet_site.admission.SharedThreads), not on an idle thread per open stream. Every other
request runs its sync code on a few shared threads too (KAVET_REQUEST_THREADS per process,
default 8), not on a thread made for it and ended after it.
"""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kavet_site.settings")
django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application()

from django.conf import settings  # noqa: E402 - configured by django.setup()

from kavet_site.admission import AdmissionGate, OneHopASGIHandler, SharedThreads  # noqa: E402

# Django's ASGI handler, its middleware and view in one hand-off to the request's thread.
django_application = OneHopASGIHandler()

application = AdmissionGate(
    # The streams' sync part on a few shared threads, not an idle thread per open stream; every
    # other request's on a few more, not a new thread each (KAVET_REQUEST_THREADS=0: Django's).
    SharedThreads(
        django_application,
        prefix="/push/",
        threads=4,
        others=int(os.environ.get("KAVET_REQUEST_THREADS", "8")),
    ),
    prefix="/push/",
    limit=settings.KAVET_STREAM_OPENINGS,
    queue=settings.KAVET_STREAM_OPENINGS_QUEUED,
    wait=settings.KAVET_STREAM_OPENING_WAIT,
)

if os.environ.get("KAVET_WARM_UP", "1") != "0":
    from kavet_site.warmup import warm_up

    warm_up()  # before gunicorn forks its workers (preload_app): see kavet_site/warmup.py
