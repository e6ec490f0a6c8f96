"""The weekly report email: once per parent and week whatever the retries, in the parent's
language, only their own children, with a link to the right report and a one-click unsubscribe."""

from __future__ import annotations

import os
import re
import subprocess
import uuid
from datetime import timedelta
from email.header import decode_header, make_header
from html import unescape
from smtplib import SMTPServerDisconnected
from unittest import mock

import pytest
from django.core import mail, signing
from django.core.mail.backends.locmem import EmailBackend
from django.db import OperationalError, connection
from django.test import Client
from django.urls import reverse

from classrooms.models import ParentLink
from reports import services as report_services
from reports.mail import services, tasks
from reports.mail.models import EmailPreference, WeeklyEmail
from tests import factories, workers
from tests.conftest import need_service
from tests.reports.plays import paris, played_game

WEEK = "2026-11-16"
BUILT = paris(2026, 11, 23, 6, 10)  # the Monday-morning build after that week
MONDAY = paris(2026, 11, 23, 8, 0)


def run(at=MONDAY) -> dict[str, int]:
    return tasks.schedule_weekly_emails(now=at.isoformat())


def link(parent, student) -> None:
    ParentLink.objects.create(parent=parent, student=student)


def mails_to(address: str) -> list:
    return [m for m in mail.outbox if m.to == [address]]


def text(message) -> str:
    return message.body


def html(message) -> str:
    [(content, mimetype)] = message.alternatives
    assert mimetype == "text/html"
    return content


@pytest.fixture
def families(db, classroom, students):
    """Anna's and Brieuc's parents (French, German); all three children played and were built."""
    played_game(
        classroom=classroom, students=students, at=paris(2026, 11, 17, 9, 0), seed=7, moves=60
    )
    for student in students:
        report_services.report_build(
            student=student, week_start=BUILT.date() - timedelta(days=7), now=BUILT
        )
    anna, brieuc, _cecile = students
    amelie = factories.parent(
        username="amelie", email="amelie@example.org", language="fr", first_name="Amélie"
    )
    bernd = factories.parent(
        username="bernd", email="bernd@example.org", language="de", first_name="Bernd"
    )
    link(amelie, anna)
    link(bernd, brieuc)
    return {"amelie": amelie, "bernd": bernd, "anna": anna, "brieuc": brieuc}


def test_one_email_per_parent_when_the_job_runs_twice(families):
    assert run() == {"queued": 2}
    assert run() == {}  # both sent: nobody is due any more
    tasks.send_weekly_email(families["amelie"].pk, WEEK, MONDAY.isoformat())  # a late duplicate
    assert len(mails_to("amelie@example.org")) == 1
    assert len(mails_to("bernd@example.org")) == 1
    assert len(mail.outbox) == 2
    assert set(WeeklyEmail.objects.values_list("status", flat=True)) == {WeeklyEmail.Status.SENT}


def test_another_familys_child_never_appears(families):
    run()
    [to_amelie] = mails_to("amelie@example.org")
    for part in (text(to_amelie), html(to_amelie)):
        assert "Anna" in part
        assert "Brieuc" not in part and "Cécile" not in part
        assert f"/reports/child/{families['brieuc'].pk}/" not in part


def test_in_the_parents_language(families):
    run()
    [fr] = mails_to("amelie@example.org")
    [de] = mails_to("bernd@example.org")
    assert "novembre" in fr.subject
    assert "Ce que votre enfant sait faire" in text(fr) or "parties jouées" in text(fr)
    assert fr.extra_headers["Content-Language"] == "fr"
    assert "Was Ihr Kind bisher kann" in text(de)
    assert "Was Sie zu Hause üben können" in html(de)
    assert de.extra_headers["Content-Language"] == "de"
    assert "What your child can do" not in text(fr) + text(de)


# --- issue 28, item 5: the wording of the email, its title, its links on any port ------------


