"""The staff's second factor (issue 39): TOTP through django-otp, recovery codes used once, a
school that requires it of its admins, a lost phone reset by another admin, wrong codes throttled."""

from __future__ import annotations

import time

import pytest
from axes.models import AccessAttempt
from django.urls import reverse
from django_otp.oath import TOTP
from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from classrooms.audit.models import Action, AuditEvent
from classrooms.twofactor import services
from classrooms.twofactor.models import SchoolSignInRule
from tests import factories

PASSWORD = "correct horse battery"
HOME = "/teacher/"


def code_for(key_hex: str, *, steps_ahead: int = 0) -> str:
    """The code an authenticator app shows (a step ahead: one never used yet, still accepted)."""
    totp = TOTP(bytes.fromhex(key_hex))
    totp.time = time.time() + 30 * steps_ahead
    return f"{totp.token():06d}"


def far_code(key_hex: str) -> str:
    """A code that is certainly wrong now: the one of an hour ago (tolerance is one step)."""
    code = code_for(key_hex, steps_ahead=-120)
    assert code not in {code_for(key_hex, steps_ahead=k) for k in (-1, 0, 1)}
    return code


def with_second_factor(user) -> tuple[TOTPDevice, list[str]]:
    key = TOTPDevice().key
    return services.second_factor_set_up(user=user, key=key, code=code_for(key))


def sign_in(client, user) -> None:
    response = client.post(reverse("login"), {"username": user.username, "password": PASSWORD})
    assert response.status_code == 302, response.content[:500]


@pytest.fixture
def admin_b(school):
    return factories.school_admin(school=school, username="deputy")


# --- setting it up ------------------------------------------------------------------------------


def test_setting_it_up_shows_a_qr_code_and_a_right_code_turns_it_on(client, teacher):
    client.force_login(teacher)
    page = client.get(reverse("twofactor:setup"))
    assert page.status_code == 200 and 'src="data:image/svg+xml' in page.content.decode()
    key = client.session[services.PENDING_KEY]
    wrong = client.post(reverse("twofactor:setup"), {"code": far_code(key)})
    assert wrong.status_code == 400 and "That code is not right" in wrong.content.decode()
    assert (
        not TOTPDevice.objects.exists()
        and not AuditEvent.objects.filter(action=Action.SECOND_FACTOR_ON).exists()
    )
    done = client.post(reverse("twofactor:setup"), {"code": code_for(key)})
    assert done.status_code == 200
    codes = done.context["codes"]
    assert len(codes) == services.RECOVERY_CODES == len(set(codes))
    assert TOTPDevice.objects.get(user=teacher).confirmed
    assert StaticToken.objects.filter(device__user=teacher).count() == services.RECOVERY_CODES
    assert AuditEvent.objects.get(action=Action.SECOND_FACTOR_ON).actor_id == teacher.pk
    # Shown once: the page of one's own second factor counts them, never shows them.
    mine = client.get(reverse("twofactor:mine")).content.decode()
    assert "10 recovery codes are left" in mine and not any(c in mine for c in codes)


# --- signing in ---------------------------------------------------------------------------------


def test_signing_in_asks_for_the_code_before_anything_else(client, teacher):
    device, _codes = with_second_factor(teacher)
    sign_in(client, teacher)
    blocked = client.get(HOME)
    assert blocked.status_code == 302 and blocked["Location"].startswith("/login/code/")
    wrong = client.post(reverse("twofactor:verify"), {"code": far_code(device.key), "next": HOME})
    assert wrong.status_code == 400
    assert "That code is not right" in wrong.content.decode()
    assert client.get(HOME).status_code == 302  # still nothing but the code page
    failed = AuditEvent.objects.get(action=Action.CODE_FAILED)
    assert (failed.actor_id, failed.target_id) == (teacher.pk, teacher.pk)
    # Counted by axes like a wrong password of this account from this address.
    assert AccessAttempt.objects.get(username=teacher.username).failures_since_start == 1
    device.refresh_from_db()
    device.throttle_reset()  # the device's own wait after a wrong code (1 s) is over
    ok = client.post(
        reverse("twofactor:verify"), {"code": code_for(device.key, steps_ahead=1), "next": HOME}
    )
    assert ok.status_code == 302 and ok["Location"] == HOME
    assert client.get(HOME).status_code == 200
    # Signed in once, when the code was right (not at the password).
    signed = AuditEvent.objects.get(action=Action.SIGNED_IN)
    assert signed.details == {"second_factor": True} and signed.actor_id == teacher.pk


