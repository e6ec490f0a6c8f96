"""The child's tablet, one screen per phase (issue 10): at 1024×768, 1280×800 and 768×1024 every
control of the phase is inside the window and the page never scrolls; the ruling stays on screen;
the keys can't build an unreadable operation; a half-built operation survives a reload; a Wi-Fi
drop shows "Reconnecting…" and the move is applied exactly once.

Game states are set up through the real services (games.services) with fixed draw orders. The
deck up to 10: card id = 2 × value + copy, X cards 22–25, events UNAN 26, DAOU 27, TRI 28,
PEVAR 29, PEMP 30, C'HWEC'H 31 (tests/games/conftest.py).
"""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Move, Play
from games.services import timers
from tests import factories
from tests.e2e.helpers import fresh, move, open_table, sign_in_context

pytestmark = pytest.mark.django_db(transaction=True)

VIEWPORTS = {"1024x768": (1024, 768), "1280x800": (1280, 800), "768x1024": (768, 1024)}
SHOTS = os.environ.get("KAVET_SHOTS", "")  # a folder: save a screenshot of every screen there
X, DAOU, PEVAR, PEMP, CHWECH = 22, 27, 29, 30, 31


def card(value: int, copy: int = 0) -> int:
    return 2 * value + copy


T_2_3_5 = [card(2), card(3), card(5)]


@pytest.fixture
def table(monkeypatch):
    """A table of Anna, Bo and a computer player that waits (so the states hold still)."""
    monkeypatch.setattr(timers, "_bot_delay", lambda strength, rng: 600.0)
    monkeypatch.setattr(timers, "WINDOW_ANSWER_DELAY", (600.0, 600.0))
    school = factories.school()
    classroom = factories.classroom(school=school)
    anna = factories.student(classroom=classroom, name="Anna", picture_code="0-1-2")
    bo = factories.student(classroom=classroom, name="Bo", picture_code="3-4-5")

    def make(draw, players=None, **settings):
        settings.setdefault("challenge_window", 120)
        settings.setdefault("turn_time", 0)
        settings.setdefault("challenge_time", 120)
        game = services.game_create(
            school=school,
            classroom=classroom,
            label="T1",
            draw_order=draw,
            players=players
            or [{"student": anna}, {"student": bo}, {"bot": "medium", "name": "Robo"}],
            settings=settings,
        )
        return services.game_start(game=game)

    make.classroom, make.anna, make.bo = classroom, anna, bo
    return make


def tablet(new_context, live_server, student, size, **options):
    """A signed-in tablet (the session of a real login, without tapping the pictures)."""
    width, height = VIEWPORTS[size]
    context = new_context(viewport={"width": width, "height": height}, **options)
    sign_in_context(context, live_server, student.user)
    return context.new_page()


def assert_one_screen(page, selectors, name):
    """Every control named is inside the window, and the document does not scroll."""
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"))
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    scroll = page.evaluate("document.scrollingElement.scrollHeight")
    assert scroll <= height, f"{name}: the page scrolls ({scroll} > {height})"
    for selector in selectors:
        items = page.locator(selector)
        assert items.count() >= 1, f"{name}: no {selector}"
        for i in range(items.count()):
            box = items.nth(i).bounding_box()
            assert box is not None, f"{name}: {selector} is not shown"
            assert box["x"] >= 0 and box["y"] >= 0, f"{name}: {selector} starts off-screen {box}"
            assert box["x"] + box["width"] <= width + 0.5, (
                f"{name}: {selector} is cut at the right {box}"
            )
            assert box["y"] + box["height"] <= height + 0.5, (
                f"{name}: {selector} is below the window {box}"
            )


