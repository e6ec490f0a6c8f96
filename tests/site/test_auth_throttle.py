"""Password logins are throttled per account and client, and slowed under a flood (django-axes).

A guesser locks themselves out, not the teacher at another computer; /admin/login/ likewise;
many made-up names from a school's address never refuse its teachers' right passwords (issue
25.3); the lock lifts after the cool-off or when unlocked; students' tablet sign-in is never
refused.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from axes.utils import reset
from django.conf import settings
from django.urls import reverse
from django.utils import timezone, translation

from classrooms.models import User
from kavet_site import auth_throttle
from kavet_site.throttles.models import SignInFlood
from tests import factories

pytestmark = pytest.mark.django_db

RIGHT = "correct horse battery"  # the factories' password
GUESSER = "203.0.113.7"
TEACHER_DESK = "198.51.100.20"
LOCKED = "Your school admin can unlock your account now."
FLOOD_NOTE = (
    "Many sign-ins with different names failed from this network just now, so a name is "
    "paused after two wrong passwords. Other names still sign in."
)


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


@pytest.fixture
def delays(monkeypatch):
    """The flood's waits, recorded instead of slept (the rule, not the clock, is under test)."""
    waited: list[float] = []
    monkeypatch.setattr(auth_throttle, "_sleep", waited.append)
    return waited


def without_tokens(page: str) -> str:
    return re.sub(r'(csrfmiddlewaretoken" value=|"X-CSRFToken": )"[^"]*"', "", page)


def flood(client, names, ip=GUESSER, prefix="made-up"):
    """One wrong password for each of `names` made-up names from `ip`."""
    return [guess(client, f"{prefix}-{i}", 1, ip=ip)[0] for i in range(names)]


def test_a_flood_of_made_up_names_never_refuses_the_schools_teachers(client, school, delays):
    """Issue 25.3: the school's one address floods; each teacher's right password still works."""
    limit = settings.KAVET_AXES_CLIENT_FAILURE_LIMIT
    teachers = [factories.teacher(school=school, username=f"teacher-{i}") for i in range(4)]
    admin = factories.school_admin(school=school)
    flood(client, limit + 5)
    # No wait until `limit` names have failed; then each try waits a little longer.
    assert delays == pytest.approx([auth_throttle.FLOOD_DELAY_STEP * n for n in range(1, 6)])
    for account in [*teachers, admin]:
        response = sign_in(client, account.username, RIGHT)
        assert response.status_code == 302, account.username
        assert signed_in_as(client) == str(account.pk)
        client.post(reverse("logout"))
    # They were slowed, not refused: a growing wait, capped.
    assert delays and max(delays) <= settings.KAVET_AXES_FLOOD_DELAY_MAX
    assert delays == sorted(delays)
    # The admin's sign-in at /admin/login/ too, and again after more made-up names.
    flood(client, 30, prefix="more")
    assert sign_in(client, admin.username, RIGHT, url=reverse("admin:login")).status_code == 302
    assert delays[-1] == settings.KAVET_AXES_FLOOD_DELAY_MAX


def test_made_up_names_spread_over_tries_do_not_count_as_many_accounts(client, teacher, delays):
    # One name tried many times is one name: the per-account lock handles it, not the flood.
    guess(client, "made-up", settings.KAVET_AXES_CLIENT_FAILURE_LIMIT + 5)
    assert sign_in(client, teacher.username, RIGHT).status_code == 302
    assert not delays


def test_under_a_flood_the_per_account_lock_still_locks_a_guessed_account(client, school, delays):
    teacher = factories.teacher(school=school, username="guessed-at")
    colleague = factories.teacher(school=school, username="colleague")
    flood(client, settings.KAVET_AXES_CLIENT_FAILURE_LIMIT)
    # One typo is forgiven: the form's error, then the right password works.
    assert guess(client, colleague.username, 1) == [200]
    assert sign_in(client, colleague.username, RIGHT).status_code == 302
    client.post(reverse("logout"))
    # A name guessed at twice from the flooding address is paused there...
    assert guess(client, teacher.username, 2) == [200, 429]
    response = sign_in(client, teacher.username, RIGHT)
    assert response.status_code == 429 and signed_in_as(client) is None
    page = response.content.decode()
    assert LOCKED in page and FLOOD_NOTE in page
    # ...not at another computer; and a made-up name gets the very same page (no tell).
    assert sign_in(client, teacher.username, RIGHT, ip=TEACHER_DESK).status_code == 302
    client.post(reverse("logout"))
    guess(client, "nobody-at-all", 2)
    made_up = sign_in(client, "nobody-at-all", RIGHT)
    assert made_up.status_code == 429
    assert without_tokens(made_up.content.decode()) == without_tokens(page)


