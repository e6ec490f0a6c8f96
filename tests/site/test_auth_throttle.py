"""Password logins are throttled per account and client, and per client (django-axes).

A guesser locks themselves out, not the teacher at another computer; /admin/login/ likewise;
the lock lifts after the cool-off or when unlocked; students' tablet sign-in is never refused.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from axes.utils import reset
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from tests import factories

pytestmark = pytest.mark.django_db

RIGHT = "correct horse battery"  # the factories' password
GUESSER = "203.0.113.7"
TEACHER_DESK = "198.51.100.20"
LOCKED = "Your school admin can unlock your account now."


@pytest.fixture(autouse=True)
def _fast_hashes(settings):
    """Dozens of sign-ins per test: a fast hasher here (the throttle does not depend on it)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def sign_in(client, username, password, ip=GUESSER, url=None, **extra):
    return client.post(
        url or reverse("login"),
        {"username": username, "password": password},
        REMOTE_ADDR=ip,
        **extra,
    )


def signed_in_as(client):
    return client.session.get("_auth_user_id")


def guess(client, username, times, ip=GUESSER, url=None):
    return [
        sign_in(client, username, f"wrong-{i}", ip=ip, url=url).status_code for i in range(times)
    ]


def test_five_wrong_passwords_then_the_right_one_is_refused(client, teacher):
    statuses = guess(client, teacher.username, settings.AXES_FAILURE_LIMIT)
    assert statuses[:-1] == [200] * (settings.AXES_FAILURE_LIMIT - 1)  # the form, with its error
    assert statuses[-1] == 429  # the fifth already shows the lockout page
    response = sign_in(client, teacher.username, RIGHT)
    assert response.status_code == 429
    page = response.content.decode()
    assert LOCKED in page
    assert f"Try again in {settings.AXES_COOLOFF_TIME.seconds // 60} min." in page
    assert signed_in_as(client) is None


@pytest.mark.parametrize("how", ["accept-language", "cookie"])
def test_the_lockout_page_speaks_the_users_language(client, teacher, how):
    extra = {}
    if how == "cookie":
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    else:
        extra["HTTP_ACCEPT_LANGUAGE"] = "fr"
    guess(client, teacher.username, settings.AXES_FAILURE_LIMIT)
    response = sign_in(client, teacher.username, RIGHT, **extra)
    assert response.status_code == 429
    page = response.content.decode()
    assert '<html lang="fr">' in page
    assert "Aller au contenu" in page  # base.html's "Skip to content", already in French
    with translation.override("fr"):
        assert translation.gettext(LOCKED) in page
    assert signed_in_as(client) is None


def test_the_teacher_at_another_computer_still_signs_in(client, teacher):
    guess(client, teacher.username, settings.AXES_FAILURE_LIMIT + 3)
    assert sign_in(client, teacher.username, RIGHT).status_code == 429
    response = sign_in(client, teacher.username, RIGHT, ip=TEACHER_DESK)
    assert response.status_code == 302
    assert signed_in_as(client) == str(teacher.pk)


def test_admin_login_is_throttled_the_same_way(client, school):
    admin = factories.school_admin(school=school)
    url = reverse("admin:login")
    statuses = guess(client, admin.username, settings.AXES_FAILURE_LIMIT, url=url)
    assert statuses[-1] == 429
    response = sign_in(client, admin.username, RIGHT, url=url)
    assert response.status_code == 429 and LOCKED in response.content.decode()
    assert signed_in_as(client) is None
    assert sign_in(client, admin.username, RIGHT, ip=TEACHER_DESK, url=url).status_code == 302
    assert signed_in_as(client) == str(admin.pk)


def test_a_lock_on_the_login_page_holds_on_the_admin_login_too(client, school):
    admin = factories.school_admin(school=school)
    guess(client, admin.username, settings.AXES_FAILURE_LIMIT)
    assert sign_in(client, admin.username, RIGHT, url=reverse("admin:login")).status_code == 429


def test_the_account_signs_in_again_after_the_cool_off(client, teacher):
    guess(client, teacher.username, settings.AXES_FAILURE_LIMIT)
    assert sign_in(client, teacher.username, RIGHT).status_code == 429
    # The wait counts from the last try: move every try back past the cool-off.
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.first().attempt_time
        - settings.AXES_COOLOFF_TIME
        - timedelta(seconds=1)
    )
    assert sign_in(client, teacher.username, RIGHT).status_code == 302
    assert signed_in_as(client) == str(teacher.pk)


def test_unlocking_the_account_lets_it_sign_in_at_once(client, teacher):
    guess(client, teacher.username, settings.AXES_FAILURE_LIMIT)
    assert sign_in(client, teacher.username, RIGHT).status_code == 429
    assert reset(username=teacher.username) >= 1
    assert sign_in(client, teacher.username, RIGHT).status_code == 302


def test_a_few_typos_are_forgiven_by_a_successful_sign_in(client, teacher):
    guess(client, teacher.username, settings.AXES_FAILURE_LIMIT - 1)
    assert sign_in(client, teacher.username, RIGHT).status_code == 302
    client.post(reverse("logout"))
    guess(client, teacher.username, settings.AXES_FAILURE_LIMIT - 1)
    assert sign_in(client, teacher.username, RIGHT).status_code == 302


