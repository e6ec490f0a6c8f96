"""The teacher's live class view in a real browser: a move at one table brings that table
alone, and the timer's poll only the tables the page shows out of date (issue 38: the view
re-rendered every table of the class game on every move of any)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from classgames.models import ClassSession
from games.models import Game
from tests import factories
from tests.e2e.helpers import STREAM_UP, wait_stream_up
from tests.e2e.test_board import PASSWORD, sign_in, submit
from tests.games.conftest import TABLE_2_3_5, card, tokens

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_move_brings_its_table_alone(new_context, live_server, settings):  # R4.6
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    school = factories.school()
    teacher = factories.teacher(school=school, username="yann", password=PASSWORD)
    room = factories.classroom(school=school, teachers=[teacher])
    kids = [
        factories.student(classroom=room, name=name, picture_code=f"{i}-{i + 1}-{i + 2}")
        for i, name in enumerate(["Zed", "Mael", "Anna", "Bo"])
    ]
    first = factories.class_table(
        classroom=room, teacher=teacher, students=kids[:2], label="1", draw_order=TABLE_2_3_5
    )
    session = ClassSession.objects.get(tables__game=first)
    second = factories.class_table(
        classroom=room, students=kids[2:], label="2", draw_order=TABLE_2_3_5, session=session
    )
    context = new_context(viewport={"width": 1280, "height": 800})
    context.add_init_script(STREAM_UP)
    page = context.new_page()
    sign_in(page, live_server.url)
    asked: list[str] = []
    page.on("request", lambda r: "/teacher/class-games/" in r.url and asked.append(r.url))
    page.goto(f"{live_server.url}/teacher/class-games/{session.pk}/")
    wait_stream_up(page)
    section = page.locator(f'section[data-table="{second.pk}"]')
    expect(section.locator(".phase")).to_contain_text("Anna's turn")
    page.wait_for_timeout(3000)  # the timer's first tick (the whole view) has gone by
    asked.clear()

    # Anna announces a wrong operation at table 2: her table shows Bo's turn, alone asked for.
    submit(second, 0, type="announce", tokens=tokens(card(2), "+", card(5), "=", card(3)))
    expect(section.locator(".phase")).to_contain_text("Bo's turn", timeout=8000)
    one = re.compile(rf"/teacher/class-games/{session.pk}/tables/{second.pk}/$")
    assert asked and all(one.search(url) for url in asked), asked
    expect(page.locator(f'section[data-table="{first.pk}"] .phase')).to_contain_text("Zed's turn")
    expect(page.locator("section.live-table")).to_have_count(2)

    # The whole view's poll now sends the page's marks, table 2's new one included: the server
    # has nothing to send (204), and the page's "updated" time moves on.
    clock = page.locator("[data-live-clock]")
    page.wait_for_timeout(1100)  # a second later, so the time shown must change
    shown = clock.inner_text()
    with page.expect_response(
        lambda r: re.search(rf"/teacher/class-games/{session.pk}/\?v=", r.url) is not None
    ) as polled:
        page.evaluate("document.dispatchEvent(new CustomEvent('kavet:changed', {detail: {}}))")
    assert polled.value.status == 204, polled.value.url
    expect(clock).not_to_have_text(shown)
    expect(section.locator(".phase")).to_contain_text("Bo's turn")

    # Table 1 has had no move for four minutes (no push says so: only the clock moved): the
    # poll brings table 1's section alone, swapped into its place, and the "updated" time.
    long_ago = timezone.now() - timedelta(minutes=4)
    Game.objects.filter(pk=first.pk).update(
        last_move_at=long_ago, started_at=long_ago, phase_started_at=long_ago
    )
    page.wait_for_timeout(1100)
    shown = clock.inner_text()
    with page.expect_response(
        lambda r: re.search(rf"/teacher/class-games/{session.pk}/\?v=", r.url) is not None
    ) as polled:
        page.evaluate("document.dispatchEvent(new CustomEvent('kavet:changed', {detail: {}}))")
    assert polled.value.status == 200 and polled.value.headers.get("hx-reswap") == "none"
    assert f'data-table="{second.pk}"' not in polled.value.text()
    first_section = page.locator(f'section[data-table="{first.pk}"]')
    expect(first_section.locator(".flag").first).to_contain_text("No move for 4 minutes")
    expect(first_section).not_to_have_attribute("hx-swap-oob", re.compile(".*"))
    expect(page.locator("section.live-table")).to_have_count(2)
    expect(page.locator("#live")).to_have_count(1)
    expect(page.locator("[data-live-clock]")).to_have_count(1)
    expect(clock).not_to_have_text(shown)
    expect(section.locator(".phase")).to_contain_text("Bo's turn")
    expect(page.get_by_role("button", name="Pause all tables")).to_be_visible()
    # The page shows it all again: the next poll is a 204.
    with page.expect_response(
        lambda r: re.search(rf"/teacher/class-games/{session.pk}/\?v=", r.url) is not None
    ) as polled:
        page.evaluate("document.dispatchEvent(new CustomEvent('kavet:changed', {detail: {}}))")
    assert polled.value.status == 204, polled.value.url
