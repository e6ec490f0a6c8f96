"""The Celery app: configured from Django settings (CELERY_*), tasks autodiscovered per app.

Also two pieces of resilience:

- `enqueue()` (kavet_site.queue, re-exported here): publish a task, and when the broker is
  unreachable log it and carry on — the state that needs the job is in the database and a beat
  sweep finds it again (games.tasks.sweep_due_games, reports.tasks.sweep_report_jobs).
- A work-around for celery 5.7.0 + kombu 5.7.0 (see `_patch_kombu_redis_detached_transport`):
  without it a worker holding a delayed (ETA/countdown) or unacknowledged task dies for good
  when Redis drops.
- A worker back within half a second of the broker's return, that then sweeps at once (`Consumer`,
  `BrokerConnected`): games resume within 2 s of Redis coming back, not 8-15 s.
"""

from __future__ import annotations

import functools
import logging
import os

from celery import Celery, bootsteps
from celery.worker.consumer import Consumer as CeleryConsumer

from kavet_site.queue import PUBLISH_ERRORS, enqueue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kavet_site.settings")

__all__ = ("PUBLISH_ERRORS", "app", "enqueue", "ping")

log = logging.getLogger("kavet_site.celery")

app = Celery("kavet_site")
# The apps find it as celery.current_app from any thread (they never import this module).
app.set_default()
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _patch_kombu_redis_detached_transport() -> None:
    """Turn kombu's AttributeError on a detached Redis transport into a connection error.

    The cause (celery 5.7.0, kombu 5.7.0): when the broker connection drops,
    `Consumer.on_connection_error_after_connected` first calls `connection.collect()`, which
    detaches the transport (`transport.client = None`), and then `connection.close()`. Closing
    the default channel restores the worker's unacknowledged messages — every task it holds for
    an ETA/countdown, and with acks_late every running one — and `restore_unacked` asks for a
    new Redis client, whose `_connparams` reads `self.connection.client.hostname` on the
    detached transport: AttributeError("'NoneType' object has no attribute 'hostname'"). That
    is not one of the connection errors `ignore_errors` swallows, so it escapes as
    "Unrecoverable error" and the worker exits. With no message held the channel has nothing
    to restore, which is why only workers holding a delayed task died.

    Raising redis' ConnectionError there instead lets `ignore_errors` swallow it, the consumer
    reconnects as it does for any broker loss, and the unacknowledged messages — still in
    Redis' unacked index — are handed out again after the visibility timeout
    (CELERY_VISIBILITY_TIMEOUT) by kombu's restore_visible. Idempotent tasks make that safe.
    """
    try:
        from kombu.transport import redis as kombu_redis
        from redis.exceptions import ConnectionError as RedisConnectionError
    except ImportError:  # no redis transport installed: nothing to patch
        return
    original = kombu_redis.Channel._connparams
    if getattr(original, "_kavet_patched", False):
        return

    def _connparams(self, asynchronous=False):
        transport = self.connection
        if transport is None or getattr(transport, "client", None) is None:
            raise RedisConnectionError("the broker connection is closed (transport detached)")
        return original(self, asynchronous=asynchronous)

    _connparams._kavet_patched = True
    kombu_redis.Channel._connparams = _connparams


_patch_kombu_redis_detached_transport()

# A worker's tries to reach the broker again after losing it: after 0.25 s, then every 0.5 s
# (so it is back within half a second of Redis, leaving the rest of the 2 s for the sweep).
BROKER_RETRY = {"interval_start": 0.25, "interval_step": 0.25, "interval_max": 0.5}


class Consumer(CeleryConsumer):
    """Celery's consumer, trying the broker again twice a second rather than ever more slowly
    (settings: CELERY_WORKER_CONSUMER).

    Why: celery 5.7's consumer reconnects through kombu's `ensure_connection` with kombu's
    defaults — the first try again after 2 s, then 4, 6, 8... (up to 30 s) between tries — and
    no setting reaches them (the broker transport's interval_* options are read for publishing
    only). After Redis had been down 20 s the next try fell 8-10 s after it was back, and a
    game's computer player waited that long. A failed try against a refusing Redis costs a
    refused TCP connection (and one log line), so trying twice a second is cheap; against one
    that hangs, the transport's socket_connect_timeout bounds each try.
    """

    def ensure_connected(self, conn):
        conn.ensure_connection = functools.partial(conn.ensure_connection, **BROKER_RETRY)
        return super().ensure_connected(conn)


class BrokerConnected(bootsteps.StartStopStep):
    """Each time a worker (re)connects to the broker, queue the sweeps in KAVET_SWEEPS_ON_CONNECT.

    Why: what fell due while the broker was down (a computer player's move whose task could not
    be queued, an expired time limit) waits for the next beat period otherwise, and beat's own
    publish after an outage may come later still. The sweeps read everything from the
    database and are idempotent, so one per worker per reconnection costs a query each.
    Consumer bootsteps start again after every reconnection (celery's consumer restarts its
    blueprint), after the task consumer is set up and before the event loop runs.
    """

    requires = ("celery.worker.consumer.tasks:Tasks",)

    def start(self, c) -> None:
        from django.conf import settings

        for name in getattr(settings, "KAVET_SWEEPS_ON_CONNECT", ()):
            try:
                c.app.send_task(name)
            except PUBLISH_ERRORS as exc:  # lost again at once: the next reconnection tries
                log.warning("could not queue %s on reconnection (%s)", name, exc)


app.steps["consumer"].add(BrokerConnected)


@app.task(name="kavet_site.ping")
def ping(value: int = 1) -> dict:
    """A round trip for health checks and tests: proves a worker took the task and answered."""
    import socket

    return {"pong": value, "worker": socket.gethostname()}
