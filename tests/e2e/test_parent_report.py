"""A parent signs in on a phone and reads their child's report, chart included."""

from __future__ import annotations

import pytest

from classrooms import invitations
from reports import services
from tests import factories
from tests.reports.plays import three_weeks_reported

PASSWORD = "a long enough parent password 42"


@pytest.mark.django_db(transaction=True)
def test_parent_reads_the_report_with_its_chart_on_a_phone(live_server, new_context, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    school = factories.school()
    teacher = factories.teacher(school=school)
    classroom = factories.classroom(school=school, teachers=[teacher])
    anna = factories.student(classroom=classroom, name="Anna")
    brieuc = factories.student(classroom=classroom, name="Brieuc")
    three_weeks_reported(classroom=classroom, anna=anna, brieuc=brieuc)
    _invite, code = invitations.create(services.PARENT_CODE, target=anna, by=teacher)

    page = new_context(viewport={"width": 390, "height": 844}).new_page()
    # The parent creates their account with the code from the slip.
    page.goto(f"{live_server.url}/reports/join/?code={code}")
    page.fill("#id_username", "annas-dad")
    page.fill("#id_password", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/reports/")
    page.click("a.child-name")
    page.wait_for_selector('h1:has-text("Anna\'s progress")')

    chart = page.locator("figure.chart svg.skill-chart").first
    chart.wait_for()
    box = chart.bounding_box()
    assert box and 250 < box["width"] <= 390  # fits the phone, no sideways scrolling
    assert page.locator("figure.chart svg rect").count() >= 3  # one bar per week played
    assert "Adding and taking away within 10" in chart.locator("title").first.text_content()
    assert (
        page.locator("figure.chart .chart-summary")
        .first.text_content()
        .startswith("Adding and taking away within 10: tried in 3 of the last 12 weeks")
    )
    body = page.locator("body").inner_text()
    assert (
        "What the words mean" in body
        and "Practising" in body
        and "What to practise at home" in body
    )
    assert "Brieuc" not in page.content()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

    with page.expect_download() as download_info:
        page.click("text=Download as PDF")
    assert download_info.value.suggested_filename.endswith(".pdf")

    # Guessing the classmate's id gives nothing.
    response = page.goto(f"{live_server.url}/reports/child/{brieuc.pk}/")
    assert response.status == 404
