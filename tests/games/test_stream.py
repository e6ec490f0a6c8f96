"""The push streams (server-sent events) over HTTP: ASGI (AsyncClient) and WSGI (Client).

The tablet's stream takes the same signed token as its poll and a seat at that very game; the
teacher's takes a class game of a class they teach. Each event is the table's version."""

from __future__ import annotations

import asyncio
import json
import threading
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.test import AsyncClient
from django.urls import reverse

from classgames.models import ClassSession
from classgames.services import class_table_start
from games import push, services, stream
from games.models import Game, Seat
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
    # Up to date: nothing but the reconnect delay and the hello sent at once; the server keeps
    # watch over a seat's stream under ASGI (its keeper), so the tablet needs no safety poll.
    assert events[0] == {
        "retry": str(stream.RETRY_MS),
        "event": "hello",
        "data": {"watched": True},
    }
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
    assert {"event": "hb", "data": {}} in events
    assert table_events(events) == []
    assert push.hub.watcher_count() == 0  # the stream let go of its watcher


def _keeper_scenario(game, user, position, between):
    """A seat's stream up to date under ASGI; `between(keeper)` (async) runs once it is open;
    the events sent until a `table` one (or two heartbeats)."""
    url, query = table_url(game, user, position, v=game.version)
    aclient = AsyncClient()
    aclient.force_login(user)

    @async_to_sync
    async def scenario():
        response = await aclient.get(url, query)
        iterator = response.streaming_content.__aiter__()
        chunks = [await iterator.__anext__()]  # hello: the stream is open and kept
        keeper = stream._Keeper.of(asyncio.get_running_loop())
        sent = await between(keeper)
        while True:
            events = parse(chunks)
            if table_events(events) or sum(e.get("event") == "hb" for e in events) >= 2:
                break
            chunks.append(await asyncio.wait_for(iterator.__anext__(), 5))
        await iterator.aclose()
        return sent, parse(chunks)

    return scenario()


@pytest.mark.django_db(transaction=True)
def test_the_keeper_sends_a_stream_the_table_whose_push_was_lost(table, anna, bo):
    # Issue 38: the server keeps watch over the seats' streams (no tablet polls once a minute):
    # a change whose push never came (a message Redis dropped) reaches the tablet within a
    # round, as the table's version alone (the tablet fetches its board).
    seats = {s.position: s for s in table.seats.all()}
    started = table.started_at - timedelta(minutes=5)
    Game.objects.filter(pk=table.pk).update(started_at=started)
    seen = started + timedelta(seconds=1)  # seen since the start, and more than KEEP_STALE ago
    Seat.objects.filter(pk__in=[seats[0].pk, seats[1].pk]).update(last_seen_at=seen)

    async def lost(keeper):
        await sync_to_async(
            lambda: Game.objects.filter(pk=table.pk).update(version=table.version + 1)
        )()
        return await keeper.round()

    sent, events = _keeper_scenario(table, anna.user, 0, lost)
    assert sent == 1
    assert events[0]["data"] == {"watched": True}
    (event,) = table_events(events)
    assert event["data"] == {"version": table.version + 1}  # no board: the tablet fetches it
    # Anna's stream is open here: her tablet is present; Bo's has no stream: not stamped.
    assert Seat.objects.get(pk=seats[0].pk).last_seen_at > seen
    assert Seat.objects.get(pk=seats[1].pk).last_seen_at == seen


@pytest.mark.django_db(transaction=True)
def test_the_keeper_is_quiet_while_the_stream_is_up_to_date(table, anna):
    async def look(keeper):
        return await keeper.round()

    sent, events = _keeper_scenario(table, anna.user, 0, look)
    assert sent == 0 and table_events(events) == []
    # A seat not seen since its game started is left to its tablet's own visit, which starts
    # a first turn's clock that waited for it (R4.9).
    assert Seat.objects.get(game=table, position=0).last_seen_at is None