def test_the_html_title_is_the_subject_on_one_line(families):
    run()
    for message in mail.outbox:
        [title] = re.findall(r"<title>(.*?)</title>", html(message), flags=re.S)
        assert "\n" not in title and unescape(title) == message.subject
        assert unescape(title).startswith("Kavet 'm eus!")


def test_the_bands_are_said_to_be_so_far(families):
    run()
    [fr] = mails_to("amelie@example.org")
    [de] = mails_to("bernd@example.org")
    assert "Ce que votre enfant sait faire jusqu'ici" in text(fr)
    assert "pas seulement la semaine dernière" in html(fr)
    assert "Was Ihr Kind bisher kann" in html(de)
    assert "nicht nur nach der letzten Woche" in text(de)


def _quiet_week_email(student, language):
    from reports.mail import selectors

    parent = factories.parent(
        username=f"quiet-{language}", email="q@example.org", language=language
    )
    link(parent, student)
    week = BUILT.date()  # the week after the one Anna played in
    report_services.report_build(student=student, week_start=week, now=BUILT + timedelta(days=7))
    children = selectors.email_children(parent=parent, week_start=week)
    assert [c.student for c in children] == [student]
    assert not children[0].week.get("announcements")
    return services.weekly_email_message(parent=parent, week_start=week, children=children)


@pytest.mark.parametrize(
    "language, words",
    [
        ("en", "No games this week."),
        ("fr", "Aucune partie cette semaine."),
        ("de", "Diese Woche keine Spiele."),
    ],
)
def test_a_quiet_week_says_so_in_words(families, language, words):
    """Anna played the week before, not this one: her report of this week is built, and the
    email says she did not play rather than "0 of 0 operations were right"."""
    from django.utils import translation

    with translation.override(language):
        zero = translation.ngettext(
            "%(right)s of %(n)s operation was right.",
            "%(right)s of %(n)s operations were right.",
            0,
        ) % {"right": 0, "n": 0}
    message = _quiet_week_email(families["anna"], language)
    for part in (text(message), html(message)):
        assert words in part
        assert zero not in part


def test_a_week_of_games_without_an_operation_says_so():
    from django.template.loader import render_to_string

    week = {"games": 1, "minutes": 12, "announcements": 0, "right": 0, "cards_won": 0}
    lines = render_to_string("reports/mail/_week_lines.txt", {"week": week})
    assert "1 game played, about 12 min." in lines
    assert "No operation announced this week." in lines
    assert "0 of 0" not in lines


def test_the_link_opens_that_childs_report_of_that_week(families, client, settings):
    settings.KAVET_SITE_URL = "https://kavet.example.org"
    run()
    [message] = mails_to("amelie@example.org")
    anna = families["anna"]
    url = f"https://kavet.example.org/reports/child/{anna.pk}/?week={WEEK}"
    assert url in text(message)
    assert f'href="{url}"' in html(message)
    client.force_login(families["amelie"])
    page = client.get(url.removeprefix("https://kavet.example.org"))
    assert page.status_code == 200
    assert "Anna" in page.content.decode()
    assert "16" in page.content.decode()


def test_a_failed_send_is_retried_and_goes_once(families):
    real = EmailBackend.send_messages
    calls = {"n": 0}

    def flaky(self, messages):
        calls["n"] += 1
        if calls["n"] == 1:
            raise SMTPServerDisconnected("the mail server hung up")
        return real(self, messages)

    args = (families["amelie"].pk, WEEK, MONDAY.isoformat())
    with mock.patch.object(EmailBackend, "send_messages", flaky):
        # As a worker runs it: the failed try raises, Celery retries the task (autoretry_for).
        result = tasks.send_weekly_email.apply(args, throw=False)
        assert result.get() == "sent"
        run()
    assert calls["n"] == 3  # Amélie's first try failed and was retried; then Bernd's
    assert len(mails_to("amelie@example.org")) == 1
    assert len(mails_to("bernd@example.org")) == 1
    row = WeeklyEmail.objects.get(parent=families["amelie"])
    assert (row.status, row.attempts) == (WeeklyEmail.Status.SENT, 2)
    run(MONDAY + timedelta(hours=2))
    assert len(mail.outbox) == 2


