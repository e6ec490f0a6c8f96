"""ASGI entry point: the whole site, with the push streams (games/stream.py) as async bodies.

    gunicorn -c gunicorn.conf.py kavet_site.asgi        # uvicorn workers (see gunicorn.conf.py)
    uvicorn kavet_site.asgi:application --workers 2     # the same without gunicorn

Under ASGI each request runs its sync views in a thread of its own, so a persistent database
connection is never reused by the next request: run ASGI processes with CONN_MAX_AGE=0
(gunicorn.conf.py sets it) or a connection pool.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kavet_site.settings")
application = get_asgi_application()

if os.environ.get("KAVET_WARM_UP", "1") != "0":
    from kavet_site.warmup import warm_up

    warm_up()  # before gunicorn forks its workers (preload_app): see kavet_site/warmup.py
