"""axe-core on the pages children and teachers use: no serious or critical violation.

Playwright's add_script_tag(path=...) inlines the file's text into a <script> element, which the
site's Content-Security-Policy (script-src 'self') refuses; so this test alone uses a browser
context with bypass_csp=True. Every other browser test runs under the real policy. Motion is
reduced (as the pages honour prefers-reduced-motion), so axe reads colours once settled, not
halfway through the ruling panel's fade-in."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from classrooms import invitations
from games import services
from games.models import Play
from games.services import timers
from reports import services as report_services
from tests import factories
from tests.e2e.helpers import fresh, move, open_table, sign_in_context
from tests.reports.plays import one_move, paris

pytestmark = pytest.mark.django_db(transaction=True)

AXE = Path(__file__).resolve().parent.parent.parent / "node_modules" / "axe-core" / "axe.min.js"
PASSWORD = "a-long-test-password-1"


def serious(page) -> list[str]:
    """axe-core's serious and critical violations. Only the violations are gathered in full
    (resultTypes): axe runs every rule as before, but builds the selectors and summaries of at
    most one node of the passes, the incomplete and the inapplicable, which nothing here reads;
    half the CPU of a full run."""
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): "
        + ", ".join(f"{n['target']} {n.get('failureSummary', '')[-160:]!r}" for n in v["nodes"])
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.fixture
def axe_page(new_context):
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run npm ci (package.json pins axe-core)")
    return new_context(
        bypass_csp=True, reduced_motion="reduce", viewport={"width": 1024, "height": 768}
    ).new_page()


def test_tablet_sign_in_pages_and_how_to_pages(axe_page, live_server):
    classroom = factories.classroom(school=factories.school())
    factories.student(classroom=classroom, name="Anna", picture_code="0-1-2")
    page, found = axe_page, {}
    page.goto(live_server.url + "/tablet/")
    found["class code"] = serious(page)
    page.fill("#class-code", classroom.code)
    page.click("button[type=submit]")
    page.wait_for_selector("a.name-btn")
    found["names"] = serious(page)
    page.click("a.name-btn:has-text('Anna')")
    page.wait_for_selector("button.picture-btn")
    found["pictures"] = serious(page)
    page.goto(live_server.url + "/how-to-play/")
    found["how to play (children)"] = serious(page)
    page.context.clear_cookies()  # a new tablet opens the class board's QR code
    page.goto(f"{live_server.url}/tablet/?code={classroom.code}")
    page.wait_for_selector("#class-code")
    found["class code filled in"] = serious(page)
    page.goto(live_server.url + "/how-to-play/teachers/")
    found["how to play (teachers)"] = serious(page)
    assert {name: v for name, v in found.items() if v} == {}


def test_teacher_class_page(axe_page, live_server):
    school = factories.school()
    teacher = factories.teacher(school=school, username="yann", password=PASSWORD)
    classroom = factories.classroom(school=school, teachers=[teacher])
    factories.student(classroom=classroom, name="Anna", picture_code="0-1-2")
    page = axe_page
    page.goto(live_server.url + "/login/")
    page.fill("input[name=username]", "yann")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("h1:has-text('My classes')")
    found = {"teacher home": serious(page)}
    page.goto(f"{live_server.url}/teacher/classes/{classroom.pk}/")
    found["class page"] = serious(page)
    assert {name: v for name, v in found.items() if v} == {}


# --- issue 10: the table in every phase, the teacher's, the parent's and the board's pages -----

VIEWPORTS = {"1024x768": (1024, 768), "768x1024": (768, 1024)}
X, DAOU, PEVAR, PEMP, CHWECH = 22, 27, 29, 30, 31  # tests/games/conftest.py's deck up to 10


def card(value: int, copy: int = 0) -> int:
    return 2 * value + copy


def signed_in(new_context, live_server, user, size="1024x768"):
    """A page of a context signed in as `user` (the session of a real login), CSP bypassed."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run npm ci (package.json pins axe-core)")
    width, height = VIEWPORTS[size]
    context = new_context(
        bypass_csp=True, reduced_motion="reduce", viewport={"width": width, "height": height}
    )
    sign_in_context(context, live_server, user)
    return context.new_page()