def test_the_flood_pause_is_explained_in_the_users_language(client, teacher, delays):
    flood(client, settings.KAVET_AXES_CLIENT_FAILURE_LIMIT)
    guess(client, teacher.username, 2)
    page = sign_in(client, teacher.username, RIGHT, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert '<html lang="de">' in page
    with translation.override("de"):
        assert translation.gettext(FLOOD_NOTE) in page and translation.gettext(LOCKED) in page


@pytest.mark.django_db(transaction=True)
def test_a_slowed_sign_in_gives_its_database_connection_back_while_it_waits(client, monkeypatch):
    """Outside a transaction (as in production) the pooled connection is returned before the
    wait, so a flood of slowed sign-ins cannot empty the pool; the sign-in then goes on."""
    from django.db import connection

    teacher = factories.teacher(school=factories.school(), username="waits")
    flood(client, settings.KAVET_AXES_CLIENT_FAILURE_LIMIT)
    held_while_waiting: list[bool] = []
    monkeypatch.setattr(
        auth_throttle, "_sleep", lambda seconds: held_while_waiting.append(connection.connection)
    )
    assert sign_in(client, teacher.username, RIGHT).status_code == 302
    assert signed_in_as(client) == str(teacher.pk)
    assert held_while_waiting == [None]


def test_without_a_flood_the_account_lock_is_five_tries(client, teacher):
    # Just under: the teacher's own name is one of the different names too.
    flood(client, settings.KAVET_AXES_CLIENT_FAILURE_LIMIT - 2)
    statuses = guess(client, teacher.username, settings.AXES_FAILURE_LIMIT)
    assert statuses == [200] * (settings.AXES_FAILURE_LIMIT - 1) + [429]


def test_made_up_and_real_names_are_slowed_alike(client, teacher, delays):
    flood(client, settings.KAVET_AXES_CLIENT_FAILURE_LIMIT + 2)
    delays.clear()
    sign_in(client, "never-an-account", "wrong")
    sign_in(client, teacher.username, "wrong")
    assert len(delays) == 2 and delays[0] > 0
    assert delays[1] == pytest.approx(delays[0] + auth_throttle.FLOOD_DELAY_STEP)


def test_a_flood_is_summed_up_once_per_burst(client, delays):
    limit = settings.KAVET_AXES_CLIENT_FAILURE_LIMIT
    flood(client, limit - 1)
    assert not SignInFlood.objects.exists()
    flood(client, 6, prefix="past-the-limit")
    (burst,) = SignInFlood.objects.all()
    assert burst.address == GUESSER
    assert burst.names == limit + 5 and burst.failures == limit + 5
    assert burst.started_at <= burst.last_at and burst.longest_delay_ms > 0
    # Another address floods separately.
    flood(client, limit, ip=TEACHER_DESK)
    assert SignInFlood.objects.filter(address=TEACHER_DESK).count() == 1


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


def test_students_tablet_sign_in_is_never_refused(client, classroom, students, delays):
    # The tablet's address has just flooded password logins...
    for i in range(settings.KAVET_AXES_CLIENT_FAILURE_LIMIT):
        guess(client, f"victim{i}", 1, ip="127.0.0.1")
    assert sign_in(client, "victim0", "x", ip="127.0.0.1").status_code == 429
    delays.clear()
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
    assert not delays  # ...and without the flood's wait


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


SCHOOL_ADDRESS = "192.0.2.50"  # the school's one address (NAT)
OTHER_SCHOOL_ADDRESS = "192.0.2.99"


def test_the_school_admin_sees_what_happened_to_their_school_only(
    client, school, delays, admin_second_wall
):
    """Issue 25.3: locks and tries against my school's accounts, and a note of the flood from
    an address my staff used; never another school's accounts nor the made-up names."""
    limit = settings.KAVET_AXES_CLIENT_FAILURE_LIMIT
    me = factories.school_admin(school=school, username="head")
    anne = factories.teacher(school=school, username="anne")
    other_school = factories.school(slug="other", name="Other school")
    their_admin = factories.school_admin(school=other_school, username="their-head")
    their_teacher = factories.teacher(school=other_school, username="their-teacher")
    # Staff sign in from their school's address (noted), then someone floods ours.
    for account, address in ((anne, SCHOOL_ADDRESS), (their_teacher, OTHER_SCHOOL_ADDRESS)):
        assert sign_in(client, account.username, RIGHT, ip=address).status_code == 302
        client.post(reverse("logout"))
    flood(client, limit + 10, ip=SCHOOL_ADDRESS, prefix="invented")
    guess(client, anne.username, 2, ip=SCHOOL_ADDRESS)  # anne is guessed at: paused there
    guess(client, their_teacher.username, 1, ip=SCHOOL_ADDRESS)
    assert sign_in(client, anne.username, RIGHT, ip=SCHOOL_ADDRESS).status_code == 429

    client.force_login(me)
    users = client.get(reverse("admin:classrooms_user_changelist"))
    page = users.content.decode()
    assert "Floods of failed sign-ins" in page and f"From {SCHOOL_ADDRESS}" in page
    assert f"{limit + 10 + 2} different names" in page  # the invented ones, anne, theirs
    assert "invented-" not in page and "their-teacher" not in page
    locked = {
        u.username: users.context["cl"].model_admin.signin_locked(u)
        for u in users.context["cl"].result_list
    }
    assert locked == {"head": False, "anne": True}
    attempts = client.get(reverse("admin:axes_accessattempt_changelist"))
    rows = attempts.context["cl"].result_list
    # Two wrong passwords, and the refused right one (each try starts the wait again).
    assert [(r.username, r.ip_address, r.failures_since_start) for r in rows] == [
        ("anne", SCHOOL_ADDRESS, 3)
    ]
    assert attempts.context["cl"].model_admin.signin_paused(rows[0]) is True
    assert f"From {SCHOOL_ADDRESS}" in attempts.content.decode()
    # The flood summary itself is the site administrators' page, not a school admin's.
    assert client.get(reverse("admin:throttles_signinflood_changelist")).status_code == 403

    # The other school's admin: their teacher was tried from our address, so they hear of it
    # too, and see their own teacher's failed try; nothing of ours.
    client.force_login(their_admin)
    theirs = client.get(reverse("admin:axes_accessattempt_changelist"))
    assert [r.username for r in theirs.context["cl"].result_list] == ["their-teacher"]
    assert (
        "anne" not in theirs.content.decode()
        and f"From {SCHOOL_ADDRESS}" in theirs.content.decode()
    )

    # Unlock sign-in lifts anne's pause; she signs in from the school at once.
    client.force_login(me)
    client.post(
        reverse("admin:classrooms_user_changelist"),
        {"action": "unlock_signin", "_selected_action": [anne.pk]},
    )
    client.logout()
    assert sign_in(client, anne.username, RIGHT, ip=SCHOOL_ADDRESS).status_code == 302


def test_a_flood_from_elsewhere_is_not_shown_to_the_school_admin(client, school, delays):
    me = factories.school_admin(school=school, username="head")
    flood(client, settings.KAVET_AXES_CLIENT_FAILURE_LIMIT + 1, ip=OTHER_SCHOOL_ADDRESS)
    client.force_login(me)
    page = client.get(reverse("admin:classrooms_user_changelist")).content.decode()
    assert "Floods of failed sign-ins" not in page and OTHER_SCHOOL_ADDRESS not in page
    # The site's superuser sees every flood, with its address.
    root = factories.user(
        role=User.Role.SCHOOL_ADMIN, school=None, username="root", is_staff=True, is_superuser=True
    )
    client.force_login(root)
    floods = client.get(reverse("admin:throttles_signinflood_changelist"))
    assert floods.status_code == 200 and OTHER_SCHOOL_ADDRESS in floods.content.decode()
    assert (
        f"From {OTHER_SCHOOL_ADDRESS}"
        in client.get(reverse("admin:classrooms_user_changelist")).content.decode()
    )


def test_old_floods_are_swept(client, delays):
    from kavet_site.throttles.tasks import sweep_floods

    flood(client, settings.KAVET_AXES_CLIENT_FAILURE_LIMIT)
    SignInFlood.objects.update(last_at=timezone.now() - timedelta(days=SignInFlood.KEEP_DAYS + 1))
    assert sweep_floods() == 1 and not SignInFlood.objects.exists()


class Clock:
    """The site's time and axes' (which imported `now` itself), moved on by the test."""

    def __init__(self, monkeypatch) -> None:
        import axes.attempts
        import axes.handlers.proxy

        self.now = timezone.now()
        for module in (timezone, axes.handlers.proxy, axes.attempts):
            monkeypatch.setattr(module, "now", lambda: self.now)

    def advance(self, **delta) -> None:
        self.now += timedelta(**delta)


def test_many_addresses_check_few_passwords_of_one_account_and_never_lock_it(
    client, teacher, monkeypatch
):
    """Issue 39, gap 4: 12 addresses x 5 tries put 48 wrong passwords against one teacher in 15
    minutes; across addresses the account is now paced, but never hard-locked."""
    from django.test import Client

    clock = Clock(monkeypatch)
    school_desk, home = "198.51.100.21", "198.51.100.22"
    assert sign_in(Client(), teacher.username, RIGHT, ip=school_desk).status_code == 302
    checked: list = []  # every wrong password compared with the teacher's (the one comparison)
    real_check = User.check_password

    def spy(user, raw_password):
        right = real_check(user, raw_password)
        if user.pk == teacher.pk and not right:
            checked.append(clock.now)
        return right

    monkeypatch.setattr(User, "check_password", spy)
    for _minute in range(15):  # 12 addresses guessing in turn, each a try a minute
        for n in range(12):
            guess(Client(), teacher.username, 1, ip=f"203.0.113.{100 + n}")
            clock.advance(seconds=5)
    # 5 free failures, then one a minute: not 48.
    assert (
        auth_throttle.ACCOUNT_FREE_FAILURES
        < len(checked)
        <= auth_throttle.ACCOUNT_FREE_FAILURES + 15
    )
    sign_in(Client(), teacher.username, "wrong", ip="203.0.113.98")  # the minute's check, if free
    paced = sign_in(Client(), teacher.username, "wrong", ip="203.0.113.99")
    assert paced.status_code == 429
    assert "checked once a minute" in paced.content.decode()
    # The teacher at the school's desk, where they signed in before: straight in.
    at_desk = Client()
    assert sign_in(at_desk, teacher.username, RIGHT, ip=school_desk).status_code == 302
    assert signed_in_as(at_desk) == str(teacher.pk)
    # At home (never signed in from there), in the thick of it: in within the minute.
    at_home = Client()
    for _try in range(3):
        if sign_in(at_home, teacher.username, RIGHT, ip=home).status_code == 302:
            break
        clock.advance(seconds=auth_throttle.ACCOUNT_PACE)
    assert signed_in_as(at_home) == str(teacher.pk)


def test_the_account_pace_is_explained_in_the_users_language(client, teacher, monkeypatch):
    Clock(monkeypatch)
    for n in range(auth_throttle.ACCOUNT_FREE_FAILURES + 1):
        guess(client, teacher.username, 1, ip=f"203.0.113.{150 + n}")
    sign_in(client, teacher.username, "wrong", ip="203.0.113.199")  # the minute's check
    page = sign_in(client, teacher.username, "wrong", ip="203.0.113.200", HTTP_ACCEPT_LANGUAGE="fr")
    assert page.status_code == 429
    assert "une minute" in page.content.decode()
