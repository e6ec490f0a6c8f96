"""Password reset by email, for teachers and parents only, telling nobody who has an account."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.core import mail
from django.urls import reverse

from tests import factories

pytestmark = pytest.mark.django_db

OLD = "correct horse battery"  # the factories' password
NEW = "a brand new kavet password"


@pytest.fixture(autouse=True)
def _mail_and_fast_hashes(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def ask_reset(client, email, **extra):
    return client.post(reverse("password_reset"), {"email": email}, **extra)


def link_in(message) -> str:
    found = re.findall(r"https?://[^/\s]+(/password-reset/[^\s]+/[^\s]+/)", message.body)
    assert len(found) == 1, message.body
    return found[0]


def without_csrf(response) -> str:
    """The page's text, its CSRF tokens (masked anew on every page) blanked out."""
    return re.sub(r"[A-Za-z0-9]{64}", "TOKEN", response.content.decode())


def sign_in(client, username, password, ip="203.0.113.7"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=ip
    )


def test_the_login_page_links_to_the_reset(client):
    page = client.get(reverse("login")).content.decode()
    assert reverse("password_reset") in page and "Forgot your password?" in page


def test_a_teacher_gets_one_email_whose_link_sets_a_new_password(client, school):
    teacher = factories.teacher(school=school, email="maiwenn@school.example")
    response = ask_reset(client, "MAIWENN@school.example")
    assert response.status_code == 302 and response.url == reverse("password_reset_done")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["maiwenn@school.example"]
    assert message.from_email == settings.DEFAULT_FROM_EMAIL
    assert "\n" not in message.subject and message.subject
    assert f"User name: {teacher.username}" in message.body

    form = client.get(link_in(message), follow=True)
    assert form.status_code == 200 and form.context["validlink"]
    set_url = form.redirect_chain[-1][0]
    done = client.post(set_url, {"new_password1": NEW, "new_password2": NEW})
    assert done.status_code == 302 and done.url == reverse("password_reset_complete")
    assert client.get(done.url).status_code == 200

    assert sign_in(client, teacher.username, OLD).status_code == 200  # refused, form shown
    assert sign_in(client, teacher.username, NEW).status_code == 302
    assert client.session["_auth_user_id"] == str(teacher.pk)


def test_the_link_works_only_once(client, school):
    factories.parent(school=school, email="parent@home.example")
    ask_reset(client, "parent@home.example")
    link = link_in(mail.outbox[0])
    set_url = client.get(link, follow=True).redirect_chain[-1][0]
    client.post(set_url, {"new_password1": NEW, "new_password2": NEW})
    again = client.get(link, follow=True)
    assert again.status_code == 200 and not again.context["validlink"]
    assert "This link does not work any more" in again.content.decode()


def test_mismatched_or_weak_new_passwords_change_nothing(client, school):
    teacher = factories.teacher(school=school, email="t@school.example")
    ask_reset(client, "t@school.example")
    set_url = client.get(link_in(mail.outbox[0]), follow=True).redirect_chain[-1][0]
    for one, two in [(NEW, NEW + "x"), ("1234", "1234"), ("pass\x00word", "pass\x00word")]:
        response = client.post(set_url, {"new_password1": one, "new_password2": two})
        assert response.status_code == 200 and response.context["form"].errors
    teacher.refresh_from_db()
    assert teacher.check_password(OLD)


def test_an_unknown_email_gets_the_same_page_and_no_email(client, school):
    factories.teacher(school=school, email="known@school.example")
    known = ask_reset(client, "known@school.example", follow=True)
    unknown = ask_reset(client, "nobody@nowhere.example", follow=True)
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["known@school.example"]
    assert known.redirect_chain == unknown.redirect_chain
    assert known.status_code == unknown.status_code == 200
    assert without_csrf(known) == without_csrf(unknown)


def test_students_and_school_admins_get_no_email(client, classroom, students, school):
    kid = students[0].user
    kid.email = "kid@family.example"
    kid.save()
    admin = factories.school_admin(school=school)
    admin.email = "head@school.example"
    admin.save()
    for email in ("kid@family.example", "head@school.example"):
        response = ask_reset(client, email)
        assert response.status_code == 302 and response.url == reverse("password_reset_done")
    assert mail.outbox == []