def visit(page, url: str, status: int = 200) -> None:
    response = page.goto(url)
    assert response is not None and response.status == status, (url, response and response.status)


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_the_table_in_every_phase(new_context, live_server, monkeypatch, size):
    monkeypatch.setattr(timers, "_bot_delay", lambda strength, rng: 600.0)
    monkeypatch.setattr(timers, "_answer_delay", lambda strength, rng: 600.0)
    school = factories.school()
    classroom = factories.classroom(school=school)
    anna = factories.student(classroom=classroom, name="Anna", picture_code="0-1-2")
    bo = factories.student(classroom=classroom, name="Bo", picture_code="3-4-5")
    game = services.game_start(
        game=services.game_create(
            school=school,
            classroom=classroom,
            label="T1",
            # Anna holds PEVAR, PEMP, DAOU and C'HWEC'H; the table is 2 3 X.
            draw_order=[PEVAR, PEMP, DAOU, CHWECH, card(2), card(3), X]
            + [card(v) for v in (9, 7, 1, 4)],
            players=[{"student": anna}, {"student": bo}, {"bot": "medium", "name": "Robo"}],
            settings={"challenge_window": 120, "turn_time": 0, "challenge_time": 120},
        )
    )
    a = signed_in(new_context, live_server, anna.user, size)
    b = signed_in(new_context, live_server, bo.user, size)
    open_table(a, live_server, game)
    open_table(b, live_server, game)
    found = {"your turn": serious(a), "someone else's turn": serious(b)}
    a.click(f".table-cards .card[data-card='{X}']")
    a.wait_for_selector(".numpad [data-action=x-ok]")
    found["the X number pad"] = serious(a)
    # Anna announces 2 + 3 = X(6): the challenge window, on Bo's tablet.
    move(
        game,
        0,
        type="announce",
        tokens=[{"card": card(2)}, {"op": "+"}, {"card": card(3)}, {"op": "="}, {"card": X}],
        x_values={str(X): 6},
    )
    open_table(b, live_server, game)
    b.wait_for_selector(".act-challenge")
    found["the challenge window"] = serious(b)
    move(game, 1, type="challenge")
    open_table(a, live_server, game)
    a.wait_for_selector(".act-chwech-yes")
    found["C'HWEC'H offered"] = serious(a)
    services.game_end(game=fresh(game))
    open_table(a, live_server, game)
    a.wait_for_selector(".end-screen h2")
    found["the end screen"] = serious(a)
    assert {name: v for name, v in found.items() if v} == {}


@pytest.fixture
def running_class(monkeypatch):
    """A teacher's class with a class game running (one table, Anna and Bo) and two mistakes."""
    monkeypatch.setattr(timers, "_bot_delay", lambda strength, rng: 600.0)
    school = factories.school()
    teacher = factories.teacher(school=school, username="yann", password=PASSWORD)
    room = factories.classroom(school=school, teachers=[teacher])
    anna = factories.student(classroom=room, name="Anna", picture_code="0-1-2")
    bo = factories.student(classroom=room, name="Bo", picture_code="3-4-5")
    game = factories.class_table(
        classroom=room,
        teacher=teacher,
        students=[anna, bo],
        draw_order=[card(2), card(3), card(5), card(1), card(4), card(9)],
    )
    session = game.class_table.session
    move(game, 0, type="announce", text="2 + 5 = 3")  # wrong (R3.5)
    move(game, 1, type="nothing")  # false: 2 + 3 = 5 was there (R5.6)
    return {
        "teacher": teacher,
        "room": room,
        "anna": anna,
        "bo": bo,
        "session": session,
        "game": game,
    }