BUILD = [".table-cards .card", ".keys .key", ".expression", ".act-announce", ".history summary"]


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_every_phase_fits_one_screen(table, new_context, live_server, size):
    # Anna holds PEVAR, PEMP, DAOU and C'HWEC'H; the table is 2 3 X (the X pad, the trick choice).
    game = table(
        [PEVAR, PEMP, DAOU, CHWECH, card(2), card(3), X, card(9), card(7), card(1), card(4)]
    )
    anna = tablet(new_context, live_server, table.anna, size)
    bo = tablet(new_context, live_server, table.bo, size)
    open_table(anna, live_server, game)
    open_table(bo, live_server, game)
    # Your turn, with where a trick goes (PEVAR / PEMP / DAOU, each explained) and the X pad open.
    assert_one_screen(
        anna,
        BUILD + [".act-nothing", ".place-choice .place"],
        f"your-turn-{size}",
    )
    # R7.3: the tile chosen says what its card does, under the row of pictures.
    expect(anna.locator(".place-choice .place")).to_have_count(4)
    anna.click(".place-daou")
    expect(anna.locator(".place-explain")).to_contain_text("DAOU")
    assert_one_screen(anna, BUILD + [".act-nothing", ".place-explain"], f"your-turn-daou-{size}")
    anna.click(f".table-cards .card[data-card='{X}']")
    assert_one_screen(
        anna,
        [".numpad .key:visible", ".numpad [data-action=x-ok]", ".act-announce", ".act-nothing"],
        f"x-pad-{size}",
    )
    # Someone else's turn.
    assert_one_screen(
        bo,
        [".table-cards .card", ".whose-turn", ".player", ".history summary"],
        f"other-turn-{size}",
    )

    # Anna announces a wrong operation (2 + 3 = X(6)); the challenge window, on Bo's tablet.
    move(
        game,
        0,
        type="announce",
        tokens=[{"card": card(2)}, {"op": "+"}, {"card": card(3)}, {"op": "="}, {"card": X}],
        x_values={str(X): 6},
    )
    open_table(bo, live_server, game)
    assert_one_screen(
        bo, [".act-challenge", ".act-ok", ".ruling", ".table-cards .card"], f"window-{size}"
    )

    # Bo says "Kavet 'm eus!": Anna holds C'HWEC'H, so she is offered a second chance first.
    move(game, 1, type="challenge")
    open_table(anna, live_server, game)
    assert_one_screen(
        anna, [".act-chwech-yes", ".act-chwech-no", ".explain", ".ruling"], f"chwech-{size}"
    )
    move(game, 0, type="chwech", use=False)
    # The challenger's announcement.
    open_table(bo, live_server, game)
    assert_one_screen(bo, BUILD + [".ruling"], f"challenger-{size}")
    move(
        game,
        1,
        type="announce",
        tokens=[{"card": card(2)}, {"op": "+"}, {"card": X}, {"op": "="}, {"card": card(3)}],
        x_values={str(X): 1},
    )
    # The ruling: many lines (two verdicts, the outcome, where the cards went) and Bo plays on.
    open_table(bo, live_server, game)
    assert_one_screen(bo, BUILD + [".ruling .verdict-reason", ".consequences li"], f"ruling-{size}")

    # Paused by the teacher.
    services.game_pause(game=fresh(game))
    open_table(anna, live_server, game)
    assert_one_screen(
        anna, [".banner-paused", ".table-cards .card", ".history summary"], f"paused-{size}"
    )
    services.game_resume(game=fresh(game))
    # The end screen.
    services.game_end(game=fresh(game))
    open_table(anna, live_server, game)
    assert_one_screen(anna, [".end-screen h2", ".ranking .rank", ".end-screen .btn"], f"end-{size}")


