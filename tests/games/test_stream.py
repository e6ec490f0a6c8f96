"""The push streams (server-sent events) over HTTP: ASGI (AsyncClient) and WSGI (Client).

The tablet's stream takes the same signed token as its poll and a seat at that very game; the
teacher's takes a class game of a class they teach. Each event is the table's version."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient
from django.urls import reverse

from classgames.models import ClassSession
from games import push, services, stream
from games.polling import poll_token
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _short_streams(monkeypatch):
    monkeypatch.setattr(stream, "HEARTBEAT", 0.3)
    monkeypatch.setattr(stream, "LIFETIME", 3.0)
    monkeypatch.setattr(stream, "LIFETIME_JITTER", 0.0)


@pytest.fixture
def table(make_game, anna, bo):
    return make_game([{"student": anna}, {"student": bo}])


def table_url(game, user, position, **params):
    query = {"t": poll_token(game, position, user.pk), **params}
    return reverse("games:table_stream", args=[game.pk]), query


def parse(chunks: list[bytes]) -> list[dict]:
    """The events in what was sent: [{'id':..., 'event':..., 'data':...}], comments as {'comment'}."""
    events = []
    for block in b"".join(chunks).decode().split("\n\n"):
        if not block:
            continue
        fields: dict = {}
        for line in block.split("\n"):
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "":
                fields["comment"] = value
            elif name == "data":
                fields["data"] = json.loads(value)
            else:
                fields[name] = value
        events.append(fields)
    return events


def table_events(events):
    return [e for e in events if e.get("event") == "table"]


async def read_until(response, predicate, timeout: float = 5.0) -> list[bytes]:
    """Chunks of an async stream until `predicate(events so far)` holds."""
    chunks: list[bytes] = []
    iterator = response.streaming_content.__aiter__()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate(parse(chunks)):
        chunks.append(await asyncio.wait_for(iterator.__anext__(), deadline - loop.time()))
    await iterator.aclose()
    return chunks


def publish_soon(delay: float = 0.2, **change):
    timer = threading.Timer(delay, lambda: push.table_changed(**change))
    timer.start()
    return timer


# --- ASGI -----------------------------------------------------------------------------------


def test_asgi_a_tablet_hears_its_tables_move(table, anna):
    url, query = table_url(table, anna.user, 0, v=table.version)
    aclient = AsyncClient()
    aclient.force_login(anna.user)

    @async_to_sync
    async def scenario():
        response = await aclient.get(url, query)
        assert response.status_code == 200
        assert response["Content-Type"] == "text/event-stream"
        assert response["Cache-Control"] == "no-cache"
        assert response["X-Accel-Buffering"] == "no"
        assert response.is_async
        publish_soon(game_id=table.pk, version=table.version + 1)
        return await read_until(response, lambda ev: table_events(ev))

    events = parse(scenario())
    # Up to date: nothing but the reconnect delay and the hello sent at once.
    assert events[0] == {"retry": str(stream.RETRY_MS), "event": "hello", "data": {}}
    (event,) = table_events(events)
    assert event == {
        "id": str(table.version + 1),
        "event": "table",
        "data": {"version": table.version + 1},
    }


def test_asgi_heartbeats_then_closes_after_its_lifetime(table, anna, monkeypatch):
    monkeypatch.setattr(stream, "LIFETIME", 1.0)
    url, query = table_url(table, anna.user, 0, v=table.version)
    aclient = AsyncClient()
    aclient.force_login(anna.user)

    @async_to_sync
    async def scenario():
        response = await aclient.get(url, query)
        chunks = []
        async for chunk in response.streaming_content:  # ends by itself
            chunks.append(chunk)
        return chunks

    events = parse(scenario())
    assert {"comment": "hb"} in events
    assert table_events(events) == []
    assert push.hub.watcher_count() == 0  # the stream let go of its watcher


def test_asgi_reconnect_with_an_old_last_event_id_gets_the_current_version_at_once(table, anna):
    table.version = 7
    table.save(update_fields=["version"])
    url, query = table_url(table, anna.user, 0, v=2)
    aclient = AsyncClient()
    aclient.force_login(anna.user)

    @async_to_sync
    async def scenario():
        response = await aclient.get(url, query, headers={"Last-Event-ID": "5"})
        return await read_until(response, lambda ev: table_events(ev), timeout=0.2)

    (event,) = table_events(parse(scenario()))
    assert event["id"] == "7" and event["data"] == {"version": 7}


def test_asgi_another_table_or_session_is_never_sent(table, anna, make_game, classroom):
    carl = factories.student(classroom=classroom, name="Carl", picture_code="6-7-8")
    dora = factories.student(classroom=classroom, name="Dora", picture_code="9-10-11")
    other = make_game([{"student": carl}, {"student": dora}])
    url, query = table_url(table, anna.user, 0, v=table.version)
    aclient = AsyncClient()
    aclient.force_login(anna.user)

    @async_to_sync
    async def scenario():
        response = await aclient.get(url, query)
        publish_soon(0.1, game_id=other.pk, version=other.version + 1, session_id=None)
        publish_soon(0.4, game_id=table.pk, version=table.version + 1)
        return await read_until(response, lambda ev: table_events(ev))

    assert [e["data"] for e in table_events(parse(scenario()))] == [{"version": table.version + 1}]


def test_tablet_stream_needs_its_own_token_and_seat(table, anna, bo, make_game, classroom):
    client = AsyncClient()
    client.force_login(bo.user)
    game = reverse("games:table_stream", args=[table.pk])

    @async_to_sync
    async def statuses():
        return [
            # no token, a forged one, another seat's token (Anna's) in Bo's session
            (await client.get(game)).status_code,
            (await client.get(game, {"t": "12.0.3:forged"})).status_code,
            (await client.get(game, {"t": poll_token(table, 0, anna.user.pk)})).status_code,
        ]

    assert statuses() == [403, 403, 403]
    # A valid token of a game Bo no longer sits at (the seat went away): 404 as the page.
    carl = factories.student(classroom=classroom, name="Carl", picture_code="6-7-8")
    elsewhere = make_game([{"student": carl}, {"student": anna}])
    url, query = table_url(elsewhere, bo.user, 0)

    @async_to_sync
    async def foreign():
        return (await client.get(url, query)).status_code

    assert foreign() == 404
    assert push.hub.watcher_count() == 0


def test_the_teacher_hears_every_table_of_the_class_game(teacher, classroom):
    students = [
        factories.student(classroom=classroom, name=n, picture_code=f"{i}-{i}-{i}")
        for i, n in enumerate(["Anna", "Bo", "Carl", "Dora"])
    ]
    session, games = start_session(teacher, classroom, students)
    before = sum(g.version for g in games)
    aclient = AsyncClient()
    aclient.force_login(teacher)
    url = reverse("games:session_stream", args=[session.pk])

    @async_to_sync
    async def scenario():
        response = await aclient.get(url, {"v": before})
        assert response.status_code == 200
        publish_soon(0.1, game_id=games[0].pk, version=games[0].version + 1, session_id=session.pk)
        publish_soon(0.3, game_id=games[1].pk, version=games[1].version + 2, session_id=session.pk)
        return await read_until(response, lambda ev: len(table_events(ev)) == 2)

    events = table_events(parse(scenario()))
    assert [e["data"] for e in events] == [
        {"version": before + 1, "game": games[0].pk, "game_version": games[0].version + 1},
        {"version": before + 3, "game": games[1].pk, "game_version": games[1].version + 2},
    ]
    assert [e["id"] for e in events] == [str(before + 1), str(before + 3)]


def test_a_session_of_another_class_is_404_and_students_are_refused(
    teacher, school, classroom, anna
):
    students = [
        factories.student(classroom=classroom, name=n, picture_code=f"{i}-{i}-{i}")
        for i, n in enumerate(["Eve", "Finn"])
    ]
    session, _games = start_session(teacher, classroom, students)
    stranger = factories.teacher(school=school, username="stranger")
    other_class = factories.classroom(school=school, teachers=[stranger], name="Other class")
    assert other_class.pk != classroom.pk
    url = reverse("games:session_stream", args=[session.pk])

    def status(user):
        aclient = AsyncClient()
        if user is not None:
            aclient.force_login(user)
        return async_to_sync(aclient.get)(url).status_code

    assert status(stranger) == 404
    assert status(anna.user) == 404
    assert status(None) == 403


def start_session(teacher, classroom, students):
    """A running class game with a table for every two students."""
    session = ClassSession.objects.create(
        classroom=classroom, created_by=teacher, status=ClassSession.Status.RUNNING
    )
    games = []
    for i in range(0, len(students), 2):
        game = services.game_create(
            school=classroom.school,
            classroom=classroom,
            session=session,
            players=[{"student": s} for s in students[i : i + 2]],
            settings={},
            created_by=teacher,
            label=str(i // 2 + 1),
        )
        games.append(services.game_start(game=game, by=teacher))
    return session, games


# --- WSGI (runserver, the embedded default) -------------------------------------------------


def test_wsgi_a_tablet_hears_its_tables_move(client, table, anna):
    client.force_login(anna.user)
    url, query = table_url(table, anna.user, 0, v=table.version)
    response = client.get(url, query)
    assert response.status_code == 200 and not response.is_async
    chunks = []
    content = iter(response.streaming_content)
    chunks.append(next(content))  # retry: and hello, nothing else: up to date
    publish_soon(0.2, game_id=table.pk, version=table.version + 1)
    while not table_events(parse(chunks)):
        chunks.append(next(content))
    response.close()
    (event,) = table_events(parse(chunks))
    assert event["data"] == {"version": table.version + 1}


def test_wsgi_resync_heartbeat_and_end(client, table, anna, monkeypatch):
    monkeypatch.setattr(stream, "LIFETIME", 0.8)
    client.force_login(anna.user)
    url, query = table_url(table, anna.user, 0, v=0)
    table.version = 3
    table.save(update_fields=["version"])
    events = parse(list(client.get(url, query).streaming_content))  # ends after its lifetime
    assert table_events(events)[0]["data"] == {"version": 3}
    assert {"comment": "hb"} in events


def test_wsgi_under_gunicorn_answers_204_so_the_tablet_keeps_polling(client, table, anna):
    client.force_login(anna.user)
    url, query = table_url(table, anna.user, 0)
    assert client.get(url, query, SERVER_SOFTWARE="gunicorn/23.0.0").status_code == 204


def test_an_ended_game_stream_stops(client, table, anna):
    services.game_end(game=table, by=anna.user)
    table.version = 4  # as if moves had been made
    table.save(update_fields=["version"])
    client.force_login(anna.user)
    url, query = table_url(table, anna.user, 0, v=table.version)
    assert client.get(url, query).status_code == 204
    # Behind: it still hears the last version once.
    url, query = table_url(table, anna.user, 0, v=table.version - 1)
    response = client.get(url, query)
    assert response.status_code == 200
    assert table_events(parse([next(iter(response.streaming_content))]))[0]["data"] == {
        "version": table.version
    }
    response.close()


def test_a_pause_at_the_same_version_is_still_sent(client, table, anna):
    """Pause, resume and end change the status, not the version: the tablet must hear them."""
    client.force_login(anna.user)
    url, query = table_url(table, anna.user, 0, v=table.version)
    content = iter(client.get(url, query).streaming_content)
    chunks = [next(content)]
    publish_soon(0.2, game_id=table.pk, version=table.version)
    while not table_events(parse(chunks)):
        chunks.append(next(content))
    assert table_events(parse(chunks))[0]["data"] == {"version": table.version}
