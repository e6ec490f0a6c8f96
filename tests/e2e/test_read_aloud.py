"""Read-aloud in a real browser (issue 40): on every page a child sees, the one speaker in the
header says what the page says, through speechSynthesis (stubbed here to record what it is
asked to say), in the page's language; the home fits one screen at 1024×768 and 768×1024; no
Content-Security-Policy violation on the way.

Game states are set up through the real services (games.services) with fixed draw orders, as
tests/e2e/test_table_screens.py does (card id = 2 × value + copy).
"""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from games import services
from games.services import timers
from tests import factories
from tests.e2e.helpers import fresh, move, open_table, sign_in_context

pytestmark = pytest.mark.django_db(transaction=True)

# speechSynthesis stubbed: every utterance asked for is kept with its language; CSP watched.
RECORD = """
window.__said = [];
window.__csp = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__csp.push(e.violatedDirective + " " + (e.blockedURI || "inline"));
});
window.SpeechSynthesisUtterance = function (text) { this.text = text; this.lang = ""; };
Object.defineProperty(window, "speechSynthesis", { value: {
  cancel: function () {},
  speak: function (u) { window.__said.push({ text: u.text, lang: u.lang }); }
}});
"""


def card(value: int, copy: int = 0) -> int:
    return 2 * value + copy


SHOTS = os.environ.get("KAVET_SHOTS", "")  # a folder: save a screenshot of every page there


def said_after_tap(page) -> str:
    if SHOTS:
        size = page.viewport_size
        name = page.url.split("//", 1)[-1].split("/", 1)[-1].strip("/").replace("/", "-") or "root"
        page.screenshot(path=os.path.join(SHOTS, f"{name}-{size['width']}x{size['height']}.png"))
    before = page.evaluate("() => window.__said.length")
    page.locator(".site-header [data-speaker]").click()
    page.wait_for_function(f"() => window.__said.length > {before}")
    last = page.evaluate("() => window.__said[window.__said.length - 1]")
    assert last["lang"] == page.evaluate("() => document.documentElement.lang")
    return last["text"]


def no_violation(page) -> None:
    assert page.evaluate("() => window.__csp") == []


@pytest.fixture
def classroom_and_children(monkeypatch):
    monkeypatch.setattr(timers, "_bot_delay", lambda strength, rng: 600.0)
    monkeypatch.setattr(timers, "_answer_delay", lambda strength, rng: 600.0)
    school = factories.school()
    classroom = factories.classroom(school=school, name="Seals")
    anna = factories.student(classroom=classroom, name="Anna", picture_code="0-1-2")
    bo = factories.student(classroom=classroom, name="Bo", picture_code="3-4-5")
    return school, classroom, anna, bo


