"""The caps on open push streams, counted in this process and in Redis for every process."""

from __future__ import annotations

import os
import time
import uuid

import pytest

from games import push, streamcap
from tests.conftest import need_service


@pytest.fixture
def replaced(monkeypatch):
    """The ids streamcap asks to close, wherever they are open."""
    got: list[str] = []
    monkeypatch.setattr(push, "streams_replaced", lambda ids: got.extend(ids))
    return got


@pytest.fixture
def fresh(monkeypatch, settings):
    """A session and an address of their own, and this process's counts from zero."""
    monkeypatch.setattr(streamcap, "_local", streamcap._Local())
    settings.KAVET_STREAMS_PER_SESSION = 3
    settings.KAVET_STREAMS_PER_ADDRESS = 100
    return {"session_key": uuid.uuid4().hex, "address": f"192.0.2.{uuid.uuid4().int % 250}"}


def admit(fresh, stream_id: str, max_age: float = 60.0) -> streamcap.Ticket:
    return streamcap.admit(stream_id, max_age=max_age, **fresh)


@pytest.fixture
def redis_url(settings):
    url = os.environ.get("REDIS_URL", "")
    need_service(bool(url), "Redis (REDIS_URL): the stream caps shared by the web processes")
    settings.REDIS_URL = url
    streamcap._shared._down_until = 0.0
    return url


def test_past_the_session_cap_the_oldest_stream_is_closed(fresh, replaced, settings):
    settings.REDIS_URL = ""
    tickets = [admit(fresh, f"s{i}") for i in range(3)]
    assert replaced == []
    admit(fresh, "s3")
    assert replaced == ["s0"]
    streamcap.release(tickets[1])  # a tab closed: it no longer counts
    admit(fresh, "s4")
    assert replaced == ["s0"]
    admit(fresh, "s5")
    assert replaced == ["s0", "s2"]


def test_every_process_counts_in_redis(fresh, replaced, redis_url, monkeypatch):
    """Streams spread over processes meet one cap: a second process's counts start at zero,
    its Redis counts do not."""
    for i in range(3):
        admit(fresh, f"p1-{i}")
    monkeypatch.setattr(streamcap, "_local", streamcap._Local())  # another web process
    admit(fresh, "p2-0")
    assert replaced == ["p1-0"]


def test_a_released_stream_stops_counting_in_redis(fresh, replaced, redis_url, monkeypatch):
    tickets = [admit(fresh, f"r{i}") for i in range(3)]
    for ticket in tickets[:2]:
        streamcap.release(ticket)
    key = tickets[0].keys[0]
    deadline = time.monotonic() + 5
    while streamcap._shared.count(key) != 1 and time.monotonic() < deadline:
        time.sleep(0.02)  # released by a thread, so that a stream's end never waits on Redis
    assert streamcap._shared.count(key) == 1
    monkeypatch.setattr(streamcap, "_local", streamcap._Local())
    admit(fresh, "r3")
    admit(fresh, "r4")
    assert replaced == []


def test_streams_left_by_a_dead_process_stop_counting(fresh, replaced, redis_url, settings):
    """A process that died released nothing; its members are older than any stream lives."""
    keys = streamcap._keys(fresh["session_key"], fresh["address"])
    long_ago = time.time() - 3600
    for i in range(3):
        streamcap._shared.admit(f"dead-{i}", keys, long_ago + i, max_age=60)
    admit(fresh, "alive-0")
    admit(fresh, "alive-1")
    assert replaced == []  # nothing to close: they were simply dropped
    assert streamcap._shared.count(keys[0][0]) == 2


def test_without_redis_the_caps_hold_in_each_process(fresh, replaced, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    settings.REDIS_SOCKET_TIMEOUT = 0.2
    streamcap._shared._down_until = 0.0
    started = time.monotonic()
    for i in range(5):
        admit(fresh, f"d{i}")
    assert replaced == ["d0", "d1"]
    assert time.monotonic() - started < 2  # one failed try, then Redis is left alone a while
    assert streamcap._shared._down_until > time.monotonic()
    streamcap._shared._down_until = 0.0


def test_the_address_cap_counts_every_session_of_the_address(fresh, replaced, settings):
    settings.REDIS_URL = ""
    settings.KAVET_STREAMS_PER_ADDRESS = 2
    address = fresh["address"]
    for i in range(3):
        streamcap.admit(f"tablet{i}", session_key=f"session-{i}", address=address, max_age=60)
    assert replaced == ["tablet0"]
    streamcap.admit("far", session_key="session-far", address="198.51.100.1", max_age=60)
    assert replaced == ["tablet0"]