def test_a_failed_send_in_process_does_not_stop_the_others(families):
    with mock.patch.object(
        EmailBackend, "send_messages", side_effect=[SMTPServerDisconnected("hung up"), 1]
    ):
        assert run() == {"failed": 1, "queued": 1}
    assert len(mail.outbox) == 0  # the mock swallowed Bernd's, which counts as sent
    row = WeeklyEmail.objects.get(parent=families["amelie"])
    assert (row.status, row.claimed_at) == (WeeklyEmail.Status.PENDING, None)
    run(MONDAY + timedelta(hours=1))  # the next hourly run sends the one that failed
    assert [m.to for m in mail.outbox] == [["amelie@example.org"]]


def test_a_crash_before_the_send_waits_then_sends_once(families):
    # A worker took Amélie's row and died before sending: the row is pending and held.
    services._claim(
        parent=families["amelie"], week_start=BUILT.date() - timedelta(days=7), now=MONDAY
    )
    run(MONDAY + timedelta(minutes=5))
    assert mails_to("amelie@example.org") == []  # maybe still sending elsewhere: wait
    run(MONDAY + services.STALE_AFTER + timedelta(minutes=1))
    run(MONDAY + services.STALE_AFTER + timedelta(minutes=2))
    assert len(mails_to("amelie@example.org")) == 1
    assert WeeklyEmail.objects.get(parent=families["amelie"]).status == WeeklyEmail.Status.SENT


def test_a_crash_after_the_send_resends_at_most_once(families):
    original = services._ours
    failing = {"left": 1}

    def mark(claim):
        qs = original(claim)
        if failing["left"] and qs.filter(parent=families["amelie"]).exists():
            failing["left"] -= 1
            broken = mock.Mock()
            broken.update.side_effect = OperationalError("the database went away")
            return broken
        return qs

    with mock.patch.object(services, "_ours", mark):
        run()  # sent, but "sent" was never recorded; the task's retry finds the row held
    assert len(mails_to("amelie@example.org")) == 1
    for minutes in (31, 32, 90, 150):
        run(MONDAY + timedelta(minutes=minutes))
    assert len(mails_to("amelie@example.org")) == 2  # the one resend a crash can cause
    statuses = list(WeeklyEmail.objects.filter(parent=families["amelie"]).values_list("status"))
    assert statuses == [(WeeklyEmail.Status.SENT,)]


def test_waits_for_every_child_until_the_morning_build_is_over(families, classroom):
    late = factories.student(classroom=classroom, name="Dewi")
    link(families["amelie"], late)  # no report of that week yet
    run()
    assert mails_to("amelie@example.org") == []
    assert len(mails_to("bernd@example.org")) == 1
    run(paris(2026, 11, 23, 12, 30))
    [message] = mails_to("amelie@example.org")
    assert "Anna" in text(message) and "Dewi" not in text(message)


def test_no_child_no_report_no_address_means_no_email(families, classroom):
    lonely = factories.parent(username="lonely", email="lonely@example.org")
    factories.parent(username="nolink", email="nolink@example.org")
    nobody = factories.student(classroom=classroom, name="Erwan")
    link(lonely, nobody)  # a child with no report at all
    ParentLink.objects.filter(parent=families["bernd"]).update(revoked_at=MONDAY)
    no_address = factories.parent(username="noaddress", email="")
    link(no_address, families["anna"])
    counts = run(paris(2026, 11, 23, 13, 0))
    assert counts == {"queued": 1, "no_email": 1}
    assert [m.to for m in mail.outbox] == [["amelie@example.org"]]


def test_an_erased_child_means_no_email(families):
    families["anna"].user.delete()  # what erasing a child ends with: the student row is gone
    run()
    assert mails_to("amelie@example.org") == []
    assert not WeeklyEmail.objects.filter(parent=families["amelie"]).exists()