@pytest.mark.django_db(transaction=True)
def test_the_keeper_sends_a_status_change_at_the_same_version(table, anna):
    # A pause changes the status, not the version: a lost push of it still reaches the tablet.
    async def paused(keeper):
        await sync_to_async(
            lambda: Game.objects.filter(pk=table.pk).update(status=Game.Status.PAUSED)
        )()
        first = await keeper.round()
        return first, await keeper.round()  # told once, not again at every round

    (first, again), events = _keeper_scenario(table, anna.user, 0, paused)
    assert (first, again) == (1, 0)
    (event,) = table_events(events)
    assert event["data"] == {"version": table.version}


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
        publish_soon(0.1, game_id=other.pk, version=other.version + 1, group=None)
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
    url = reverse("classrooms:session_stream", args=[session.pk])

    @async_to_sync
    async def scenario():
        response = await aclient.get(url, {"v": before})
        assert response.status_code == 200
        publish_soon(0.1, game_id=games[0].pk, version=games[0].version + 1, group=session.pk)
        publish_soon(0.3, game_id=games[1].pk, version=games[1].version + 2, group=session.pk)
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
    url = reverse("classrooms:session_stream", args=[session.pk])

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
        game = class_table_start(
            session=session,
            number=i // 2 + 1,
            players=[{"student": s} for s in students[i : i + 2]],
            settings={},
            by=teacher,
        )
        games.append(game)
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
    # No keeper under WSGI (the embedded default): the tablet keeps its safety-net poll.
    assert parse(chunks)[0]["data"] == {}
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
    assert {"event": "hb", "data": {}} in events


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
    response = client.get(url, query)
    content = iter(response.streaming_content)
    chunks = [next(content)]
    publish_soon(0.2, game_id=table.pk, version=table.version)
    while not table_events(parse(chunks)):
        chunks.append(next(content))
    # Closed as a WSGI server closes it: a suspended stream body left to the garbage collector
    # of another thread (the next test's event loop) crashed Python 3.11.7 now and then.
    response.close()
    assert table_events(parse(chunks))[0]["data"] == {"version": table.version}


# --- caps: a tablet (or an address) past its cap loses its oldest stream ----------------------


class Open:
    """An open stream of an AsyncClient: `alive()` reads its next chunk (a heartbeat every
    0.3 s here); a replaced stream gives `bye` and ends."""

    def __init__(self, response) -> None:
        self.response = response
        self.iterator = response.streaming_content.__aiter__()
        self.chunks: list[bytes] = []
        self.ended = False

    async def start(self) -> Open:
        assert self.response.status_code == 200
        self.chunks.append(await asyncio.wait_for(self.iterator.__anext__(), 5))  # hello
        return self

    async def next_events(self, timeout: float = 2.0) -> list[dict]:
        try:
            self.chunks.append(await asyncio.wait_for(self.iterator.__anext__(), timeout))
        except StopAsyncIteration:
            self.ended = True
        return parse(self.chunks)

    def said_bye(self) -> bool:
        return any(e.get("event") == "bye" for e in parse(self.chunks))

    async def close(self) -> None:
        await self.iterator.aclose()


async def open_stream(aclient, url, query) -> Open:
    return await Open(await aclient.get(url, query)).start()


class AsyncClientAt(AsyncClient):
    """An AsyncClient whose requests come from `address` (REMOTE_ADDR)."""

    def __init__(self, address: str) -> None:
        super().__init__()
        self.address = address

    def _base_scope(self, **request):
        scope = super()._base_scope(**request)
        scope["client"] = [self.address, 0]
        return scope


@pytest.fixture
def signed_in():
    def make(student, address="127.0.0.1") -> AsyncClient:
        aclient = AsyncClientAt(address)
        aclient.force_login(student.user)
        return aclient

    return make


def test_a_tablet_past_its_cap_loses_its_oldest_stream_with_a_bye(
    table, anna, bo, signed_in, settings
):
    settings.KAVET_STREAMS_PER_SESSION = 2
    tablet, other_tablet = signed_in(anna), signed_in(bo)
    url, query = table_url(table, anna.user, 0, v=table.version)
    bo_url, bo_query = table_url(table, bo.user, 1, v=table.version)

    @async_to_sync
    async def scenario():
        first = await open_stream(tablet, url, query)
        second = await open_stream(tablet, url, query)
        bos = await open_stream(other_tablet, bo_url, bo_query)  # another tablet: its own cap
        third = await open_stream(tablet, url, query)
        await first.next_events()
        await first.next_events()  # bye, then the end
        alive = [await s.next_events(1.0) for s in (second, third, bos)]
        for s in (second, third, bos):
            await s.close()
        return first, second, third, bos, alive

    first, second, third, bos, alive = scenario()
    assert first.said_bye() and first.ended
    assert [e for e in parse(first.chunks) if e.get("event") == "bye"] == [
        {"event": "bye", "data": {"reason": "replaced"}}
    ]
    for kept, events in zip((second, third, bos), alive, strict=True):
        assert not kept.said_bye() and not kept.ended
        assert {"event": "hb", "data": {}} in events
    assert push.hub.watcher_count() == 0


def test_an_address_past_its_cap_loses_its_oldest_stream(table, anna, bo, signed_in, settings):
    settings.KAVET_STREAMS_PER_ADDRESS = 1
    url, query = table_url(table, anna.user, 0, v=table.version)
    bo_url, bo_query = table_url(table, bo.user, 1, v=table.version)
    school_nat, home = signed_in(anna, "192.0.2.10"), signed_in(anna, "198.51.100.7")
    bo_at_school = signed_in(bo, "192.0.2.10")

    @async_to_sync
    async def scenario():
        annas = await open_stream(school_nat, url, query)
        elsewhere = await open_stream(home, url, query)
        bos = await open_stream(bo_at_school, bo_url, bo_query)
        await annas.next_events()
        await annas.next_events()
        await elsewhere.next_events(1.0)
        await bos.next_events(1.0)
        for s in (elsewhere, bos):
            await s.close()
        return annas, elsewhere, bos

    annas, elsewhere, bos = scenario()
    assert annas.said_bye() and annas.ended  # the same address, another tablet: the oldest goes
    assert not elsewhere.said_bye() and not elsewhere.ended
    assert not bos.said_bye() and not bos.ended


