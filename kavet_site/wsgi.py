"""WSGI entry point (gunicorn kavet_site.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kavet_site.settings")
application = get_wsgi_application()

if os.environ.get("KAVET_WARM_UP", "1") != "0":
    from kavet_site.warmup import warm_up

    warm_up()  # before gunicorn forks its workers (preload_app): see kavet_site/warmup.py
