"""Class games: tables from the students present, start/pause/end, the live view, replay."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from classgames import selectors
from classgames import services as class_game_services
from classgames.models import ClassSession
from classrooms import services
from classrooms.grouping import PlannedTable
from classrooms.models import Student
from games import engine
from games import services as game_services
from games.models import Game, Move, Seat
from games.services import game_tick
from tests import factories

pytestmark = pytest.mark.django_db

SETTINGS = {
    "challenge_window": "5",
    "challenge_time": "30",
    "turn_time": "60",
    "starter": "first",
    "nothing_true_penalty": "3",
    "lesson": "auto",
    "copies": "2",
    "x_cards": "4",
    "events": "on",
    "cap_range": "",
    "cap_tier": "",
}


@pytest.fixture
def kids(classroom):
    levels = [
        ("Anna", 10, 1),
        ("Bleuenn", 10, 1),
        ("Corentin", 20, 2),
        ("Dewi", 20, 2),
        ("Elouan", 20, 3),
    ]
    return [
        factories.student(classroom=classroom, name=n, number_range=r, tier=t) for n, r, t in levels
    ]


def _post(kids, **extra) -> dict:
    data = {**SETTINGS, "present": [k.pk for k in kids]}
    data.update(extra)
    return data


def play(game: Game, ticks: int, *, start=None) -> None:
    """Let time run: each tick applies a due time limit or computer move (one move a tick)."""
    now = start or timezone.now()
    for _ in range(ticks):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            return
        now += timedelta(minutes=5)
        game_tick(game_id=game.pk, now=now)


def start_session(classroom, teacher, groups, *, bots=0, settings=None) -> ClassSession:
    tables = [
        PlannedTable(number=i, students=g, bots=bots, bot_strength="easy")
        for i, g in enumerate(groups, start=1)
    ]
    return class_game_services.class_session_start(
        classroom=classroom,
        tables=tables,
        by=teacher,
        settings=settings or {"challenge_window": 5, "challenge_time": 30, "turn_time": 60},
    )


def test_make_tables_proposes_tables_by_level_with_the_reason(client, teacher, classroom, kids):
    client.force_login(teacher)
    url = reverse("classrooms:class_game_setup", args=[classroom.pk])
    page = client.get(url).content.decode()
    assert all(k.name in page for k in kids)
    response = client.post(url, _post(kids[:4], action="propose"))
    tables = response.context["tables"]
    assert [[s.name for s in t.students] for t in tables] == [
        ["Anna", "Bleuenn"],
        ["Corentin", "Dewi"],
    ]
    page = response.content.decode()
    assert "up to 10, + and − only" in page and "up to 20, + − × ÷" in page
    assert "everyone at this table has this level" in page
    assert not ClassSession.objects.exists()  # proposing writes nothing


def test_moving_a_student_updates_the_rules_and_names_the_weakest(client, teacher, classroom, kids):
    anna, bleuenn, corentin, dewi, _ = kids
    client.force_login(teacher)
    url = reverse("classrooms:class_game_setup", args=[classroom.pk])
    data = _post(
        kids[:4],
        action="update",
        **{
            f"table_{anna.pk}": "2",
            f"table_{bleuenn.pk}": "1",
            f"table_{corentin.pk}": "2",
            f"table_{dewi.pk}": "1",
            "bots_1": "0",
            "bots_2": "0",
        },
    )
    response = client.post(url, data, HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert "<html" not in page and 'id="plan"' in page  # the fragment only
    assert "set by Anna&#x27;s level" in page or "set by Anna's level" in page
    assert "set by Bleuenn&#x27;s level" in page or "set by Bleuenn's level" in page


def test_a_student_at_two_tables_and_a_table_of_one_are_refused(client, teacher, classroom, kids):
    anna, bleuenn, corentin, *_ = kids
    client.force_login(teacher)
    url = reverse("classrooms:class_game_setup", args=[classroom.pk])
    data = _post(kids[:3], action="start")
    data[f"table_{anna.pk}"] = ["1", "2"]
    data[f"table_{bleuenn.pk}"] = "1"
    data[f"table_{corentin.pk}"] = "2"
    page = client.post(url, data).content.decode()
    assert "Anna is placed at two tables (1, 2): choose one." in page
    data[f"table_{anna.pk}"] = "1"
    data[f"table_{bleuenn.pk}"] = "1"
    page = client.post(url, data).content.decode()
    assert "Table 2 has only one player (Corentin)" in page
    assert not ClassSession.objects.exists() and not Game.objects.exists()
    data["bots_2"], data["strength_2"] = "1", "hard"
    response = client.post(url, data)
    session = ClassSession.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("classrooms:session_live", args=[session.pk])
    games = list(session.games.order_by("pk"))
    assert [g.status for g in games] == ["running", "running"]
    # The computer player is stored without a name and shown in the reader's language.
    assert list(games[1].seats.values_list("name", "bot")) == [("Corentin", ""), ("", "hard")]
    assert [s.display_name for s in games[1].seats.all()] == ["Corentin", "Computer 1"]


def test_each_table_plays_at_its_weakest_students_level_and_the_teachers_cap(
    teacher, classroom, kids
):
    anna, bleuenn, corentin, dewi, elouan = kids
    session = start_session(classroom, teacher, [[anna, corentin], [dewi, elouan]])
    rules = [g.config["rules"] for g in session.games.order_by("pk")]
    assert [(r["max_number"], r["tier"]) for r in rules] == [(10, 1), (20, 2)]
    class_game_services.class_session_end(session=session, by=teacher)
    capped = class_game_services.class_session_start(
        classroom=classroom,
        tables=[PlannedTable(number=1, students=[dewi, elouan])],
        settings={"copies": 1, "x_cards": 0, "events": False},
        cap_range=10,
        cap_tier=1,
        by=teacher,
    )
    game = capped.games.get()
    assert (game.config["rules"]["max_number"], game.config["rules"]["tier"]) == (10, 1)
    assert game.config["deck"] == {"max_number": 10, "copies": 1, "x_cards": 0, "events": False}


def test_a_student_of_another_class_cannot_be_seated(teacher, classroom, kids, school):
    other = factories.classroom(school=school, name="Other")
    stranger = factories.student(classroom=other, name="Zoé")
    with pytest.raises(Exception, match="Only students of this class"):
        start_session(classroom, teacher, [[kids[0], stranger]])
    assert not Game.objects.exists()


def test_a_student_already_at_a_class_game_is_not_seated_again(teacher, classroom, kids):
    anna, bleuenn, corentin, dewi, elouan = kids
    start_session(classroom, teacher, [[anna, bleuenn]])
    with pytest.raises(Exception, match="Anna is already playing"):
        start_session(classroom, teacher, [[anna, corentin], [dewi, elouan]])
    assert Game.objects.count() == 1  # nothing half-created
    assert ClassSession.objects.count() == 1


def test_an_archived_class_cannot_start_a_class_game(teacher, classroom, kids):
    services.classroom_archive(classroom=classroom, by=teacher)
    classroom.refresh_from_db()
    with pytest.raises(Exception, match="archived"):
        start_session(classroom, teacher, [kids[:2]])
    assert not Game.objects.exists()


def test_pause_resume_and_end_every_table(client, teacher, classroom, kids):
    session = start_session(classroom, teacher, [kids[:2], kids[2:4]])
    client.force_login(teacher)
    url = reverse("classrooms:session_control", args=[session.pk])
    client.post(url, {"action": "pause"})
    assert set(session.games.values_list("status", flat=True)) == {"paused"}
    client.post(url, {"action": "resume"})
    assert set(session.games.values_list("status", flat=True)) == {"running"}
    client.post(url, {"action": "end"})
    session.refresh_from_db()
    assert session.status == "finished"
    assert set(session.games.values_list("status", flat=True)) == {"abandoned"}
    assert not Seat.objects.filter(game__class_table__session=session, score__isnull=True).exists()
    history = client.get(reverse("classrooms:history", args=[classroom.pk])).content.decode()
    assert "Table 1" in history and "Table 2" in history and "ended early" in history


def test_an_absent_student_is_replaced_by_a_computer_player(client, teacher, classroom, kids):
    session = start_session(classroom, teacher, [kids[:2]])
    game = session.games.get()
    client.force_login(teacher)
    response = client.post(
        reverse("classrooms:seat_replace", args=[session.pk, game.pk]),
        {"position": "1", "strength": "medium"},
    )
    assert response.status_code == 302
    assert game.seats.get(position=1).bot == "medium"
    move = Move.objects.get(game=game)
    assert move.payload == {"type": "replace", "seat": 1, "bot": "medium"}
    response = client.post(
        reverse("classrooms:seat_replace", args=[session.pk, game.pk]),
        {"position": "0", "strength": "superhuman"},
    )
    assert game.seats.get(position=0).bot == ""


def test_the_live_view_shows_every_table_and_answers_204_when_nothing_moved(
    client, teacher, classroom, kids
):
    session = start_session(classroom, teacher, [kids[:2], kids[2:4]])
    client.force_login(teacher)
    url = reverse("classrooms:session_live", args=[session.pk])
    response = client.get(url)
    page = response.content.decode()
    assert response.status_code == 200
    assert "Table 1" in page and "Table 2" in page
    assert "Anna&#x27;s turn" in page or "Anna's turn" in page  # the first seat starts
    fingerprint = response.context["fingerprint"]
    again = client.get(url, {"v": fingerprint}, HTTP_HX_REQUEST="true")
    assert again.status_code == 204 and again.content == b""
    game = session.games.order_by("pk").first()
    play(game, 1)  # a move is played: the next poll gets the fragment
    fresh = client.get(url, {"v": fingerprint}, HTTP_HX_REQUEST="true")
    assert fresh.status_code == 200 and "<html" not in fresh.content.decode()
    assert 'id="live"' not in fresh.content.decode()  # that table alone (issue 38)
    assert f'data-table="{game.pk}"' in fresh.content.decode()
    whole = client.get(url, {"v": "a word from no page"}, HTTP_HX_REQUEST="true")
    assert whole.status_code == 200 and 'id="live"' in whole.content.decode()


MARKS = re.compile(r'data-table="(\d+)" data-mark="([^"]*)"')
SESSION_MARK = re.compile(r'id="live"[^>]*?data-mark="([^"]*)"')


def _shown(page: str, tables: dict[int, str] | None = None) -> str:
    """The v static/js/kavet.js sends: the page's marks, as they stand (`tables`: sections
    swapped in alone since)."""
    marks = dict((int(g), m) for g, m in MARKS.findall(page))
    marks.update(tables or {})
    return selectors.live_shown(SESSION_MARK.search(page).group(1), list(marks.values()))


def _from_the_rows(session, now) -> str:
    """The word the view's poll compares with the page's (classgames.views.session_live)."""
    marks = selectors.live_table_marks(session, now)
    return selectors.live_shown(session.status, [mark for *_row, mark in marks])


def _as_the_page_shows(session, now) -> str:
    return selectors.live_shown(
        session.status, [t["mark"] for t in selectors.live_tables(session, now)]
    )


def test_the_live_views_word_from_its_rows_is_the_pages_word_in_every_state(
    teacher, classroom, kids
):  # the 204 of the poll (issue 38) must never hide a change the page would show
    session = start_session(classroom, teacher, [kids[:2], kids[2:4]], bots=1)
    first, second = session.games.order_by("pk")
    t0 = timezone.now()
    states = []

    def check(label: str) -> None:
        session.refresh_from_db()
        for now in (
            t0,
            t0 + timedelta(seconds=59),
            t0 + timedelta(seconds=61),
            t0 + timedelta(seconds=100),
            t0 + timedelta(minutes=4),
        ):
            word = _from_the_rows(session, now)
            assert word == _as_the_page_shows(session, now), (label, now)
            states.append((word, [t["flags"] for t in selectors.live_tables(session, now)]))

    check("started")
    seat = Seat.objects.filter(game=first, bot="").order_by("position").first()
    game_services.table_visit(game=first, seat=seat, now=t0)  # a tablet seen, then quiet
    check("a tablet seen")
    play(first, 3, start=t0)
    check("moves")
    class_game_services.class_seat_replace(game=second, position=0, strength="hard", by=teacher)
    check("a computer for an absent child")
    class_game_services.class_session_pause(session=session, by=teacher)
    check("paused")
    class_game_services.class_session_resume(session=session, by=teacher)
    class_game_services.class_session_end(session=session, by=teacher)
    check("over")
    # Whenever the page would show other flags, the word is another.
    by_flags: dict = {}
    for word, flags in states:
        by_flags.setdefault(word, flags)
        assert by_flags[word] == flags


def test_a_table_brought_alone_leaves_the_whole_views_poll_nothing_to_send(
    client, teacher, classroom, kids
):  # issue 38: the timer poll re-rendered every table once any table of the class moved
    session = start_session(classroom, teacher, [kids[:2], kids[2:4]])
    first, second = session.games.order_by("pk")
    client.force_login(teacher)
    url = reverse("classrooms:session_live", args=[session.pk])
    page = client.get(url).content.decode()
    assert client.get(url, {"v": _shown(page)}, HTTP_HX_REQUEST="true").status_code == 204
    play(second, 1)  # a move at table 2: the poll of the page as it was has news
    fresh = client.get(url, {"v": _shown(page)}, HTTP_HX_REQUEST="true")
    assert fresh.status_code == 200 and "Table 2" in fresh.content.decode()
    # The push made the page fetch table 2 alone: with that section, the page is up to date.
    table = client.get(reverse("classrooms:session_live_table", args=[session.pk, second.pk]))
    mark = dict((int(g), m) for g, m in MARKS.findall(table.content.decode()))
    assert list(mark) == [second.pk]
    assert client.get(url, {"v": _shown(page, mark)}, HTTP_HX_REQUEST="true").status_code == 204
    # A move at table 1 the page missed (a push lost): the poll brings that table.
    play(first, 1)
    again = client.get(url, {"v": _shown(page, mark)}, HTTP_HX_REQUEST="true")
    assert again.status_code == 200
    assert [int(g) for g, _m in MARKS.findall(again.content.decode())] == [first.pk]
    # The word the page is rendered with is the one it sends from its marks.
    again = client.get(url)
    assert f"?v={_shown(again.content.decode())}" in again.content.decode()
    # Pausing the class game changes the class game's part of the word.
    class_game_services.class_session_pause(session=session, by=teacher)
    paused = client.get(url, {"v": _shown(again.content.decode())}, HTTP_HX_REQUEST="true")
    assert paused.status_code == 200 and "Resume all tables" in paused.content.decode()


OOB = re.compile(r'<section [^>]*data-table="(\d+)" data-mark="([^"]*)" hx-swap-oob="([^"]*)"')


def test_the_poll_sends_only_the_tables_the_page_shows_out_of_date(
    client, teacher, classroom, kids
):  # issue 38: a flag's minute or a missed move re-rendered every table of the class game
    session = start_session(classroom, teacher, [kids[:2], kids[2:4], kids[4:]], bots=1)
    first, second, third = session.games.order_by("pk")
    client.force_login(teacher)
    url = reverse("classrooms:session_live", args=[session.pk])
    page = client.get(url).content.decode()
    play(first, 1)
    play(third, 2)
    answer = client.get(url, {"v": _shown(page)}, HTTP_HX_REQUEST="true")
    body = answer.content.decode()
    assert answer.status_code == 200 and answer["HX-Reswap"] == "none"  # #live stays
    assert 'id="live"' not in body and "Pause all tables" not in body
    # Tables 1 and 3, each swapped into its own section (htmx's out-of-band swap)...
    sections = OOB.findall(body)
    assert [int(g) for g, _m, _oob in sections] == [first.pk, third.pk]
    for game_id, _mark, oob in sections:
        assert oob == f"outerHTML:#live [data-table='{game_id}']"
    # ... and the "updated" time into the page's.
    assert re.search(
        r'<span data-live-clock hx-swap-oob="outerHTML:#live \[data-live-clock\]">'
        r"updated \d\d:\d\d:\d\d</span>",
        body,
    )
    # With those sections in, the page shows it all: the next poll is a 204.
    swapped = {int(g): m for g, m, _oob in sections}
    assert client.get(url, {"v": _shown(page, swapped)}, HTTP_HX_REQUEST="true").status_code == 204
    # Each section is the one the whole view holds (the same markup, less the swap's mark;
    # the CSRF token is masked anew at each render).
    whole = client.get(url, {"v": "x"}, HTTP_HX_REQUEST="true").content.decode()

    def section(html: str, game) -> str:
        found = re.search(rf'<section [^>]*data-table="{game.pk}".*?</section>', html, re.S)[0]
        found = found.replace(f" hx-swap-oob=\"outerHTML:#live [data-table='{game.pk}']\"", "")
        return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", found)

    for game in (first, third):
        assert section(body, game) == section(whole, game)
    # What the word cannot say in sections brings the whole view: another status of the class
    # game (its controls), another number of tables than the page holds, a word from no page.
    status, _sep, marks = _shown(page, swapped).partition(":")
    for word in (f"paused:{marks}", f"{status}:{marks}.abc", f"{status}:", "running", ""):
        again = client.get(url, {"v": word}, HTTP_HX_REQUEST="true")
        assert again.status_code == 200 and 'id="live"' in again.content.decode(), word
        assert not again.has_header("HX-Reswap")
    # The class game paused: the whole view, with its controls.
    class_game_services.class_session_pause(session=session, by=teacher)
    paused = client.get(url, {"v": _shown(page, swapped)}, HTTP_HX_REQUEST="true")
    assert 'id="live"' in paused.content.decode() and "Resume all tables" in paused.content.decode()
    del second


def test_a_flags_minute_sends_its_table_alone(client, teacher, classroom, kids):
    session = start_session(classroom, teacher, [kids[:2], kids[2:4]])
    first, second = session.games.order_by("pk")
    client.force_login(teacher)
    url = reverse("classrooms:session_live", args=[session.pk])
    page = client.get(url).content.decode()
    # Table 2 has had no move for four minutes; table 1 has just moved.
    long_ago = timezone.now() - timedelta(minutes=4)
    Game.objects.filter(pk=second.pk).update(
        last_move_at=long_ago, started_at=long_ago, phase_started_at=long_ago
    )
    answer = client.get(url, {"v": _shown(page)}, HTTP_HX_REQUEST="true")
    body = answer.content.decode()
    assert [int(g) for g, _m, _oob in OOB.findall(body)] == [second.pk]
    assert "No move for 4 minutes" in body
    del first


def test_the_polls_answer_in_sections_is_read_in_as_many_queries_for_any_number(
    client, teacher, classroom
):
    kids = [factories.student(classroom=classroom, name=f"K{i:02}") for i in range(16)]
    session = start_session(classroom, teacher, [kids[i : i + 2] for i in range(0, 16, 2)])
    games = list(session.games.order_by("pk"))
    client.force_login(teacher)
    url = reverse("classrooms:session_live", args=[session.pk])
    page = client.get(url).content.decode()
    counts = []
    for later, moved in enumerate((games[:1], games[:3], games[:7]), start=1):
        for game in moved:  # each round after the last's time limits (play's ticks)
            play(game, 1, start=timezone.now() + timedelta(minutes=10 * later))
        with CaptureQueriesContext(connection) as ctx:
            answer = client.get(url, {"v": _shown(page)}, HTTP_HX_REQUEST="true")
        assert len(OOB.findall(answer.content.decode())) == len(moved)
        counts.append(len(ctx.captured_queries))
        page = client.get(url).content.decode()
    assert counts[0] == counts[1] == counts[2], counts


def test_a_quiet_tablets_flag_changes_the_word_once_a_minute(teacher, classroom, kids):
    session = start_session(classroom, teacher, [kids[:2]])
    game = session.games.get()
    seat = Seat.objects.filter(game=game, bot="").order_by("position").first()
    t0 = timezone.now()
    game_services.table_visit(game=game, seat=seat, now=t0)
    Game.objects.filter(pk=game.pk).update(last_move_at=t0, phase_started_at=t0)

    def word(seconds: int) -> str:
        return _from_the_rows(session, t0 + timedelta(seconds=seconds))

    assert word(10) == word(59)  # nothing flagged yet: one word
    assert word(59) != word(61)  # quiet for a minute (and Anna's turn for 61 s)
    assert word(95) != word(61)  # "has not played" from 90 s
    assert word(95) == word(110)  # still "1 minute" everywhere
    assert word(110) != word(125)  # 2 minutes


def test_the_live_view_flags_a_stuck_table_and_a_student_who_has_not_played(
    teacher, classroom, kids
):
    session = start_session(classroom, teacher, [kids[:2]])
    game = session.games.get()
    later = timezone.now() + timedelta(minutes=4)
    table = selectors.live_tables(session, later)[0]
    assert any("No move for 4 minutes" in f for f in table["flags"])
    assert any("Anna has not played for 4 minutes" in f for f in table["flags"])
    assert selectors.live_tables(session, timezone.now())[0]["flags"] == []
    del game


def _live_queries(client, url) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_the_live_views_queries_do_not_grow_with_tables_or_moves(
    client, teacher, classroom, school
):
    kids = [factories.student(classroom=classroom, name=f"K{i:02}") for i in range(20)]
    small = start_session(classroom, teacher, [kids[16:18], kids[18:20]], bots=1)
    big = start_session(classroom, teacher, [kids[i : i + 2] for i in range(0, 16, 2)], bots=1)
    client.force_login(teacher)
    small_url = reverse("classrooms:session_live", args=[small.pk])
    big_url = reverse("classrooms:session_live", args=[big.pk])
    client.get(small_url)  # warm the session and caches
    few = _live_queries(client, small_url)
    many_tables = _live_queries(client, big_url)
    for game in big.games.all():
        play(game, 15)
    assert Move.objects.filter(game__class_table__session=big).count() >= 8 * 10
    many_moves = _live_queries(client, big_url)
    assert few == many_tables == many_moves, (few, many_tables, many_moves)


def test_a_finished_game_is_in_the_history_and_its_replay_equals_the_recorded_game(
    client, teacher, classroom, kids
):
    session = start_session(classroom, teacher, [kids[:2]], bots=1)
    game = session.games.get()
    play(game, 600)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    moves = list(Move.objects.filter(game=game).order_by("number"))
    assert len(moves) > 20
    # R9.2: the engine's replay from the seed and the stored moves is the stored game.
    replayed = engine.replay(
        engine.GameConfig.from_dict(game.config),
        game.seed,
        [m.payload for m in moves],
        game.draw_order,
    )
    stored = dict(game.state)
    got = selectors._as_stored(replayed.to_dict())
    stored.pop("bots"), got.pop("bots")
    assert got == stored
    result = selectors.game_replay(game)
    assert result["matches"] is True and len(result["steps"]) == len(moves)
    client.force_login(teacher)
    history = client.get(reverse("classrooms:history", args=[classroom.pk])).content.decode()
    assert reverse("classrooms:game_replay", args=[game.pk]) in history
    for seat in game.seats.all():
        assert f"{seat.name} {seat.score}" in history
    page = client.get(reverse("classrooms:game_replay", args=[game.pk])).content.decode()
    assert "the same game as the one played" in page
    assert page.count('class="replay-steps"') == 1 and f'id="move-{len(moves)}"' in page


def test_a_tampered_move_is_shown_as_a_replay_that_differs(teacher, classroom, kids):
    session = start_session(classroom, teacher, [kids[:2]], bots=1)
    game = session.games.get()
    play(game, 30)
    move = Move.objects.filter(game=game).order_by("number").first()
    move.events = [{"type": "something else"}]
    move.save()
    assert selectors.game_replay(game)["matches"] is False


def test_erasing_a_student_after_real_games_scrubs_their_name_and_keeps_the_replay(
    client, teacher, classroom, kids
):
    anna = kids[0]
    session = start_session(classroom, teacher, [kids[:2]], bots=1)
    game = session.games.get()
    play(game, 40)
    services.student_erase(student=anna, by=teacher)
    game.refresh_from_db()
    assert "Anna" not in str(game.config) and "Anna" not in str(game.state)
    assert not Move.objects.filter(game=game, events__icontains="Anna").exists()
    assert game.seats.get(position=0).name == "—"
    assert not Student.objects.filter(pk=anna.pk).exists()
    client.force_login(teacher)
    page = client.get(reverse("classrooms:game_replay", args=[game.pk])).content.decode()
    assert "Anna" not in page


def test_the_teacher_home_lists_running_class_games(client, teacher, classroom, kids):
    session = start_session(classroom, teacher, [kids[:2]])
    client.force_login(teacher)
    page = client.get(reverse("classrooms:teacher_home")).content.decode()
    assert reverse("classrooms:session_live", args=[session.pk]) in page


def test_the_replay_of_another_teachers_game_is_404(client, teacher, classroom, kids, school):
    colleague = factories.teacher(school=school)
    theirs = factories.classroom(school=school, teachers=[colleague], name="Theirs")
    pupils = [factories.student(classroom=theirs, name=n) for n in ("Y", "Z")]
    session = start_session(theirs, colleague, [pupils])
    game = session.games.get()
    client.force_login(teacher)
    assert client.get(reverse("classrooms:game_replay", args=[game.pk])).status_code == 404
    client.force_login(colleague)
    assert client.get(reverse("classrooms:game_replay", args=[game.pk])).status_code == 200


def test_a_class_game_is_finished_once_its_last_table_ends_and_the_live_view_only_reads(
    client, teacher, classroom, kids
):
    session = start_session(classroom, teacher, [kids[:2], kids[2:4]])
    first, second = session.games.order_by("pk")
    game_services.game_end(game=first)
    assert class_game_services.session_after_game_change(session_id=session.pk) is False
    session.refresh_from_db()
    assert session.status == ClassSession.Status.RUNNING  # one table still plays
    game_services.game_end(game=second)
    session.refresh_from_db()
    before = session.status  # finished already if the games service reported the change
    client.force_login(teacher)
    page = client.get(reverse("classrooms:session_live", args=[session.pk]))
    session.refresh_from_db()
    assert session.status == before  # a GET writes nothing
    assert b"kavet:changed" not in page.content and b"data-stream" not in page.content  # done
    changed = class_game_services.session_after_game_change(session_id=session.pk)
    assert changed is (before != ClassSession.Status.FINISHED)
    session.refresh_from_db()
    assert session.status == ClassSession.Status.FINISHED
    assert class_game_services.session_after_game_change(session_id=session.pk) is False