def test_a_wrong_code_then_a_right_one_at_once_is_throttled(client, teacher):
    device, _codes = with_second_factor(teacher)
    sign_in(client, teacher)
    client.post(reverse("twofactor:verify"), {"code": far_code(device.key)})
    right_too_soon = client.post(
        reverse("twofactor:verify"), {"code": code_for(device.key, steps_ahead=1)}
    )
    assert right_too_soon.status_code == 400
    assert "Too many wrong codes. Wait until" in right_too_soon.content.decode()
    assert client.get(HOME).status_code == 302


def test_five_wrong_codes_sign_out_and_lock_the_account_from_there(client, teacher):
    device, _codes = with_second_factor(teacher)
    sign_in(client, teacher)
    answers = [
        client.post(reverse("twofactor:verify"), {"code": far_code(device.key)}).status_code
        for _try in range(5)
    ]
    assert answers[:4] == [400] * 4 and answers[4] == 429
    assert client.get(HOME)["Location"].startswith("/login/")  # signed out
    # The right password from there is refused too, until the cool-off.
    locked = client.post(reverse("login"), {"username": teacher.username, "password": PASSWORD})
    assert locked.status_code == 429
    assert AuditEvent.objects.filter(action=Action.CODE_FAILED).count() == 5


def test_a_recovery_code_signs_in_once(client, teacher):
    _device, codes = with_second_factor(teacher)
    sign_in(client, teacher)
    ok = client.post(reverse("twofactor:verify"), {"code": codes[0].upper(), "next": HOME})
    assert ok.status_code == 302
    assert client.get(HOME).status_code == 200
    used = AuditEvent.objects.get(action=Action.RECOVERY_CODE_USED)
    assert used.details["left"] == services.RECOVERY_CODES - 1
    client.post(reverse("logout"))
    sign_in(client, teacher)
    again = client.post(reverse("twofactor:verify"), {"code": codes[0]})
    assert again.status_code == 400 and client.get(HOME).status_code == 302
    assert StaticToken.objects.filter(device__user=teacher).count() == services.RECOVERY_CODES - 1


def test_without_a_second_factor_nothing_changes_at_sign_in(client, teacher):
    sign_in(client, teacher)
    assert client.get(HOME).status_code == 200


# --- the school's rule ------------------------------------------------------------------------------


def test_a_school_requiring_it_sends_its_admins_without_one_to_set_it_up(
    client, school, school_admin, admin_b
):
    # An admin without one cannot require it: refused, and nothing changed.
    client.force_login(school_admin)
    client.post(reverse("twofactor:school"), {"required": "on"})
    assert not SchoolSignInRule.objects.filter(admins_need_second_factor=True).exists()
    client.logout()
    with_second_factor(school_admin)
    services.school_rule_set(school=school, required=True, by=school_admin)
    sign_in(client, admin_b)
    sent = client.get(HOME)
    assert sent.status_code == 302 and sent["Location"].startswith(reverse("twofactor:setup"))
    assert client.get("/admin/")["Location"].startswith(reverse("twofactor:setup"))
    assert client.get(reverse("twofactor:setup")).status_code == 200
    key = client.session[services.PENDING_KEY]
    assert client.post(reverse("twofactor:setup"), {"code": code_for(key)}).status_code == 200
    assert client.get(HOME).status_code == 200
    # Now required of them, they cannot turn it off.
    client.post(reverse("twofactor:turn_off"), {"confirm": "yes"})
    assert TOTPDevice.objects.filter(user=admin_b).exists()