def test_an_unsubscribed_parent_gets_nothing(families):
    services.email_preference_set(parent=families["amelie"], weekly=False)
    run()
    assert mails_to("amelie@example.org") == []
    assert not WeeklyEmail.objects.filter(parent=families["amelie"]).exists()
    assert tasks.send_weekly_email(families["amelie"].pk, WEEK) == "unsubscribed"
    assert len(mails_to("bernd@example.org")) == 1


def unsubscribe_url(message) -> str:
    header = message.extra_headers["List-Unsubscribe"]
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert header.startswith("<") and header.endswith(">")
    url = header[1:-1]
    assert url in text(message)
    return re.sub(r"^https?://[^/]+", "", url)


def test_unsubscribe_by_the_link_and_its_confirm_button(families):
    run()
    path = unsubscribe_url(mails_to("amelie@example.org")[0])
    browser = Client(enforce_csrf_checks=True)
    page = browser.get(path)
    assert page.status_code == 200
    assert f'action="{path}"' in page.content.decode()
    assert 'lang="fr"' in page.content.decode()
    assert not EmailPreference.objects.exists()  # looking is not unsubscribing
    done = browser.post(path)
    assert done.status_code == 200
    pref = EmailPreference.objects.get(parent=families["amelie"])
    assert pref.weekly is False and pref.opted_out_at is not None
    run(paris(2026, 11, 30, 8, 0))  # the next week
    assert len(mails_to("amelie@example.org")) == 1
    assert len(mails_to("bernd@example.org")) == 1  # Bernd's week is not built: nothing yet


