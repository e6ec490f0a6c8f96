"""A second factor for staff: set up, check at sign-in, recovery codes, reset by another admin.

Sign-in: the password step is Django's (throttled by django-axes, kavet_site/auth_throttle.py).
When a teacher or school admin with a second factor signs in, the session is marked "verify"
(ask_on_sign_in) and SecondFactorMiddleware lets it reach nothing but the code page and sign-out
until a code from the phone's app (TOTP) or a recovery code is accepted. A wrong code is counted
by axes as a failed sign-in of that account from that address (so 5 wrong codes lock it there,
like 5 wrong passwords), and by django-otp's own throttle on the device (1, 2, 4, 8... seconds
between tries, kept across sessions and only reset by a right code): a password does not buy
fresh code tries. A school admin of a school that requires a second factor, without one, is
sent to set it up (SecondFactorMiddleware asks admins_must_set_up on each of their requests
until their session is verified).

A lost phone: another admin of the same school resets it (second_factor_reset), never an email;
the person then sets up a new one at their next sign-in. The last admin of a school is reset by
the site's administrators (the Django admin lists django-otp's devices to a superuser).
"""

from __future__ import annotations

import re
from binascii import unhexlify
from dataclasses import dataclass
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django_otp import login as otp_login
from django_otp.oath import TOTP
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice, default_key

from classrooms import permissions
from classrooms.models import School, User

from .models import SchoolSignInRule

RECOVERY_CODES = 10
# The session's mark while a second step is owed: VERIFY (a code) or SET_UP (a new device).
SESSION_FLAG = "kavet_2fa"
VERIFY = "verify"
SET_UP = "setup"
# The secret of a device being set up lives in the session until a right code confirms it.
PENDING_KEY = "kavet_2fa_key"
_DIGITS = re.compile(r"^\d{6}$")
_RECOVERY = re.compile(r"^[a-z2-7]{8}$")


def has_second_factor(user) -> bool:
    return TOTPDevice.objects.filter(user_id=user.pk, confirmed=True).exists()


def recovery_codes_left(user) -> int:
    return StaticToken.objects.filter(device__user_id=user.pk, device__confirmed=True).count()


def school_requires(school_id: int | None) -> bool:
    return SchoolSignInRule.objects.filter(
        school_id=school_id, admins_need_second_factor=True
    ).exists()


def admins_must_set_up(user) -> bool:
    """A school admin of a school that requires it, without a second factor yet."""
    return (
        permissions.is_school_admin(user)
        and school_requires(user.school_id)
        and not has_second_factor(user)
    )


def ask_on_sign_in(sender, request, user, **kwargs) -> None:
    """user_logged_in: a member of staff with a second factor owes a code before anything else."""
    if request is None or not hasattr(request, "session") or not permissions.is_staff(user):
        return
    if has_second_factor(user):
        request.session[SESSION_FLAG] = VERIFY
    elif admins_must_set_up(user):
        request.session[SESSION_FLAG] = SET_UP


def session_verified(request, device) -> None:
    """The second step is done: the session is the user's in full (django-otp notes the device)."""
    request.session.pop(SESSION_FLAG, None)
    request.session.pop(PENDING_KEY, None)
    otp_login(request, device)


# --- setting up -----------------------------------------------------------------------------


def pending_key(request) -> str:
    """The secret shown on the set-up page, the same until it is confirmed (or signed out)."""
    key = request.session.get(PENDING_KEY)
    if not key:
        key = request.session[PENDING_KEY] = default_key()
    return key


def config_url(user, key: str) -> str:
    """The otpauth:// address the phone's app reads from the QR code."""
    return TOTPDevice(user=user, key=key).config_url


def _code_text(code: str) -> str:
    return re.sub(r"[\s-]", "", str(code or ""))[:32].lower()


def _wrong_code() -> ValidationError:
    return ValidationError(
        _("That code is not right. Type the 6 digits your app shows now (check the phone's time)."),
        code="code_wrong",
    )


@transaction.atomic
def second_factor_set_up(*, user: User, key: str, code: str) -> tuple[TOTPDevice, list[str]]:
    """Confirm the app with a code it shows now; returns the device and new recovery codes.

    Replaces any device the person had (their old phone and old recovery codes stop working).
    Nothing is saved when the code is wrong.
    """
    code = _code_text(code)
    if not _DIGITS.match(code):
        raise _wrong_code()
    try:
        totp = TOTP(unhexlify(key.encode()))
    except (ValueError, TypeError):
        raise ValidationError(_("Start again: the set-up page has expired."), code="key") from None
    totp.time = timezone.now().timestamp()
    if not totp.verify(int(code), tolerance=1):
        raise _wrong_code()
    second_factor_remove(user=user)
    device = TOTPDevice.objects.create(
        user=user, name=_("Authenticator app"), key=key, confirmed=True, last_t=totp.t()
    )
    return device, recovery_codes_new(user=user)