def test_teacher_pages_of_a_running_class_and_the_board(new_context, live_server, running_class):
    room, game, session = running_class["room"], running_class["game"], running_class["session"]
    base, anna = live_server.url, running_class["anna"]
    page = signed_in(new_context, live_server, running_class["teacher"])
    found = {}
    pages = {
        "live view": f"/teacher/class-games/{session.pk}/",
        "student edit": f"/teacher/classes/{room.pk}/students/{anna.pk}/",
        "class game setup": f"/teacher/classes/{room.pk}/play/",
        "levels": f"/teacher/classes/{room.pk}/levels/",
        "practice goals": f"/teacher/classes/{room.pk}/practice/",
        "board: table": f"/board/table/{game.pk}/",
        "board: session": f"/board/session/{session.pk}/",
        "board: session mistakes": f"/board/session/{session.pk}/mistakes/",
        "board: class mistakes": f"/board/class/{room.pk}/mistakes/",
        "class page, a class game going on": f"/teacher/classes/{room.pk}/",
        "live skill grid": f"/reports/live/{session.pk}/",
        "live skill grid: a cell's moves": f"/reports/live/{session.pk}/cell/{anna.pk}/addsub_10/",
        "replay at a move": f"/teacher/games/{game.pk}/replay/?move=1",
    }
    # A second class with no game: its class page's "Play now" and its board's join screen.
    second = factories.classroom(school=room.school, teachers=[running_class["teacher"]])
    factories.student(classroom=second, name="Gwen", picture_code="6-7-8")
    pages["class page: play now"] = f"/teacher/classes/{second.pk}/"
    pages["board: the teacher's classes"] = "/board/"
    pages["board: how tablets join"] = f"/board/class/{second.pk}/"
    for name, url in pages.items():
        visit(page, base + url)
        found[name] = serious(page)
    wrong = Play.objects.filter(game=game).order_by("pk").first()
    visit(page, f"{base}/board/mistake/{wrong.pk}/")
    found["board: a mistake"] = serious(page)
    page.click("text=Show the answer")
    page.wait_for_selector(".bmistake-answer")
    found["board: a mistake's answer"] = serious(page)
    assert {name: v for name, v in found.items() if v} == {}


def test_reports_pages_of_teacher_and_parent(new_context, live_server, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    school = factories.school()
    teacher = factories.teacher(school=school, username="yann", password=PASSWORD)
    room = factories.classroom(school=school, teachers=[teacher])
    anna = factories.student(classroom=room, name="Anna")
    for day in (3, 10):
        one_move(classroom=room, student=anna, move="2 + 3 = 5", at=paris(2026, 11, day, 9, 0))
        one_move(classroom=room, student=anna, move="5 + 2 = 3", at=paris(2026, 11, day, 10, 0))
    for monday in (date(2026, 11, 2), date(2026, 11, 9)):
        report_services.report_build(student=anna, week_start=monday)
    _invite, code = invitations.create(report_services.PARENT_CODE, target=anna, by=teacher)
    parent = factories.parent(school=school, username="annas-dad", password=PASSWORD)
    invitations.redeem(report_services.PARENT_CODE, code, parent=parent)
    base, found = live_server.url, {}

    page = signed_in(new_context, live_server, teacher)
    for name, url in {
        "class report": f"/reports/class/{room.pk}/",
        "teacher's student report": f"/reports/student/{anna.pk}/",
        "a figure's moves (teacher)": f"/reports/student/{anna.pk}/moves/?f=week:wrong",
        "a class figure's moves": f"/reports/class/{room.pk}/moves/?week=2026-11-09"
        "&f=week:mistake_code.wrong_result",
    }.items():
        visit(page, base + url)
        found[name] = serious(page)
    page = signed_in(new_context, live_server, parent)
    for name, url in {
        "parent home": "/reports/",
        "child report": f"/reports/child/{anna.pk}/",
        "a figure's moves (parent)": f"/reports/child/{anna.pk}/moves/?f=week:announcements",
        "weekly email settings": "/reports/email/",
        "privacy": "/privacy/",
    }.items():
        visit(page, base + url)
        found[name] = serious(page)
    visit(page, base + "/teacher/", 403)
    found["403 (a parent on a teacher's page)"] = serious(page)
    visit(page, base + "/no-such-page/", 404)
    found["404"] = serious(page)
    assert {name: v for name, v in found.items() if v} == {}


def test_error_pages_signed_out(axe_page, live_server):
    page, found = axe_page, {}
    visit(page, live_server.url + "/no-such-page/", 404)
    found["404 signed out"] = serious(page)
    visit(page, live_server.url + "/play/999999/", 404)
    found["404 on a tablet path"] = serious(page)
    visit(page, live_server.url + "/privacy/")
    found["privacy signed out"] = serious(page)
    assert {name: v for name, v in found.items() if v} == {}