def test_one_click_unsubscribe_from_the_mail_client(families):
    run()
    path = unsubscribe_url(mails_to("bernd@example.org")[0])
    response = Client(enforce_csrf_checks=True).post(path, {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    assert EmailPreference.objects.get(parent=families["bernd"]).weekly is False
    assert not EmailPreference.objects.filter(parent=families["amelie"]).exists()


def test_forged_or_altered_tokens_change_nothing(families):
    amelie, bernd = families["amelie"], families["bernd"]
    good = services.unsubscribe_token(amelie)
    _id, signature = good.split(":", 1)
    other_purpose = signing.Signer(salt="kavet.password-reset").sign(str(amelie.pk))
    forged = [
        f"{bernd.pk}:{signature}",
        f"{amelie.pk}:{signature[:-2]}xx",
        "12345",
        other_purpose,
        signing.Signer(salt=services.UNSUBSCRIBE_SALT, key="guessed").sign(str(bernd.pk)),
        f"{'9' * 30}:{signature}",
    ]
    browser = Client(enforce_csrf_checks=True)
    for token in forged:
        path = reverse("reports:mail:unsubscribe", args=[token])
        assert browser.get(path).status_code == 400
        assert browser.post(path).status_code == 400
        assert browser.post(path, {"List-Unsubscribe": "One-Click"}).status_code == 400
    path = reverse("reports:mail:unsubscribe", args=[good])
    assert browser.post(path, {"List-Unsubscribe": "Something-Else"}).status_code == 400
    assert not EmailPreference.objects.exists()
    teacher_token = services.unsubscribe_token(
        factories.teacher(school=families["anna"].classroom.school)
    )
    path = reverse("reports:mail:unsubscribe", args=[teacher_token])
    assert browser.post(path).status_code == 400
    assert not EmailPreference.objects.exists()


def test_the_parent_switches_the_email_off_and_on_again(families, client):
    client.force_login(families["bernd"])
    page = client.get(reverse("reports:mail:settings"))
    assert page.status_code == 200
    assert 'value="off"' in page.content.decode()
    assert client.post(reverse("reports:mail:settings"), {"weekly": "maybe"}).status_code == 400
    assert not EmailPreference.objects.exists()
    client.post(reverse("reports:mail:settings"), {"weekly": "off"})
    assert EmailPreference.objects.get(parent=families["bernd"]).weekly is False
    run()
    assert mails_to("bernd@example.org") == []
    client.post(reverse("reports:mail:settings"), {"weekly": "on"})
    pref = EmailPreference.objects.get(parent=families["bernd"])
    assert pref.weekly is True and pref.opted_out_at is None
    run(MONDAY + timedelta(hours=1))
    assert len(mails_to("bernd@example.org")) == 1


def test_the_settings_page_is_for_parents(families, client, teacher):
    client.force_login(teacher)
    assert client.post(reverse("reports:mail:settings"), {"weekly": "off"}).status_code == 302
    assert not EmailPreference.objects.exists()
    anonymous = Client().get(reverse("reports:mail:settings"))
    assert anonymous.status_code == 302 and "login" in anonymous["Location"]


def _free_port(preferred: int = 8123) -> int:
    """PORT=8123 as in the issue, or another free port when something else holds it."""
    import socket

    for port in (preferred, 0):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return sock.getsockname()[1]
    raise RuntimeError("no free port")


def test_make_demo_sets_the_site_url_from_its_port(tmp_path):
    """`PORT=8123 make demo` links its emails to port 8123; a KAVET_SITE_URL set is kept."""
    from django.conf import settings as dj_settings

    fake = tmp_path / "python"
    fake.write_text('#!/bin/sh\necho "site=$KAVET_SITE_URL $*"\n')
    fake.chmod(0o755)
    command = ["make", "-s", "-o", "install", "-o", "messages", "-o", "migrate", "demo"]
    env = {k: v for k, v in os.environ.items() if k != "KAVET_SITE_URL"}
    out = subprocess.run(
        [*command, "PORT=8123", f"PY={fake}"],
        cwd=dj_settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "site=http://127.0.0.1:8123 manage.py runserver 127.0.0.1:8123" in out
    out = subprocess.run(
        [*command, "PORT=8123", f"PY={fake}"],
        cwd=dj_settings.BASE_DIR,
        env={**env, "KAVET_SITE_URL": "https://kavet.example.org"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "site=https://kavet.example.org manage.py runserver" in out


@pytest.mark.django_db(transaction=True)
def test_the_links_work_on_a_server_on_another_port(families, settings):
    """The email of a site served on another port (as `PORT=8123 make demo` runs it): every link
    points at that server, and a live server there answers them: the report after signing in,
    the settings page, and the unsubscribe link that switches the email off."""
    import http.cookiejar
    import urllib.error
    import urllib.parse
    import urllib.request

    from django.contrib.staticfiles.handlers import StaticFilesHandler as _StaticFilesHandler
    from django.test.testcases import LiveServerThread

    port = _free_port()
    site = f"http://127.0.0.1:{port}"
    settings.KAVET_SITE_URL = site
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    amelie = families["amelie"]
    amelie.set_password("a long enough parent password 42")
    amelie.save()
    run()
    [message] = mails_to("amelie@example.org")
    links = set(re.findall(r'href="([^"]+)"', html(message)))
    links |= set(re.findall(r"https?://\S+", text(message)))
    assert len(links) >= 3 and all(url.startswith(site + "/") for url in links), links

    # A server thread of its own on that port (pytest-django's live_server picks its own).
    server = LiveServerThread("127.0.0.1", _StaticFilesHandler, port=port)
    server.daemon = True
    server.start()
    server.is_ready.wait()
    if server.error:
        raise server.error
    try:
        jar = http.cookiejar.CookieJar()
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        report = f"{site}/reports/child/{families['anna'].pk}/?week={WEEK}"
        assert report in links
        login = browser.open(report)  # not signed in: the sign-in page, on the same server
        assert login.status == 200 and login.url.startswith(f"{site}/login/")
        page = login.read().decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        form = urllib.parse.urlencode(
            {
                "csrfmiddlewaretoken": token,
                "username": "amelie",
                "password": "a long enough parent password 42",
                "next": urllib.parse.parse_qs(urllib.parse.urlsplit(login.url).query)["next"][0],
            }
        ).encode()
        request = urllib.request.Request(login.url, data=form, headers={"Referer": login.url})
        signed_in = browser.open(request)  # the sign-in sends the parent on to the report
        assert signed_in.status == 200 and signed_in.url == report
        body = signed_in.read().decode()
        assert "Anna" in body and 'lang="fr"' in body
        settings_url = site + reverse("reports:mail:settings")
        assert settings_url in links
        assert browser.open(settings_url).status == 200
        [unsubscribe] = [url for url in links if "/unsubscribe/" in url]
        confirm = urllib.request.urlopen(unsubscribe)  # from the mail, not signed in
        assert confirm.status == 200 and "action=" in confirm.read().decode()
        done = urllib.request.urlopen(urllib.request.Request(unsubscribe, data=b"", method="POST"))
        assert done.status == 200
        assert EmailPreference.objects.get(parent=amelie).weekly is False
    finally:
        server.terminate()


# --- a real worker ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mail_worker(django_db_setup, django_db_blocker, tmp_path_factory):
    """A Celery worker process of its own whose emails (the console backend, the default) are
    written to a file the test reads: the shared worker's output is not ours to read."""
    need_service(bool(os.environ.get("REDIS_URL")), "Redis (REDIS_URL) for a real Celery worker")
    if connection.vendor != "postgresql":
        need_service(False, "PostgreSQL (DATABASE_URL) shared between the tests and the worker")
    from django.conf import settings as dj_settings

    from kavet_site.celery import app

    queue = f"test-mail-{uuid.uuid4().hex[:8]}"
    name = f"{queue}@%h"
    out = tmp_path_factory.mktemp("mail") / "worker.out"
    env = dict(
        os.environ,
        CELERY_QUEUE=queue,
        CONN_MAX_AGE="0",
        EMAIL_BACKEND="django.core.mail.backends.console.EmailBackend",
        DATABASE_URL=workers.database_url(connection.settings_dict),
    )
    with out.open("wb") as sink:
        proc = subprocess.Popen(
            workers.worker_command(queue, name=name),
            env=env,
            cwd=str(dj_settings.BASE_DIR),
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        workers.wait_until_up(app, proc, name=name, log=out)
        yield queue, out
    finally:
        workers.stop(proc)


@pytest.fixture
def real_worker(mail_worker, settings):
    """Tasks go to the mail worker, not in-process (tests/conftest.py makes them eager unless
    a test uses the shared celery_worker fixture)."""
    from kavet_site.celery import app

    app.conf.task_always_eager = settings.CELERY_TASK_ALWAYS_EAGER = False
    yield mail_worker
    app.conf.task_always_eager = settings.CELERY_TASK_ALWAYS_EAGER = True


@pytest.mark.django_db(transaction=True)
def test_a_real_worker_running_the_send_twice_sends_one_email(real_worker, classroom, students):
    queue, out = real_worker
    played_game(
        classroom=classroom, students=students[:2], at=paris(2026, 11, 17, 9, 0), seed=3, moves=20
    )
    report_services.report_build(
        student=students[0], week_start=BUILT.date() - timedelta(days=7), now=BUILT
    )
    parent = factories.parent(
        username="worker-parent", email="worker-parent@example.org", language="fr"
    )
    link(parent, students[0])
    args = (parent.pk, WEEK, MONDAY.isoformat())
    first = tasks.send_weekly_email.apply_async(args, queue=queue)
    again = tasks.send_weekly_email.apply_async(args, queue=queue)  # a redelivered duplicate
    assert sorted([first.get(timeout=30), again.get(timeout=30)]) == ["already", "sent"]
    log = out.read_text()
    assert log.count("To: worker-parent@example.org") == 1
    subjects = [
        str(make_header(decode_header(line.split(":", 1)[1].strip())))
        for line in log.splitlines()
        if line.startswith("Subject:")
    ]
    assert len(subjects) == 1  # in the parent's language (French), header-encoded or not
    assert subjects[0].startswith("Kavet 'm eus!") and "novembre" in subjects[0]
    assert list(WeeklyEmail.objects.values_list("parent_id", "status")) == [
        (parent.pk, WeeklyEmail.Status.SENT)
    ]
