"""The school admin's pages in a real browser (issue 37): axe-core reports no serious or
critical problem at 1280×800 and on a phone, and the roster import and the teacher's "Play now"
are done with the keyboard alone (Tab to reach, Enter or Space to act).

axe-core is inlined as test_accessibility.py does it (a context with bypass_csp=True); the
keyboard tests run under the site's real Content-Security-Policy."""

from __future__ import annotations

import re

import pytest
from axes.models import AccessAttempt
from django.utils import timezone
from playwright.sync_api import expect

from classgames.models import ClassSession
from classrooms import services
from classrooms.models import Student
from games.models import Seat
from kavet_site.throttles.models import SignInFlood
from tests import factories
from tests.e2e.helpers import sign_in_context
from tests.e2e.test_accessibility import AXE, serious

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {"1280x800": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture
def school_world():
    school = factories.school()
    admin = factories.school_admin(school=school, username="head")
    admin.first_name = "Rozenn"
    admin.save()
    teacher = factories.teacher(school=school, username="yann", first_name="Yann")
    year = services.school_year_current()
    cp = factories.classroom(school=school, teachers=[teacher], name="CP", school_year=year)
    ce1 = factories.classroom(school=school, teachers=[teacher], name="CE1", school_year=year)
    for name in ("Anna", "Bleuenn"):
        factories.student(classroom=cp, name=name)
    factories.student(classroom=ce1, name="Corentin")
    AccessAttempt.objects.create(
        username="yann",
        ip_address="10.1.2.3",
        user_agent="browser",
        http_accept="*/*",
        path_info="/login/",
        get_data="",
        post_data="",
        failures_since_start=5,
    )
    now = timezone.now()
    SignInFlood.objects.create(
        address="10.1.2.3", started_at=now, last_at=now, names=40, failures=80
    )
    return school, admin, teacher, cp


def _page(new_context, live_server, user, size: str, *, axe: bool = True):
    if axe and not AXE.exists():
        pytest.fail(f"{AXE} is missing: run npm ci (package.json pins axe-core)")
    mobile = {"is_mobile": True, "has_touch": True} if size == "phone" else {}
    context = new_context(bypass_csp=axe, reduced_motion="reduce", viewport=SIZES[size], **mobile)
    sign_in_context(context, live_server, user)
    return context.new_page()


@pytest.mark.parametrize("size", list(SIZES))
def test_every_school_admin_page_has_no_serious_problem(
    new_context, live_server, school_world, size
):
    school, admin, teacher, cp = school_world
    page = _page(new_context, live_server, admin, size)
    base = live_server.url + "/school/"
    found = {}
    for name, path in [
        ("overview", ""),
        ("staff", "staff/"),
        ("classes", "classes/"),
        ("settings", "settings/"),
        ("data", "data/?q=Anna"),
        ("import", "import/"),
        ("new school year", "year/"),
    ]:
        response = page.goto(base + path)
        assert response is not None and response.status == 200, path
        found[name] = serious(page)
    # The import's preview, with a row in error and rows that are fine.
    page.goto(base + "import/")
    page.fill("textarea[name=paste]", "First name,Class,Level\nAnna,CP,20/2\nDewi,CP\nGwen,CM2,9\n")
    page.click("button[name=preview]")
    page.wait_for_selector("table.roster-preview")
    found["import preview"] = serious(page)
    # The rollover's preview.
    page.goto(base + "year/")
    page.click("button[name=preview]")
    page.wait_for_selector("text=Confirm the new school year")
    found["new school year preview"] = serious(page)
    page.goto(live_server.url + "/accessibility/")
    found["accessibility page"] = serious(page)
    assert {name: v for name, v in found.items() if v} == {}


def _tab_to(page, selector: str, limit: int = 80) -> None:
    """Press Tab until the element matching `selector` has the focus (a condition, not a wait)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(
            "s => document.activeElement && document.activeElement.matches(s)", selector
        ):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_the_import_with_the_keyboard_alone(new_context, live_server, school_world):
    school, admin, teacher, cp = school_world
    page = _page(new_context, live_server, admin, "1280x800", axe=False)
    page.goto(live_server.url + "/school/")
    _tab_to(page, "a[href='/school/import/']")
    page.keyboard.press("Enter")
    page.wait_for_url("**/school/import/")
    _tab_to(page, "textarea[name=paste]")
    page.keyboard.type("First name,Class,Level\nAnna,CP,20/2\nDewi,CP\n")
    _tab_to(page, "button[name=preview]")
    page.keyboard.press("Enter")
    expect(page.locator("table.roster-preview")).to_contain_text("new child")
    assert not Student.objects.filter(name="Dewi").exists()  # nothing before the confirm
    _tab_to(page, "button[name=confirm]")
    page.keyboard.press("Enter")
    expect(page.locator("body")).to_contain_text("Imported: 1 new, 1 updated, 0 unchanged.")
    assert Student.objects.get(name="Dewi").classroom_id == cp.pk
    assert Student.objects.get(name="Anna").level == (20, 2)


def test_play_now_with_the_keyboard_alone(new_context, live_server, school_world):
    school, admin, teacher, cp = school_world
    page = _page(new_context, live_server, teacher, "1280x800", axe=False)
    page.goto(f"{live_server.url}/teacher/classes/{cp.pk}/")
    # Space on Bleuenn's chip marks her absent (the block is swapped in place by HTMX).
    bleuenn = Student.objects.get(name="Bleuenn")
    _tab_to(page, f"#play-now button.attendance-chip[data-student='{bleuenn.pk}']")
    page.keyboard.press("Space")
    expect(page.locator("#play-now button.attendance-chip.absent")).to_have_text(
        re.compile("Bleuenn")
    )
    _tab_to(page, "#play-now button.btn-big")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r".*/board/session/\d+/"))
    session = ClassSession.objects.get(classroom=cp)
    seated = set(
        Seat.objects.filter(game__class_table__session=session, bot="").values_list(
            "student__name", flat=True
        )
    )
    assert seated == {"Anna"}
