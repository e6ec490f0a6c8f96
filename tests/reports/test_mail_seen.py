"""The weekly email, seen (issue 36): a teacher or school admin previews a parent's email of
this week and sends it now; the school admin sets its day and hour; in development the email
is kept in an outbox page (DEBUG only) whose links use the site's address."""

from __future__ import annotations

import re
from html import escape, unescape

import pytest
from django.core import mail
from django.urls import reverse

from reports.mail import selectors, services
from reports.mail.models import OutboxEmail, SchoolEmailSchedule, WeeklyEmail
from tests import factories
from tests.reports.plays import clock_at, paris
from tests.reports.test_mail import MONDAY, run
from tests.reports.test_mail import families as _families

families = _families  # the fixture: three children played, Amélie's and Bernd's parents


@pytest.fixture
def at_monday():
    with clock_at(MONDAY) as clock:
        yield clock


def test_a_teacher_previews_a_parents_email_and_sends_it_now(client, teacher, families, at_monday):
    client.force_login(teacher)
    amelie = families["amelie"]
    page = client.get(reverse("reports:mail:preview"))
    assert page.status_code == 200 and "amelie@example.org" in page.content.decode()
    page = client.get(reverse("reports:mail:preview"), {"parent": amelie.pk})
    body = page.content.decode()
    assert families["anna"].name in body and families["brieuc"].name not in body
    sent = client.post(reverse("reports:mail:preview"), {"parent": amelie.pk})
    assert sent.status_code == 302
    [message] = mail.outbox
    assert message.to == ["amelie@example.org"] and families["anna"].name in message.body
    row = WeeklyEmail.objects.get(parent=amelie)
    assert row.status == WeeklyEmail.Status.SENT
    assert run(MONDAY)["queued"] == 1  # Bernd's only: Amélie's week is sent already


def test_a_parent_of_another_school_is_not_found(client, teacher, families):
    other = factories.school(slug="other", name="Other")
    stranger = factories.teacher(school=other)
    client.force_login(stranger)
    amelie = families["amelie"]
    assert client.get(reverse("reports:mail:preview"), {"parent": amelie.pk}).status_code == 404
    assert client.post(reverse("reports:mail:preview"), {"parent": amelie.pk}).status_code == 404
    assert client.get(reverse("reports:mail:preview"), {"parent": "x"}).status_code == 404
    assert not mail.outbox and not WeeklyEmail.objects.exists()
    client.force_login(amelie)
    assert client.get(reverse("reports:mail:preview")).status_code == 403


def test_the_school_admin_sets_the_day_and_hour(client, school, families):
    admin = factories.school_admin(school=school)
    client.force_login(admin)
    url = reverse("reports:mail:school_settings")
    assert client.get(url).status_code == 200
    bad = client.post(url, {"weekday": "9", "hour": "25"})
    assert bad.status_code == 400 and not SchoolEmailSchedule.objects.exists()
    assert client.post(url, {"weekday": "0", "hour": "17"}).status_code == 302
    assert SchoolEmailSchedule.objects.get(school=school).hour == 17
    # Monday 08:00 in Paris: not yet; Monday 17:00: both parents are due.
    assert selectors.parents_due(now=MONDAY) == []
    assert len(selectors.parents_due(now=paris(2026, 11, 23, 17, 0))) == 2
    teacher = factories.teacher(school=school)
    client.force_login(teacher)
    assert client.get(url).status_code == 403


def test_the_outbox_keeps_the_email_with_the_sites_address(client, teacher, families, settings):
    settings.EMAIL_BACKEND = "reports.mail.outbox.OutboxBackend"
    settings.KAVET_SITE_URL = "http://demo.example:6511"
    settings.DEBUG = True
    services.weekly_email_send(
        parent_id=families["amelie"].pk, week_start=MONDAY.date().replace(day=16)
    )
    email = OutboxEmail.objects.get()
    links = set(re.findall(r'href="([^"]+)"', unescape(email.html)))
    assert links and all(url.startswith("http://demo.example:6511/") for url in links)
    client.force_login(teacher)
    assert escape(email.subject) in client.get(reverse("reports:mail:outbox")).content.decode()
    page = client.get(reverse("reports:mail:outbox_email", args=[email.pk]))
    assert page.status_code == 200
    assert client.get(reverse("reports:mail:outbox_email_html", args=[email.pk])).status_code == 200
    settings.DEBUG = False
    assert client.get(reverse("reports:mail:outbox")).status_code == 404
    assert client.get(reverse("reports:mail:outbox_email", args=[email.pk])).status_code == 404
