"""The Celery app: configured from Django settings (CELERY_*), tasks autodiscovered per app."""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kavet_site.settings")

app = Celery("kavet_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="kavet_site.ping")
def ping(value: int = 1) -> dict:
    """A round trip for health checks and tests: proves a worker took the task and answered."""
    import socket

    return {"pong": value, "worker": socket.gethostname()}