def test_a_parent_sharing_an_email_with_a_child_gets_only_their_own(client, classroom, students):
    kid = students[0].user
    kid.email = "family@home.example"
    kid.save()
    parent = factories.parent(email="family@home.example")
    ask_reset(client, "family@home.example")
    assert len(mail.outbox) == 1
    assert f"User name: {parent.username}" in mail.outbox[0].body
    assert kid.username not in mail.outbox[0].body


def test_the_email_is_in_the_users_language(client, school):
    factories.parent(school=school, email="fr@home.example", language="fr")
    factories.parent(school=school, email="en@home.example", language="")
    ask_reset(client, "fr@home.example")  # asked from an English page
    ask_reset(client, "en@home.example", HTTP_ACCEPT_LANGUAGE="de")
    french, german = mail.outbox
    assert "Nom d'utilisateur" in french.body
    assert "Benutzername" in german.body


def test_the_reset_lifts_the_sign_in_lock(client, school):
    teacher = factories.teacher(school=school, email="locked@school.example")
    for i in range(settings.AXES_FAILURE_LIMIT):
        sign_in(client, teacher.username, f"wrong-{i}")
    assert sign_in(client, teacher.username, OLD).status_code == 429
    ask_reset(client, "locked@school.example")
    set_url = client.get(link_in(mail.outbox[0]), follow=True).redirect_chain[-1][0]
    client.post(set_url, {"new_password1": NEW, "new_password2": NEW})
    assert sign_in(client, teacher.username, NEW).status_code == 302


def test_the_admin_login_offers_the_reset(client):
    page = client.get(reverse("admin:login")).content.decode()
    assert reverse("admin_password_reset") in page


@pytest.mark.parametrize(
    "email", ["a\x00@b.example", "\x00", "x" * 5000 + "@b.example", "not an email", ""]
)
def test_hostile_emails_never_give_a_500(client, email):
    response = ask_reset(client, email)
    assert response.status_code == 200 and response.context["form"].errors
    assert mail.outbox == []


@pytest.mark.parametrize(
    "path",
    [
        "/password-reset/%00/x/",
        "/password-reset/Zm9v/set-password/",
        "/password-reset/AAAA/" + "z" * 300 + "/",
    ],
)
def test_broken_links_never_give_a_500(client, path):
    response = client.get(path, follow=True)
    assert response.status_code in (200, 404)
    if response.status_code == 200:
        assert not response.context["validlink"]


# --- asking is rate-limited (classrooms.auth_forms) ---------------------------------------------


def test_an_address_asked_for_too_often_gets_the_same_page_and_no_more_emails(client, school):
    from classrooms.auth_forms import RESET_EMAIL_TRIES

    factories.teacher(school=school, email="flooded@school.example")
    pages = [
        without_csrf(ask_reset(client, "Flooded@school.example", follow=True))
        for _ in range(RESET_EMAIL_TRIES + 2)
    ]
    assert len(mail.outbox) == RESET_EMAIL_TRIES  # the mailbox is not flooded
    assert len(set(pages)) == 1  # and the page never tells that anything changed


def test_one_client_asking_too_often_is_told_to_wait_in_its_language(client, school):
    from classrooms.auth_forms import RESET_CLIENT_TRIES

    factories.teacher(school=school, email="real@school.example")
    for i in range(RESET_CLIENT_TRIES):
        assert (
            ask_reset(client, f"guess{i}@school.example", REMOTE_ADDR="198.51.100.9").status_code
            == 302
        )
    refused = ask_reset(
        client, "real@school.example", REMOTE_ADDR="198.51.100.9", HTTP_ACCEPT_LANGUAGE="fr"
    )
    assert refused.status_code == 429 and mail.outbox == []
    assert "Trop de demandes" in refused.content.decode()
    # Another client is not held up.
    assert ask_reset(client, "real@school.example", REMOTE_ADDR="203.0.113.50").status_code == 302
    assert len(mail.outbox) == 1
