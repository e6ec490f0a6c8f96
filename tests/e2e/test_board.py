"""The class board in a real browser, at a projector's sizes: big, live, read-only, and the
mistake of the day found together by the class (R5.6), without a child's name."""

from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Game, Play
from tests import factories
from tests.games.conftest import TABLE_2_3_5, card, tokens

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery"
ZED, MAEL = "Zéphyrinette", "Maëlwennig"
SHOTS = os.environ.get("KAVET_SCREENSHOTS", "/tmp/kavet-board-shots")
PROJECTORS = [{"width": 1920, "height": 1080}, {"width": 1280, "height": 720}]


@pytest.fixture
def table(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    school = factories.school()
    teacher = factories.teacher(school=school, username="yann", password=PASSWORD)
    room = factories.classroom(school=school, teachers=[teacher])
    zed = factories.student(classroom=room, name=ZED, picture_code="0-1-2")
    mael = factories.student(classroom=room, name=MAEL, picture_code="3-4-5")
    return factories.class_table(
        classroom=room, teacher=teacher, students=[zed, mael], label="2", draw_order=TABLE_2_3_5
    )


def submit(game: Game, seat: int, **move) -> None:
    game.refresh_from_db()
    outcome = services.move_submit(game_id=game.pk, seat=seat, move=move, seen_version=game.version)
    assert outcome.applied, outcome.message


def sign_in(page, base: str) -> None:
    page.goto(base + "/login/")
    page.fill("input[name=username]", "yann")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r".*/teacher/.*"))


def vh(page, selector: str, prop: str = "height") -> float:
    """The rendered size of the first match, in percent of the viewport's height."""
    return page.eval_on_selector(
        selector,
        f"(el) => el.getBoundingClientRect().{prop} * 100 / window.innerHeight"
        if prop == "height"
        else f"(el) => parseFloat(getComputedStyle(el).{prop}) * 100 / window.innerHeight",
    )


def shoot(page, name: str) -> None:
    os.makedirs(SHOTS, exist_ok=True)
    size = page.viewport_size
    page.screenshot(path=f"{SHOTS}/{name}-{size['width']}x{size['height']}.png")


@pytest.mark.parametrize("viewport", PROJECTORS, ids=lambda v: f"{v['width']}x{v['height']}")
def test_the_board_is_big_read_only_and_follows_the_table_live(
    new_context, live_server, table, viewport
):
    page = new_context(viewport=viewport).new_page()
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/board/table/{table.pk}/")
    board = page.locator("#board")
    expect(board.locator(".bboard-title")).to_have_text("Table 2")
    expect(board.locator(".bcard")).to_have_count(3)
    expect(board.locator(".bboard-turn")).to_contain_text(f"{ZED}'s turn.")
    # Readable from the back of the room: cards at least 12vh, names at least 4vh.
    assert vh(page, ".bcard") >= 12
    assert vh(page, ".bboard-name", "fontSize") >= 4
    # Nothing for a child to press, nothing private: no buttons, inputs or forms on the board,
    # and the site's header (sign-out, language) hidden.
    assert board.locator("button, input, select, textarea, form").count() == 0
    expect(page.locator(".site-header")).to_be_hidden()
    # Everything fits the projector without scrolling.
    shoot(page, "board-start")
    assert page.evaluate("document.documentElement.scrollHeight <= window.innerHeight + 1")

    # Zed announces a wrong operation on her tablet: the board shows the ruling, big (R4.6).
    submit(table, 0, type="announce", tokens=tokens(card(2), "+", card(5), "=", card(3)))
    ruling = board.locator(".bboard-ruling .ruling")
    expect(ruling).to_contain_text("2 + 5 = 3", timeout=8000)
    expect(ruling).to_contain_text("2 + 5 makes 7, not 3.")
    expect(board.locator(".bboard-turn")).to_contain_text(f"{MAEL}'s turn.")
    expect(board.locator(".bboard-countdown .countdown-num")).to_be_visible()
    assert vh(page, ".ruling-said", "fontSize") >= 3.5
    shoot(page, "board-ruling")
    assert page.evaluate("document.documentElement.scrollHeight <= window.innerHeight + 1")


@pytest.mark.parametrize("viewport", PROJECTORS, ids=lambda v: f"{v['width']}x{v['height']}")
def test_the_mistake_of_the_day_is_found_together_and_names_nobody(
    new_context, live_server, table, viewport
):
    submit(table, 0, type="announce", tokens=tokens(card(2), "+", card(5), "=", card(3)))
    submit(table, 1, type="nothing")  # false: 2 + 3 = 5 was there (R5.6)
    page = new_context(viewport=viewport).new_page()
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/board/session/{table.class_table.session_id}/")
    page.click("text=Mistake of the day")
    rows = page.locator(".board-mistake-link")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("Table 2, move 1")
    expect(rows.nth(0)).to_contain_text("A wrong operation")
    expect(rows.nth(1)).to_contain_text("Table 2, move 2")
    shoot(page, "mistakes-list")
    assert ZED not in page.content() and MAEL not in page.content()

    # The wrong one: the table as it was (2 3 5), what was said, the prompt; no answer yet.
    rows.nth(0).click()
    expect(page.locator(".bmistake-prompt")).to_have_text("Find an operation!")
    expect(page.locator(".bcard")).to_have_text(["2", "3", "5"])
    expect(page.locator(".bmistake-said")).to_contain_text("2 + 5 = 3")
    expect(page.locator(".bmistake-answer")).to_have_count(0)
    assert vh(page, ".bcard") >= 12
    shoot(page, "mistake-prompt")
    assert page.evaluate("document.documentElement.scrollHeight <= window.innerHeight + 1")
    page.click("text=Show the answer")
    answer = page.locator(".bmistake-answer")
    expect(answer).to_contain_text("2 + 5 makes 7, not 3.")
    expect(answer).to_contain_text("2 + 3 = 5")  # the solver, on the same cards (R9.4)
    expect(page.locator(".bcard.is-ruled")).to_have_count(3)
    shoot(page, "mistake-answer")
    assert page.evaluate("document.documentElement.scrollHeight <= window.innerHeight + 1")
    assert ZED not in page.content() and MAEL not in page.content()

    # The missed one: four cards then, and the operation the engine recorded.
    page.click("text=Other mistakes")
    page.locator(".board-mistake-link").nth(1).click()
    expect(page.locator(".bmistake-said")).to_have_text("Someone said “Nothing to do”.")
    expect(page.locator(".bcard")).to_have_count(4)
    page.click("text=Show the answer")
    missed = Play.objects.get(game=table, kind=Play.Kind.NOTHING)
    expect(page.locator(".bmistake-found")).to_contain_text(
        missed.missed_operation.replace(" - ", " − ")
    )
    assert ZED not in page.content() and MAEL not in page.content()