def test_the_ruling_stays_with_its_reason_and_the_header_is_not_the_challenge(
    table, new_context, live_server
):
    game = table(T_2_3_5 + [card(1), card(4), card(9)])
    anna = tablet(new_context, live_server, table.anna, "1024x768")
    open_table(anna, live_server, game)
    # R3.5 wrong: "2 + 5 = 3" is shown to everyone with its reason, once it is challenged.
    for selector in (
        f"[data-card='{card(2)}']",
        "[data-op='+']",
        f"[data-card='{card(5)}']",
        "[data-op='=']",
        f"[data-card='{card(3)}']",
    ):
        anna.click(f"#board {selector}")
    anna.click("button.act-announce")
    expect(anna.locator(".ruling")).to_contain_text("Is it right?")
    move(game, 1, type="challenge")
    move(game, 1, type="announce", text="2 + 3 = 5")  # R5.4: a right challenge
    ruling = anna.locator(".ruling")
    expect(ruling.locator(".verdict-bad .verdict-reason").first).to_have_text(
        "2 + 5 makes 7, not 3.", timeout=10_000
    )
    # Causes before consequences: Anna's wrong operation, then Bo's right one, then the outcome.
    text = ruling.inner_text()
    assert (
        text.index("Wrong!")
        < text.index("Right!")
        < text.index("Good catch!")
        < text.index("Bo wins 3 cards")
    )
    anna.wait_for_timeout(5000)
    expect(ruling.locator(".verdict-reason").first).to_be_visible()
    expect(ruling).to_contain_text("2 + 5 makes 7, not 3.")
    # The header's link reads "Home", never the game's name (the challenge button's words).
    expect(anna.locator(".site-header .brand")).to_have_text("Home")
    expect(anna.locator(".site-header")).not_to_contain_text("Kavet 'm eus")


def test_a_false_nothing_shows_the_possible_operation_to_the_child(table, new_context, live_server):
    game = table(T_2_3_5 + [card(1), card(4), card(9)], challenge_window=0)
    anna = tablet(new_context, live_server, table.anna, "768x1024")
    open_table(anna, live_server, game)
    anna.click("button.act-nothing")
    # R5.6: the operation that was possible with the table's own cards, on her own screen.
    expect(anna.locator(".ruling .verdict-bad")).to_contain_text("Not true!")
    expect(anna.locator(".ruling .verdict-reason")).to_contain_text("2 + 3 = 5")
    expect(anna.locator(".table-cards .card.is-ruled")).to_have_count(3)


def test_the_keys_never_build_an_unreadable_operation_and_a_reload_keeps_it(
    table, new_context, live_server
):
    game = table(T_2_3_5 + [card(1), card(4), card(9)])
    anna = tablet(new_context, live_server, table.anna, "1280x800")
    open_table(anna, live_server, game)
    expect(anna.locator("[data-op='=']")).to_be_disabled()  # "=" too early
    expect(anna.locator("[data-op='+']")).to_be_disabled()  # an operator before any card
    expect(anna.locator("[data-op=')']")).to_be_disabled()  # ")" without its "("
    anna.click(f"[data-card='{card(2)}']")
    expect(anna.locator(f"[data-card='{card(3)}']")).to_be_disabled()  # two cards in a row
    anna.dblclick("[data-op='+']")
    anna.click("[data-op='+']", force=True)
    expect(anna.locator(".expr-text")).to_have_text("2 +")  # one "+", however often it is tapped
    expect(anna.locator("[data-op='=']")).to_be_disabled()
    # R2.1: a tier-1 table has no × or ÷ key at all.
    expect(anna.locator("[data-op='*']")).to_have_count(0)
    anna.reload()
    expect(anna.locator(".expr-text")).to_have_text("2 +")
    anna.click(f"[data-card='{card(3)}']")
    anna.click("[data-op='=']")
    expect(anna.locator("[data-op='=']")).to_be_disabled()  # "=" twice
    anna.click(f"[data-card='{card(5)}']")
    expect(anna.locator(".expr-text")).to_have_text("2 + 3 = 5")
    # The table changes under it (Anna says nothing on another tablet's page): it is dropped.
    move(game, 0, type="nothing")
    expect(anna.locator("#board")).to_have_attribute(
        "data-version", str(fresh(game).version), timeout=10_000
    )
    anna.reload()
    expect(anna.locator(".expr-text")).to_have_count(0)