@pytest.mark.e2e
def test_the_speaker_says_each_page_a_child_sees(live_server, new_context, classroom_and_children):
    school, classroom, anna, bo = classroom_and_children
    context = new_context(viewport={"width": 1024, "height": 768})
    context.add_init_script(RECORD)
    page = context.new_page()

    # The class code page, then a wrong code: kept in the box, and the reason said.
    page.goto(live_server.url + "/tablet/")
    assert "Which class is this tablet for?" in said_after_tap(page)
    page.fill("#class-code", "NOPE42")
    page.get_by_role("button", name="Remember this class").click()
    expect(page.locator("#class-code")).to_have_value("NOPE42")
    assert "There is no class with this code" in said_after_tap(page)

    # The names, the pictures.
    page.fill("#class-code", classroom.code)
    page.get_by_role("button", name="Remember this class").click()
    assert "Who are you?" in said_after_tap(page)
    page.get_by_role("link", name="Anna").click()
    assert "Tap your three pictures, in order." in said_after_tap(page)
    page.locator(".picture-btn[value='0']").click()  # one picture chosen: "Undo" shows too
    # The pick is a form's post: measure the page it brings, not the one it leaves.
    expect(page.get_by_role("button", name="Undo")).to_be_visible()
    page.wait_for_load_state()
    for width, height in ((1024, 768), (768, 1024)):
        page.set_viewport_size({"width": width, "height": height})
        tall = page.evaluate("document.scrollingElement.scrollHeight")
        assert tall <= height, f"the pictures page is {tall} px tall at {width}×{height}"
    page.set_viewport_size({"width": 1024, "height": 768})
    page.get_by_role("button", name="Undo").click()
    for index in (0, 1, 2):
        page.locator(f".picture-btn[value='{index}']").click()

    # The home: one screen at 1024×768 and 768×1024, each tile said.
    expect(page.locator(".home-tiles")).to_be_visible()
    said = said_after_tap(page)
    for words in ("Hello Anna!", "Play with my class", "Learn to play", "Practise against"):
        assert words in said
    for width, height in ((1024, 768), (768, 1024)):
        page.set_viewport_size({"width": width, "height": height})
        tall = page.evaluate("document.scrollingElement.scrollHeight")
        if SHOTS:
            page.screenshot(path=os.path.join(SHOTS, f"home-{width}x{height}.png"))
        assert tall <= height, f"the home is {tall} px tall at {width}×{height}"
    no_violation(page)

    # A game: the table, its ruling said once, then the pause and the end.
    game = services.game_start(
        game=services.game_create(
            school=school,
            classroom=classroom,
            label="T1",
            draw_order=[card(2), card(3), card(5), card(4), card(1), card(6)],
            players=[{"student": anna}, {"student": bo}],
            settings={"challenge_window": 0, "turn_time": 0},
        )
    )
    page.set_viewport_size({"width": 1024, "height": 768})
    open_table(page, live_server, game)
    assert "Your turn!" in said_after_tap(page)
    move(game, 0, type="announce", text="2 + 3 = 5")
    expect(page.locator("#board")).to_have_attribute("data-version", str(fresh(game).version))
    said = said_after_tap(page)
    assert "Anna says: 2 plus 3 is 5." in said and said.count("2 plus 3 is 5") == 1
    assert "(" not in said and ".." not in said

    services.game_pause(game=fresh(game))
    page.reload()
    assert "The game is paused. Wait for your teacher." in said_after_tap(page)
    services.game_resume(game=fresh(game))
    services.game_end(game=fresh(game))
    page.reload()
    said = said_after_tap(page)
    assert said.startswith("The game was ended early.") or said.startswith("The game is over!")
    assert "Anna" in said and "points" in said
    no_violation(page)


@pytest.mark.e2e
def test_a_french_tablet_says_the_operation_in_french(
    live_server, new_context, classroom_and_children
):
    school, classroom, anna, bo = classroom_and_children
    game = services.game_start(
        game=services.game_create(
            school=school,
            classroom=classroom,
            label="T1",
            draw_order=[card(2), card(3), card(5), card(4), card(1), card(6)],
            players=[{"student": anna}, {"student": bo}],
            settings={"challenge_window": 0, "turn_time": 0},
        )
    )
    move(game, 0, type="announce", text="5 - 3 = 2")
    context = new_context(viewport={"width": 1024, "height": 768}, locale="fr-FR")
    context.add_init_script(RECORD)
    sign_in_context(context, live_server, bo.user)
    page = context.new_page()
    open_table(page, live_server, game)
    said = said_after_tap(page)
    assert "5 moins 3 égale 2" in said, said


@pytest.mark.e2e
def test_a_signed_out_tab_shows_the_sign_in_and_stops_its_stream(
    live_server, new_context, classroom_and_children, monkeypatch
):
    """The stream is refused (403) once the child is signed out: the tab goes to the sign-in
    instead of asking again every 30 s for ever."""
    from games import stream

    monkeypatch.setattr(stream, "LIFETIME", 1.0)  # the server closes each stream at once
    monkeypatch.setattr(stream, "LIFETIME_JITTER", 0.0)
    school, classroom, anna, bo = classroom_and_children
    game = services.game_start(
        game=services.game_create(
            school=school,
            classroom=classroom,
            label="T1",
            players=[{"student": anna}, {"student": bo}],
            settings={"challenge_window": 0, "turn_time": 0},
        )
    )
    context = new_context(viewport={"width": 1024, "height": 768})
    context.add_init_script(RECORD)
    sign_in_context(context, live_server, anna.user)
    page = context.new_page()
    open_table(page, live_server, game)
    context.clear_cookies()  # signed out: the session is gone
    page.wait_for_url(f"{live_server.url}/tablet/", timeout=20000)
    expect(page.locator("#class-code")).to_be_visible()
