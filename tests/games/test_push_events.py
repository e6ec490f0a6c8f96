"""Every event a page can receive on its push stream: one typed kind each (games.push_events),
its schema, and the pages listening for exactly those names."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from games import push, push_events
from games.push_events import Bye, GroupAt, Heartbeat, Hello, TableAt

JS = Path(__file__).resolve().parents[2] / "static" / "js"

# name, id line, data keys with their types: what static/js/live.js and table.js read.
SCHEMAS = {
    Hello: ("hello", False, {}),
    Heartbeat: ("hb", False, {}),
    TableAt: ("table", True, {"version": int}),
    GroupAt: ("table", True, {"version": int, "game": int, "game_version": int}),
    Bye: ("bye", False, {"reason": str}),
}
SAMPLES = [
    Hello(retry_ms=2000),
    Hello(retry_ms=2000, watched=True),
    Heartbeat(),
    TableAt(version=7),
    TableAt(version=8, board='<div id="board" data-version="8"></div>'),
    GroupAt(version=31, game=4, game_version=9),
    Bye(),
]


def _parse(raw: bytes) -> dict[str, str]:
    text = raw.decode()
    assert text.endswith("\n\n") and text.count("\n\n") == 1, "one event, one blank line"
    fields = {}
    for line in text.strip("\n").split("\n"):
        key, _, value = line.partition(": ")
        assert key not in fields, f"{key} twice"
        fields[key] = value
    return fields


def test_every_kind_is_listed_and_has_a_schema():
    assert set(push_events.STREAM_EVENTS) == set(SCHEMAS)
    assert {type(s) for s in SAMPLES} == set(SCHEMAS)


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: f"{type(e).__name__}")
def test_each_event_on_the_wire_matches_its_schema(event):
    name, has_id, keys = SCHEMAS[type(event)]
    fields = _parse(event.encode())
    assert fields["event"] == name == event.name
    data = json.loads(fields["data"])
    optional = {
        TableAt: {"board": str},  # a move made from a tablet: the seat's new board
        Hello: {"watched": bool},  # a seat's stream the server keeps watch over (ASGI)
    }.get(type(event), {})
    assert set(keys) <= set(data) <= set(keys) | set(optional)
    for key, kind in {**keys, **optional}.items():
        if key in data:
            assert isinstance(data[key], kind), (key, data[key])
    if has_id:
        assert fields["id"] == str(data["version"])  # the Last-Event-ID a reconnect sends back
    else:
        assert "id" not in fields
    if isinstance(event, Hello):
        assert fields["retry"] == str(event.retry_ms)


def test_a_board_with_newlines_stays_one_data_line():
    fields = _parse(TableAt(version=3, board="<p>a</p>\n<p>b</p>\r\n").encode())
    assert json.loads(fields["data"])["board"] == "<p>a</p>\n<p>b</p>\r\n"


def test_the_pages_listen_for_exactly_these_names():
    """The one list: a name the server sends that no page hears, or a name a page waits for that
    the server never sends, is a bug."""
    heard = set()
    for path in JS.glob("*.js"):
        if path.name == "htmx.min.js":
            continue
        heard |= set(re.findall(r'source\.addEventListener\("(\w+)"', path.read_text()))
    heard -= {"open", "error"}  # EventSource's own, not the server's
    assert heard == push_events.EVENT_NAMES


def test_a_service_pushes_only_once_its_transaction_commits(monkeypatch, transactional_db):
    from django.db import transaction

    sent = []
    monkeypatch.setattr(push, "_send", sent.append)
    change = push.Change(game_id=5, version=2)
    with pytest.raises(RuntimeError), transaction.atomic():
        push.send_on_commit(change)
        raise RuntimeError("the move failed")
    assert sent == []  # rolled back: nothing told
    with transaction.atomic():
        push.send_on_commit(change)
        assert sent == []  # not before the commit
    assert sent == [change]