def test_a_wifi_drop_shows_reconnecting_and_the_move_is_applied_once(
    table, new_context, live_server
):
    game = table(T_2_3_5 + [card(1), card(4), card(9)])
    anna = tablet(new_context, live_server, table.anna, "1024x768")
    open_table(anna, live_server, game)
    before = fresh(game).version
    anna.context.set_offline(True)
    anna.click("button.act-nothing")
    expect(anna.locator("#net-banner")).to_be_visible()
    expect(anna.locator("#net-banner")).to_have_text("Reconnecting…")
    anna.wait_for_timeout(1500)
    anna.context.set_offline(False)
    expect(anna.locator("#net-banner")).to_be_hidden(timeout=20_000)
    expect(anna.locator("#board")).to_have_attribute(
        "data-version", str(before + 1), timeout=10_000
    )
    assert fresh(game).version == before + 1
    assert Play.objects.filter(game=game, kind=Play.Kind.NOTHING).count() == 1
    expect(anna.locator(".ruling")).to_contain_text("Nothing to do.")


def test_a_move_whose_answer_was_lost_is_sent_again_and_applied_once(
    table, new_context, live_server
):
    """The move reached the server but its answer was lost: the resend is refused as stale and
    the tablet just shows the fresh table, without a scary message."""
    game = table(T_2_3_5 + [card(1), card(4), card(9)])
    anna = tablet(new_context, live_server, table.anna, "1024x768")
    open_table(anna, live_server, game)
    before = fresh(game).version
    lost = []

    def lose_the_answer(route):
        if not lost:
            route.fetch()  # the server applies it ...
            lost.append(True)
            route.abort("connectionreset")  # ... and the answer never arrives
        else:
            route.continue_()

    anna.route("**/move/", lose_the_answer)
    anna.click("button.act-nothing")
    expect(anna.locator("#board")).to_have_attribute(
        "data-version", str(before + 1), timeout=20_000
    )
    expect(anna.locator("#net-banner")).to_be_hidden()
    assert Move.objects.filter(game=game, number__gt=before).count() == 1
    assert Play.objects.filter(game=game, kind=Play.Kind.NOTHING).count() == 1
    expect(anna.locator(".news-flash")).to_have_count(0)


def test_in_portrait_every_player_box_holds_its_name_robot_and_cards(
    table, new_context, live_server
):
    # Four seats share the portrait row beside the history button; a long name ("Ordinateur 1"
    # in French) wraps and its robot stays inside its own box, not under the next control.
    jade = factories.student(classroom=table.classroom, name="Jade", picture_code="6-7-8")
    players = [{"student": table.anna}, {"student": table.bo}, {"student": jade}, {"bot": "easy"}]
    game = table([card(2), card(3), card(5), card(9), card(7), card(1), card(4)], players=players)
    page = tablet(new_context, live_server, table.anna, "768x1024", locale="fr-FR")
    open_table(page, live_server, game)
    expect(page.locator(".player").nth(3)).to_contain_text("Ordinateur 1")
    assert_one_screen(page, [".player", ".player .bot-badge", ".history summary"], "seats-768")
    history = page.locator(".history summary").bounding_box()
    for i in range(page.locator(".player").count()):
        player = page.locator(".player").nth(i)
        box = player.bounding_box()
        assert box["x"] + box["width"] <= history["x"], f"player {i} runs under the history"
        inside = player.locator("> *")
        for j in range(inside.count()):
            part = inside.nth(j).bounding_box()
            assert box["x"] - 0.5 <= part["x"], f"player {i}, part {j} starts outside {part}"
            assert part["x"] + part["width"] <= box["x"] + box["width"] + 0.5, (
                f"player {i}, part {j} ends outside its box {part} {box}"
            )
        badge = player.locator(".bot-badge")
        if badge.count():
            part = badge.bounding_box()
            assert part["x"] + part["width"] <= box["x"] + box["width"] + 0.5, (
                f"player {i}'s robot is out of its box {part} {box}"
            )