def test_one_client_trying_many_accounts_is_stopped(client, school, teacher):
    limit = settings.KAVET_AXES_CLIENT_FAILURE_LIMIT
    assert limit > settings.AXES_FAILURE_LIMIT
    # A school behind one address: a few typos on several accounts do not lock it.
    for i in range(settings.AXES_FAILURE_LIMIT + 1):
        guess(client, f"someone{i}", 1)
    assert sign_in(client, teacher.username, RIGHT).status_code == 302
    client.post(reverse("logout"))
    # A guesser spreading tries over many accounts is stopped at the client-wide limit.
    statuses = [guess(client, f"victim{i}", 1)[0] for i in range(limit)]
    assert 429 in statuses
    assert sign_in(client, teacher.username, RIGHT).status_code == 429
    assert signed_in_as(client) is None
    # ...while the teacher at another computer is not.
    assert sign_in(client, teacher.username, RIGHT, ip=TEACHER_DESK).status_code == 302


def test_signing_in_to_ones_own_account_does_not_wipe_the_guesses_at_another(
    client, school, teacher
):
    parent = factories.parent(school=school)
    guess(client, teacher.username, settings.AXES_FAILURE_LIMIT - 1)
    assert sign_in(client, parent.username, RIGHT).status_code == 302
    client.post(reverse("logout"))
    assert guess(client, teacher.username, 1) == [429]
    assert sign_in(client, teacher.username, RIGHT).status_code == 429


def test_the_client_address_comes_from_remote_addr_not_a_forged_header(client, teacher):
    assert settings.KAVET_TRUSTED_PROXIES == 0
    guess(client, teacher.username, settings.AXES_FAILURE_LIMIT)
    forged = sign_in(client, teacher.username, RIGHT, HTTP_X_FORWARDED_FOR=TEACHER_DESK)
    assert forged.status_code == 429


def test_students_tablet_sign_in_is_never_refused(client, classroom, students):
    # The tablet's address has just been locked for password logins...
    for i in range(settings.KAVET_AXES_CLIENT_FAILURE_LIMIT):
        guess(client, f"victim{i}", 1, ip="127.0.0.1")
    assert sign_in(client, "victim0", "x", ip="127.0.0.1").status_code == 429
    # ...and a child still signs in with their pictures (no password, so no throttle).
    from django.core.cache import cache

    cache.clear()  # the tablet sign-in's own rate limits are not what this test is about
    anna = students[0]
    assert client.post(reverse("games:tablet_signin"), {"code": classroom.code}).status_code == 302
    url = reverse("games:tablet_pictures", args=[anna.pk])
    so_far = ""
    response = None
    for pick in anna.picture_code.split("-"):
        response = client.post(url, {"so_far": so_far, "pick": pick})
        so_far = f"{so_far}-{pick}" if so_far else pick
    assert response.status_code == 302 and response.url == reverse("games:student_home")
    assert signed_in_as(client) == str(anna.user_id)


@pytest.mark.parametrize("url_name", ["login", "admin:login"])
@pytest.mark.parametrize(
    "username,password",
    [
        ("te\x00acher", RIGHT),
        ("teacher", "pass\x00word"),
        ("\x00", "\x00"),
        ("x" * 5000, "y" * 5000),
    ],
)
def test_hostile_credentials_never_give_a_500(client, teacher, url_name, username, password):
    statuses = [
        sign_in(client, username, password, url=reverse(url_name)).status_code
        for _ in range(settings.AXES_FAILURE_LIMIT + 1)
    ]
    if "\x00" in username + password:
        assert statuses == [200] * len(statuses)  # refused by the form, before any password check
    else:
        assert statuses[-1] == 429  # a name too long for any account still counts its tries
    assert signed_in_as(client) is None


LOAD_BALANCER = "10.0.0.2"


def test_behind_a_proxy_the_key_is_the_address_the_proxy_saw(client, settings, teacher):
    settings.KAVET_TRUSTED_PROXIES = 1
    # The guesser writes a new X-Forwarded-For each try; the proxy appends the real address.
    for i in range(settings.AXES_FAILURE_LIMIT):
        sign_in(
            client,
            teacher.username,
            f"wrong-{i}",
            ip=LOAD_BALANCER,
            HTTP_X_FORWARDED_FOR=f"192.0.2.{i}, {GUESSER}",
        )
    locked = sign_in(
        client,
        teacher.username,
        RIGHT,
        ip=LOAD_BALANCER,
        HTTP_X_FORWARDED_FOR=f"{TEACHER_DESK}, {GUESSER}",
    )
    assert locked.status_code == 429
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {GUESSER}
    teacher_at_desk = sign_in(
        client, teacher.username, RIGHT, ip=LOAD_BALANCER, HTTP_X_FORWARDED_FOR=TEACHER_DESK
    )
    assert teacher_at_desk.status_code == 302


def test_an_ipv6_client_cannot_dodge_the_lock_with_fresh_addresses(client, teacher):
    for i in range(settings.AXES_FAILURE_LIMIT):
        sign_in(client, teacher.username, f"wrong-{i}", ip=f"2001:db8:0:7::{i + 1:x}")
    assert sign_in(client, teacher.username, RIGHT, ip="2001:db8:0:7::beef").status_code == 429
    assert sign_in(client, teacher.username, RIGHT, ip="2001:db8:0:8::1").status_code == 302


def test_no_row_is_kept_for_a_successful_sign_in(client, teacher):
    from axes.models import AccessLog

    assert sign_in(client, teacher.username, RIGHT).status_code == 302
    assert not AccessLog.objects.exists() and not AccessAttempt.objects.exists()
