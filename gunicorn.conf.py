"""gunicorn settings for production: `gunicorn -c gunicorn.conf.py kavet_site.wsgi`."""
import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
# Threaded workers keep each tablet's connection alive between its polls (every 2 s) without
# tying up a whole process per idle connection, as sync workers do without a proxy in front.
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
worker_class = "gthread" if threads > 1 else "sync"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
keepalive = 10  # longer than the 2 s poll interval, so a tablet keeps its connection
# Recycle workers now and then so a slow leak never grows without bound.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "20000"))
max_requests_jitter = 2000
accesslog = os.environ.get("GUNICORN_ACCESSLOG", None)
errorlog = "-"
preload_app = True