@transaction.atomic
def recovery_codes_new(*, user: User) -> list[str]:
    """RECOVERY_CODES new single-use codes; the old ones stop working. Shown once, then only
    their count: django-otp keeps them to compare with what is typed."""
    StaticDevice.objects.filter(user_id=user.pk).delete()
    device = StaticDevice.objects.create(user=user, name=_("Recovery codes"), confirmed=True)
    codes = []
    while len(codes) < RECOVERY_CODES:
        token = StaticToken.random_token()
        if token not in codes:
            codes.append(token)
    StaticToken.objects.bulk_create([StaticToken(device=device, token=t) for t in codes])
    return codes


def second_factor_remove(*, user: User) -> None:
    TOTPDevice.objects.filter(user_id=user.pk).delete()
    StaticDevice.objects.filter(user_id=user.pk).delete()


@transaction.atomic
def second_factor_turn_off(*, user: User) -> None:
    """The person turns theirs off, unless their school requires it of them."""
    if permissions.is_school_admin(user) and school_requires(user.school_id):
        raise ValidationError(
            _("Your school requires a second factor for its admins: it cannot be turned off."),
            code="required",
        )
    second_factor_remove(user=user)


@transaction.atomic
def second_factor_reset(*, target: User, by: User) -> None:
    """Another admin of the same school resets a colleague's second factor (a lost phone)."""
    if target.pk == by.pk:
        raise ValidationError(
            _("Another admin of your school must reset your second factor."), code="self"
        )
    if not (
        permissions.is_admin_of_school(by, target.school_id)
        and permissions.is_staff(target)
        and target.school_id
    ):
        raise ValidationError(_("This account is not one of your school's staff."), code="foreign")
    second_factor_remove(user=target)


@transaction.atomic
def school_rule_set(*, school: School, required: bool, by: User) -> bool:
    """Require (or stop requiring) a second factor of the school's admins; True if it changed.

    An admin without a second factor of their own cannot require one: they would be sent to set
    it up at once, so they set theirs up first.
    """
    if not permissions.is_admin_of_school(by, school.pk):
        raise ValidationError(_("Only the school's admin can change this."), code="forbidden")
    if required and not has_second_factor(by):
        raise ValidationError(
            _("Set up your own second factor first, then require it of the school's admins."),
            code="own_first",
        )
    rule, _created = SchoolSignInRule.objects.select_for_update(no_key=True).get_or_create(
        school=school
    )
    if rule.admins_need_second_factor == required:
        return False
    rule.admins_need_second_factor = required
    rule.save(update_fields=["admins_need_second_factor", "changed_at"])
    return True


# --- the code at sign-in ---------------------------------------------------------------------


@dataclass
class CodeCheck:
    device: TOTPDevice | StaticDevice | None = None
    wait_until: datetime | None = None  # django-otp's throttle: no try is checked before then

    @property
    def recovery(self) -> bool:
        return isinstance(self.device, StaticDevice)


def code_check(*, user: User, code: str) -> CodeCheck:
    """The device that accepts `code` (6 digits: the app; 8 letters and digits: a recovery code,
    used up), or why none did. Each device throttles its own wrong tries (django-otp)."""
    code = _code_text(code)
    if _DIGITS.match(code):
        model = TOTPDevice
    elif _RECOVERY.match(code):
        model = StaticDevice
    else:
        return CodeCheck()
    result = CodeCheck()
    with transaction.atomic():
        for device in model.objects.select_for_update(no_key=True).filter(
            user_id=user.pk, confirmed=True
        ):
            allowed, info = device.verify_is_allowed()
            if not allowed:
                result.wait_until = (info or {}).get("locked_until")
                continue
            if device.verify_token(code):
                return CodeCheck(device=device)
    return result


def with_second_factor(user_ids: list[int]) -> set[int]:
    """Which of these accounts have a second factor (one query)."""
    return set(
        TOTPDevice.objects.filter(user_id__in=user_ids, confirmed=True).values_list(
            "user_id", flat=True
        )
    )


def secret_text(key: str) -> str:
    """The secret as a phone's app asks for it when typed by hand: base32, in groups of four."""
    from base64 import b32encode

    text = b32encode(unhexlify(key.encode())).decode()
    return " ".join(text[i : i + 4] for i in range(0, len(text), 4))