def test_a_refused_stream_closes_nobody(table, anna, bo, signed_in, settings, make_game, classroom):
    settings.KAVET_STREAMS_PER_SESSION = 1
    settings.KAVET_STREAMS_PER_ADDRESS = 1
    url, query = table_url(table, anna.user, 0, v=table.version)
    carl = factories.student(classroom=classroom, name="Carl", picture_code="6-7-8")
    elsewhere = make_game([{"student": carl}, {"student": bo}])
    tablet, bo_tablet = signed_in(anna), signed_in(bo)

    @async_to_sync
    async def scenario():
        annas = await open_stream(tablet, url, query)
        statuses = [
            (await bo_tablet.get(url, query)).status_code,  # Anna's token in Bo's session
            (await tablet.get(url, {"t": "1.0.1:forged"})).status_code,
            # Anna's own valid token of a game she does not sit at
            (await tablet.get(*table_url(elsewhere, anna.user, 0))).status_code,
            (await AsyncClient().get(url, query)).status_code,  # signed out
        ]
        events = await annas.next_events(1.0)
        await annas.close()
        return statuses, annas, events

    statuses, annas, events = scenario()
    assert statuses == [403, 403, 404, 403]
    assert not annas.said_bye() and {"event": "hb", "data": {}} in events


def test_the_teacher_keeps_the_live_view_and_the_class_board_open(teacher, classroom):
    """The live view and the class board (a projector) follow one class game: two streams of
    one session, each hearing every table."""
    students = [
        factories.student(classroom=classroom, name=n, picture_code=f"{i}-{i}-{i}")
        for i, n in enumerate(["Anna", "Bo", "Carl", "Dora", "Eve", "Finn"])
    ]
    session, games = start_session(teacher, classroom, students)
    aclient = AsyncClient()
    aclient.force_login(teacher)
    url = reverse("classrooms:session_stream", args=[session.pk])
    before = sum(g.version for g in games)

    @async_to_sync
    async def scenario():
        live = await open_stream(aclient, url, {"v": before})
        board = await open_stream(aclient, url, {"v": before})
        for game in games:
            push.table_changed(game_id=game.pk, version=game.version + 1, group=session.pk)
        heard = []
        for view in (live, board):
            while len(table_events(parse(view.chunks))) < len(games) and not view.ended:
                await view.next_events()
            heard.append([e["data"]["game"] for e in table_events(parse(view.chunks))])
            await view.close()
        return live, board, heard

    live, board, heard = scenario()
    assert heard == [[g.pk for g in games]] * 2
    assert not live.said_bye() and not board.said_bye()


def test_wsgi_a_replaced_stream_says_bye_and_ends(client, table, anna, settings):
    settings.KAVET_STREAMS_PER_SESSION = 1
    client.force_login(anna.user)
    url, query = table_url(table, anna.user, 0, v=table.version)
    first = iter(client.get(url, query).streaming_content)
    next(first)  # hello
    second = client.get(url, query)
    events = parse(list(first))  # ends at once: replaced
    assert events == [{"event": "bye", "data": {"reason": "replaced"}}]
    assert second.status_code == 200
    second.close()


def test_while_redis_is_down_a_stream_is_refused_so_the_tablet_polls(
    client, table, anna, teacher, classroom, monkeypatch
):
    # A stream of this process would hear only this process's moves while Redis is down:
    # 204 stops the EventSource and the page polls every 2 s (static/js/live.js).
    monkeypatch.setattr(push, "ensure_listening", lambda: False)
    client.force_login(anna.user)
    url, query = table_url(table, anna.user, 0)
    assert client.get(url, query).status_code == 204
    students = [factories.student(classroom=classroom, name=n) for n in ("Carl", "Dora")]
    session, _games = start_session(teacher, classroom, students)
    client.force_login(teacher)
    live = reverse("classrooms:session_stream", args=[session.pk])
    assert client.get(live).status_code == 204


def test_a_pause_at_the_version_of_a_move_heard_in_one_batch_stays_its_own_event():
    # R4.9: a move and the teacher's pause at its version, heard together, are two events:
    # the mover's tablet takes one at its move's version as its own and must fetch for the other.
    table = stream._Table(0)
    both = [push.Change(game_id=1, version=1), push.Change(game_id=1, version=1)]
    assert table.apply(both) == stream._event(1) * 2
    # Older versions fold into the newest; a late one sends nothing.
    later = [push.Change(game_id=1, version=2), push.Change(game_id=1, version=3)]
    assert table.apply(later) == stream._event(3)
    assert table.apply([push.Change(game_id=1, version=2)]) == b""