def test_turning_the_rule_on_is_logged_as_a_school_setting(client, school, school_admin):
    device, _codes = with_second_factor(school_admin)
    client.force_login(school_admin)
    client.post(reverse("twofactor:verify"), {"code": code_for(device.key, steps_ahead=1)})
    client.post(reverse("twofactor:school"), {"required": "on"})
    assert SchoolSignInRule.objects.get(school=school).admins_need_second_factor
    changed = AuditEvent.objects.get(action=Action.SCHOOL_CHANGED)
    assert changed.details == {"changed": ["admins_need_second_factor"], "new": True}
    # In plain words on the admin's activity page.
    page = client.get(reverse("audit:activity")).content.decode()
    assert "school admins must use a second factor; now: yes" in page


def test_a_school_not_requiring_it_leaves_its_teachers_free(client, school, teacher):
    SchoolSignInRule.objects.create(school=school, admins_need_second_factor=True)
    sign_in(client, teacher)
    assert client.get(HOME).status_code == 200


# --- a lost phone ---------------------------------------------------------------------------------


def test_another_admin_resets_a_lost_phone(client, school, school_admin, admin_b):
    with_second_factor(admin_b)
    client.force_login(school_admin)
    url = reverse("twofactor:reset", args=[admin_b.pk])
    client.post(url, {})  # the box not ticked: nothing happens
    assert TOTPDevice.objects.filter(user=admin_b).exists()
    client.post(url, {"confirm": "yes"})
    assert not TOTPDevice.objects.filter(user=admin_b).exists()
    assert not StaticToken.objects.filter(device__user=admin_b).exists()
    reset = AuditEvent.objects.get(action=Action.SECOND_FACTOR_RESET)
    assert (reset.actor_id, reset.target_id, reset.school_id) == (
        school_admin.pk,
        admin_b.pk,
        school.pk,
    )
    client.logout()
    sign_in(client, admin_b)  # no code asked any more: they set up a new one when they wish
    assert client.get(HOME).status_code == 200


def test_nobody_resets_their_own_nor_another_schools(
    client, school, other_school, school_admin, teacher
):
    with_second_factor(school_admin)
    faraway = factories.school_admin(school=other_school, username="faraway-head")
    client.force_login(faraway)
    response = client.post(reverse("twofactor:reset", args=[teacher.pk]), {"confirm": "yes"})
    assert response.status_code == 404
    client.force_login(teacher)
    response = client.post(reverse("twofactor:reset", args=[school_admin.pk]), {"confirm": "yes"})
    assert response.status_code == 403
    assert TOTPDevice.objects.filter(user=school_admin).count() == 1
    with pytest.raises(Exception, match="Another admin"):
        services.second_factor_reset(target=school_admin, by=school_admin)
    assert not AuditEvent.objects.filter(action=Action.SECOND_FACTOR_RESET).exists()


def test_a_password_reset_by_email_leaves_the_second_factor_asked(client, teacher):
    """Never by email alone: whoever holds the email link sets a password, not past the code."""
    from django.contrib.auth.tokens import default_token_generator
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    with_second_factor(teacher)
    uid = urlsafe_base64_encode(force_bytes(teacher.pk))
    token = default_token_generator.make_token(teacher)
    form = client.get(reverse("password_reset_confirm", args=[uid, token]), follow=True)
    new = "another long pass phrase 7"
    client.post(form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert (
        client.post(reverse("login"), {"username": teacher.username, "password": new}).status_code
        == 302
    )
    assert client.get(HOME)["Location"].startswith("/login/code/")
    assert TOTPDevice.objects.filter(user=teacher).exists()


def test_the_check_costs_a_teacher_no_query(client, teacher, settings):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(teacher)

    def queries() -> int:
        client.get(HOME)  # warm: the same caches both times
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(HOME).status_code == 200
        return len(ctx.captured_queries)

    with_check = queries()
    mine = "classrooms.twofactor.middleware.SecondFactorMiddleware"
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if m != mine]
    assert queries() == with_check
