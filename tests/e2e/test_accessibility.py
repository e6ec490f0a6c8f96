"""axe-core on the pages children and teachers use: no serious or critical violation.

Playwright's add_script_tag(path=...) inlines the file's text into a <script> element, which the
site's Content-Security-Policy (script-src 'self') refuses; so this test alone uses a browser
context with bypass_csp=True. Every other browser test runs under the real policy."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)

AXE = Path(__file__).resolve().parent.parent.parent / "node_modules" / "axe-core" / "axe.min.js"
PASSWORD = "a-long-test-password-1"


def serious(page) -> list[str]:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => await axe.run(document)")
    return [
        f"{v['id']} ({v['impact']}): " + ", ".join(str(n["target"]) for n in v["nodes"])
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.fixture
def axe_page(new_context):
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run npm ci (package.json pins axe-core)")
    return new_context(bypass_csp=True, viewport={"width": 1024, "height": 768}).new_page()


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
