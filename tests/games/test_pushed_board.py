"""A move's push carries the table's new board (games.push.held / attach_board,
games.table_cache.push_board / seat_board, games.stream._Table): each other tablet shows it
without fetching, and what it shows is, byte for byte, what its fetch would have answered
(R1.5: a seat sees its own hand and its own form only, never another seat's).

Issue 27 part 2: the three fetches each move made the table's other tablets send are gone.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from games import push, stream, table_cache
from games.engine import bots
from games.models import Game
from games.polling import poll_token
from tests.games.test_table_cache import _same, board, board_caches, move, tablet  # noqa: F401

CSRF = "A" * 64


@pytest.fixture
def pushed(monkeypatch):
    """Every push sent, in order (what games.push would publish)."""
    sent: list[push.Change] = []
    monkeypatch.setattr(push, "_send", sent.append)
    return sent


@pytest.fixture
def cy(classroom):
    from tests import factories

    return factories.student(classroom=classroom, name="Cy", picture_code="6-7-8")


def seat_html(change: push.Change, game: Game, student, position: int, since: int) -> str | None:
    return table_cache.seat_board(
        change.board,
        position=position,
        language="en",
        since=since,
        token=poll_token(game, position, student.user.pk),
        csrf=CSRF,
    )


@pytest.mark.django_db(transaction=True)
def test_a_moves_push_carries_each_other_seats_board_as_its_fetch_answers_it(
    board_caches,  # noqa: F811
    pushed,
    make_game,
    anna,
    bo,
    cy,
    monkeypatch,
):  # R1.5, R5.1
    # The computer answers a window 1-2 s after a move: on a slow box the fetch below would play
    # its answer first and show version 2. It thinks for ten minutes here, so the boards compared
    # are those of the moves the test makes.
    monkeypatch.setitem(
        bots.PROFILES, "easy", replace(bots.PROFILES["easy"], delay=(600, 600), answer=(600, 600))
    )
    game = make_game(
        [{"student": anna}, {"student": bo}, {"student": cy}, {"bot": "easy"}], challenge_window=30
    )
    pushed.clear()  # the start's push
    tabs = {0: (anna, tablet(anna)), 1: (bo, tablet(bo)), 2: (cy, tablet(cy))}

    # Anna says "nothing to do": a challenge window with its countdown for the others.
    move(tabs[0][1], game, 0, "nothing")
    (change,) = pushed
    assert (change.game_id, change.version) == (game.pk, 1)
    # Every seat with a tablet has its parts in it; the computer player has none.
    assert sorted(change.board["seats"]) == ["0", "1", "2"]
    game.refresh_from_db()
    for position in (1, 2):
        student, c = tabs[position]
        html = seat_html(change, game, student, position, since=0)
        assert _same(html) == _same(board(c, game, 0))
        assert 'data-applied="0"' in html and "Anna says: nothing to do." in html
    # Bo says "Kavet 'm eus!": his push carries Anna's and Cy's boards of the challenge.
    pushed.clear()
    move(tabs[1][1], game, 1, "challenge")
    (change,) = pushed
    game.refresh_from_db()
    for position in (0, 2):
        student, c = tabs[position]
        assert _same(seat_html(change, game, student, position, since=1)) == _same(
            board(c, game, 1)
        )
    # What each seat gets is its own: Cy's form is not Anna's.
    assert seat_html(change, game, cy, 2, 1) != seat_html(change, game, anna, 0, 1)


@pytest.mark.django_db(transaction=True)
def test_the_board_goes_through_redis_as_json_unchanged(pushed, make_game, anna, bo):
    # The message the other web processes get (games.push._encode / _decode) gives the same board.
    game = make_game([{"student": anna}, {"student": bo}], challenge_window=30)
    pushed.clear()
    move(tablet(anna), game, 0, "nothing")
    (change,) = pushed
    heard = push._decode(push._encode(change))
    assert heard == change and heard.board is not None
    game.refresh_from_db()
    sent, got = seat_html(change, game, bo, 1, 0), seat_html(heard, game, bo, 1, 0)
    assert "Check it!" in got
    # The same board but for the clock, read when it is filled in.
    assert got.replace(_now(got), _now(sent)) == sent


def _now(html: str) -> str:
    return html.split('data-now="', 1)[1].split('"', 1)[0]


@pytest.mark.django_db(transaction=True)
def test_a_refused_move_pushes_nothing(pushed, make_game, anna, bo):
    # Nothing is changed by a refused request, so no tablet is told of anything.
    game = make_game([{"student": anna}, {"student": bo}])
    pushed.clear()
    c = tablet(bo)  # not Bo's turn
    from django.urls import reverse

    response = c.post(
        reverse("games:table_move", args=[game.pk]),
        {"seen_version": 0, "type": "nothing"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200 and 'data-applied="1"' not in response.content.decode()
    assert pushed == []


def _board_change(version: int = 5, language: str = "en") -> push.Change:
    shared = {
        "html": f'<div id="board" data-version="{version}">'
        f"{table_cache.WHO_MARK}{table_cache.ACTIONS_MARK}{table_cache.CSRF_MARK}</div>",
        "news": [],
    }
    seats = {
        "0": {"whose_turn": "ANNA-TURN", "actions": "ANNA-FORM", "my_turn": "1", "disabled": ""},
        "1": {"whose_turn": "BO-TURN", "actions": "BO-FORM", "my_turn": "0", "disabled": ""},
    }
    board = {"language": language, "board": shared, "seats": seats, "deadline": None}
    return push.Change(game_id=1, version=version, board=board)


def _viewer(position: int, language: str = "en") -> stream.Viewer:
    return stream.Viewer(position=position, language=language, token="tok", csrf=CSRF)


def _data(out: bytes) -> list[dict]:
    return [json.loads(line[6:]) for line in out.decode().split("\n") if line.startswith("data: ")]


def test_a_seats_stream_sends_its_own_seats_board_only():  # R1.5
    (event,) = _data(stream._Table(4, _viewer(1)).apply([_board_change()]))
    assert event["version"] == 5
    assert "BO-TURN" in event["board"] and "BO-FORM" in event["board"] and CSRF in event["board"]
    assert "ANNA" not in event["board"]


def test_without_a_board_for_this_seat_or_language_the_event_says_only_the_version():
    # A seat with no parts (a computer player's, a seat that joined since), another language, a
    # push with no board (a time limit, a pause): the tablet fetches, as before.
    for table, change in [
        (stream._Table(4, _viewer(2)), _board_change()),
        (stream._Table(4, _viewer(1, "fr")), _board_change()),
        (stream._Table(4, _viewer(1)), push.Change(game_id=1, version=5)),
        (stream._Table(4), _board_change()),  # not a seat's stream
    ]:
        assert _data(table.apply([change])) == [{"version": 5}]


def test_a_board_this_code_did_not_make_is_not_sent():
    broken = push.Change(game_id=1, version=5, board={"language": "en", "seats": {"1": {}}})
    assert _data(stream._Table(4, _viewer(1)).apply([broken])) == [{"version": 5}]


def test_held_pushes_go_out_at_the_end_in_order_with_their_boards_even_when_it_fails(pushed):
    with pytest.raises(RuntimeError), push.held():
        push.table_changed(game_id=1, version=3)
        push.table_changed(game_id=1, version=4, group=9)
        assert push.holding(1, 4) and not push.holding(1, 5)
        push.attach_board(game_id=1, version=4, board={"x": 1})
        assert pushed == []  # nothing before the end of the block
        raise RuntimeError("the answer failed")
    assert [(c.version, c.group, c.board) for c in pushed] == [(3, None, None), (4, 9, {"x": 1})]
    # Outside a held block a push goes at once, and a board has nothing to go with.
    push.attach_board(game_id=1, version=6, board={"x": 1})
    push.table_changed(game_id=1, version=6)
    assert pushed[-1].board is None and not push.holding(1, 6)


def test_a_board_too_big_for_the_push_is_left_to_the_fetch(pushed, monkeypatch):
    monkeypatch.setattr(push, "MAX_BOARD_BYTES", 100)
    with push.held():
        push.table_changed(game_id=1, version=3)
        push.attach_board(game_id=1, version=3, board={"html": "x" * 200})
    assert pushed[0].board is None


def test_a_malformed_board_in_a_message_is_ignored():
    assert push._decode(b'[1, 2, null, ["not", "an", "object"]]') is None
    assert push._decode(b"[1, 2, null, {}, 5]") is None
    assert push._decode(b"[1, 2, null, null]") == push.Change(1, 2)


@pytest.mark.django_db
def test_wsgi_a_move_and_a_pause_right_after_it_both_reach_the_tablet(
    client, monkeypatch, make_game, anna, bo
):
    # R4.9: both delivered before the sync stream (runserver, the demo) waits again: the move's
    # event with the board, then the pause's (same version, plain: the tablet fetches it).
    from django.urls import reverse

    from tests.games.test_stream import parse, table_events

    monkeypatch.setattr(stream, "HEARTBEAT", 0.3)
    monkeypatch.setattr(stream, "LIFETIME", 3.0)  # a stream that misses one ends, never hangs
    monkeypatch.setattr(stream, "LIFETIME_JITTER", 0.0)

    game = make_game([{"student": anna}, {"student": bo}])
    client.force_login(anna.user)
    token = poll_token(game, 0, anna.user.pk)
    response = client.get(
        reverse("games:table_stream", args=[game.pk]), {"t": token, "v": game.version}
    )
    assert response.status_code == 200 and not response.is_async
    content = iter(response.streaming_content)
    chunks = [next(content)]  # hello
    moved = _board_change(version=game.version + 1)
    push.hub.deliver(push.Change(game_id=game.pk, version=moved.version, board=moved.board))
    push.hub.deliver(push.Change(game_id=game.pk, version=moved.version))
    while len(table_events(parse(chunks))) < 2:
        chunks.append(next(content))  # StopIteration: the stream ended without the second
    response.close()
    first, second = (e["data"] for e in table_events(parse(chunks)))
    assert "ANNA-FORM" in first["board"] and second == {"version": moved.version}


@pytest.mark.django_db(transaction=True)
def test_a_moves_answer_reads_the_new_state_once_for_the_board_and_every_seat(
    board_caches,  # noqa: F811
    pushed,
    make_game,
    anna,
    bo,
    cy,
    monkeypatch,
):  # issue 38: the table's board and each seat's own parts each parsed the same state
    from games import engine, selectors

    game = make_game([{"student": anna}, {"student": bo}, {"student": cy}], challenge_window=30)
    parsed = []
    real = engine.GameState.from_dict.__func__

    def counting(cls, data):
        parsed.append(data.get("version"))
        return real(cls, data)

    monkeypatch.setattr(engine.GameState, "from_dict", classmethod(counting))
    move(tablet(anna), game, 0, "nothing")
    # The service's own (the state it changes), and one for every context of the new version.
    assert parsed == [0, 1], parsed
    (change,) = [c for c in pushed if c.version == 1]
    assert sorted(change.board["seats"]) == ["0", "1", "2"]
    # A state replaced on the instance (a refresh after another move) is parsed again.
    game.refresh_from_db()
    first = selectors.read_state(game)
    assert selectors.read_state(game) is first
    game.state = dict(game.state)
    assert selectors.read_state(game) is not first
