"""The weekly email, seen in a browser (issue 36): the demo's teacher previews the email of the
demo parent, sends it now, reads it in the development outbox and follows every one of its
links, which point at this very server (KAVET_SITE_URL)."""

from __future__ import annotations

import io
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command

from classrooms.models import User
from reports.mail.models import OutboxEmail
from tests.e2e.helpers import sign_in_context


@pytest.mark.django_db(transaction=True)
def test_a_teacher_previews_sends_and_follows_the_email(live_server, new_context, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.DEBUG = True  # `make demo`: the outbox page is there
    settings.EMAIL_BACKEND = "reports.mail.outbox.OutboxBackend"
    settings.KAVET_SITE_URL = live_server.url
    call_command("demo_school", stdout=io.StringIO())
    teacher = User.objects.get(username="teacher")
    parent = User.objects.get(username="parent")

    context = new_context()
    sign_in_context(context, live_server, teacher)
    page = context.new_page()
    page.goto(f"{live_server.url}/reports/")
    page.click("text=Weekly email")
    page.select_option("#parent-pick", str(parent.pk))
    page.click("form[data-pick-parent] button")
    page.wait_for_selector("iframe.email-frame")
    subject = page.locator("[data-subject]").inner_text()
    assert subject
    frame = page.frame_locator("iframe.email-frame")
    frame.locator("a").first.wait_for()
    assert frame.locator("a").count() >= 3  # the report, the settings, the unsubscribe link
    page.click("[data-send-now]")
    page.wait_for_selector("text=The email was sent to parent@demo.invalid")
    assert OutboxEmail.objects.filter(to="parent@demo.invalid").count() == 1

    page.click("[data-outbox]")
    page.click(f"text={subject}")
    page.wait_for_selector("iframe.email-frame")
    frame = page.frame_locator("iframe.email-frame")
    frame.locator("a").first.wait_for()
    links = frame.locator("a").evaluate_all("links => links.map(a => a.href)")
    assert len(links) >= 3
    server = urlsplit(live_server.url)
    for link in links:
        assert urlsplit(link).netloc == server.netloc, link  # the site's own address
        response = page.goto(link)
        assert response is not None and response.ok, link
        assert "Server Error" not in page.content()
    # The report link, opened by the parent, shows their child's report of that week.
    parent_context = new_context()
    sign_in_context(parent_context, live_server, parent)
    parent_page = parent_context.new_page()
    report_link = next(link for link in links if "/reports/child/" in link)
    assert parent_page.goto(report_link).ok
    parent_page.wait_for_selector("h1:has-text('progress')")
