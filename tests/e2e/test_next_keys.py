"""The builder's keys are the server's and its running results are the engine's (issue 26).

The tablet walks the table of what may come next that the page brings (games/engine/entry.py,
R3.1): here every key's state after each tap is checked against the engine's own walk, and a
doctored table is followed key for key, so the script has no grammar of its own. The running
results (R2.4) come from the server, exact: 7 ÷ 2 shows the engine's 7/2, never "≈ 3.5".

Deck up to 10: card id = 2 × value + copy (tests/games/conftest.py).
"""

from __future__ import annotations

import json
import os

import pytest
from django.utils.html import escape
from playwright.sync_api import expect

from games import services
from games.engine.entry import CLASSES, entry_table, walk
from games.services import timers
from tests import factories
from tests.e2e.helpers import fresh, open_table, sign_in_context

pytestmark = pytest.mark.django_db(transaction=True)
SHOTS = os.environ.get("KAVET_SHOTS", "")


def card(value: int, copy: int = 0) -> int:
    return 2 * value + copy


TABLE = [card(7), card(2), card(5)]
KEY_OF = {"op": "[data-op='/']", "(": "[data-op='(']", ")": "[data-op=')']", "=": "[data-op='=']"}


@pytest.fixture
def expert(monkeypatch, new_context, live_server):
    """Ewen (tier 3, steps shown) and a computer player that waits, at 7 2 5."""
    monkeypatch.setattr(timers, "_bot_delay", lambda strength, rng: 600.0)
    school = factories.school()
    classroom = factories.classroom(school=school)
    ewen = factories.student(classroom=classroom, name="Ewen", tier=3, picture_code="0-1-2")
    game = services.game_start(
        game=services.game_create(
            school=school,
            classroom=classroom,
            label="T1",
            draw_order=TABLE + [card(1), card(4), card(9)],
            players=[{"student": ewen}, {"bot": "medium", "name": "Robo"}],
            settings={"show_steps": True, "turn_time": 0, "challenge_window": 0},
        )
    )
    context = new_context(viewport={"width": 1024, "height": 768})
    sign_in_context(context, live_server, ewen.user)
    return game, context.new_page()


def enabled(page) -> dict[str, bool]:
    """What the tablet turned on: each key class, and any card still free."""
    on = {cls: page.locator(f"#move-form {sel}").is_enabled() for cls, sel in KEY_OF.items()}
    on["card"] = any(
        page.locator(f"#board [data-card='{c}']").is_enabled()
        and page.locator(f"#board [data-card='{c}']").get_attribute("aria-pressed") == "false"
        for c in TABLE
    )
    return on


def expected(tapped: list[dict]) -> dict[str, bool]:
    """The engine's walk: which classes may come next after these taps, with three cards."""
    probe = {"card": {"card": 99}, "op": {"op": "/"}}
    return {
        cls: walk([*tapped, probe.get(cls, {"op": cls})], len(TABLE)) is not None for cls in CLASSES
    }


def test_the_keys_follow_the_engine_and_the_steps_are_exact(expert, live_server) -> None:
    game, page = expert
    open_table(page, live_server, game)
    taps = [
        ("(", "[data-op='(']", {"op": "("}),
        ("card", f"[data-card='{card(7)}']", {"card": card(7)}),
        ("op", "[data-op='/']", {"op": "/"}),
        ("card", f"[data-card='{card(2)}']", {"card": card(2)}),
        (")", "[data-op=')']", {"op": ")"}),
    ]
    tapped: list[dict] = []
    assert enabled(page) == expected(tapped)
    for _cls, selector, token in taps:
        page.click(f"#board {selector}")
        tapped.append(token)
        expect(page.locator(".expr-text")).to_have_text(
            " ".join(
                {"(": "(", ")": ")", "/": "÷"}.get(t.get("op"), "") or str(t["card"] // 2)
                for t in tapped
            )
        )
        assert enabled(page) == expected(tapped), tapped
    # R2.4, R3.2: the engine's exact value, as a wrong operation's reason would show it.
    expect(page.locator(".expr-steps li")).to_have_text(["7 ÷ 2 = 7/2"])
    assert "≈" not in page.locator(".expr-steps").inner_text()
    # Three cards: one is left, the result's. No second operator, "=" yes (R3.1).
    expect(page.locator("[data-op='/']")).to_be_disabled()
    expect(page.locator("[data-op='=']")).to_be_enabled()
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "builder-steps-1024x768.png"))
    # Back to "7" and on to 7 - 2 = 5: the steps follow each tap, the engine judges it right.
    for _ in range(4):
        page.click("#board .key-undo")
    expect(page.locator(".expr-text")).to_have_text("(")
    expect(page.locator(".expr-steps li")).to_have_count(0)
    page.click("#board .key-clear")
    for selector in (f"[data-card='{card(7)}']", "[data-op='-']", f"[data-card='{card(2)}']"):
        page.click(f"#board {selector}")
    expect(page.locator(".expr-steps li")).to_have_text(["7 − 2 = 5"])
    page.click("#board [data-op='=']")
    page.click(f"#board [data-card='{card(5)}']")
    expect(page.locator(".act-announce")).to_be_enabled()
    page.click("button.act-announce")
    expect(page.locator("#board")).to_have_attribute(
        "data-version", str(fresh(game).version), timeout=10_000
    )
    expect(page.locator(".ruling")).to_contain_text("Right!")
    expect(page.locator(".player.is-me .pile")).to_have_text(
        "3 points"
    )  # the trick won (R4.4), counted as R6.3 counts it


def test_the_tablet_walks_whatever_table_the_server_sends(expert, live_server) -> None:
    game, page = expert
    # A table where "(" never comes: the tablet has no grammar of its own to disagree with it.
    doctored = json.loads(json.dumps(entry_table()))
    paren = doctored["classes"].index("(")
    for row in doctored["next"]:
        row[paren] = -1
    real = escape(json.dumps(entry_table(), separators=(",", ":")))

    def swap(route):
        response = route.fetch()
        assert real in response.text()
        body = response.text().replace(real, escape(json.dumps(doctored, separators=(",", ":"))))
        route.fulfill(response=response, body=body)

    page.route(f"{live_server.url}/play/{game.pk}/", swap)
    open_table(page, live_server, game)
    expect(page.locator(f"[data-card='{card(7)}']")).to_be_enabled()
    expect(page.locator("[data-op='(']")).to_be_disabled()


def test_offline_the_steps_wait_and_the_operation_goes_on(expert, live_server) -> None:
    game, page = expert
    open_table(page, live_server, game)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/steps/" in r.url else None)
    page.context.set_offline(True)
    for selector in (f"[data-card='{card(7)}']", "[data-op='-']", f"[data-card='{card(2)}']"):
        page.click(f"#board {selector}")
    page.wait_for_timeout(600)
    expect(page.locator(".expr-text")).to_have_text("7 − 2")
    expect(page.locator(".expr-steps li")).to_have_count(0)
    expect(page.locator("#net-banner")).to_be_hidden()  # a missing preview is no lost move
    page.context.set_offline(False)
    page.click("#board [data-op='=']")  # the next tap asks again
    expect(page.locator(".expr-steps li")).to_have_text(["7 − 2 = 5"])
    assert asked  # debounced: asked after the taps, not once per tap
