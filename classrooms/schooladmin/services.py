"""Writes of the school admin's pages that no other page makes: staff accounts, the settings."""

from __future__ import annotations

from zoneinfo import available_timezones

from axes.utils import reset as axes_reset
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _

from ..models import Programme, School, User
from ..permissions import is_admin_of_school
from ..retention import site_retention_years


def _own_staff(account: User, by: User) -> None:
    if not is_admin_of_school(by, account.school_id) or account.role not in (
        User.Role.TEACHER,
        User.Role.SCHOOL_ADMIN,
    ):
        raise ValidationError(_("This account is not one of your school's staff."), code="foreign")


@transaction.atomic
def staff_set_active(*, account: User, active: bool, by: User) -> User:
    """Deactivate a colleague (they can no longer sign in; their classes stay) or bring them back."""
    _own_staff(account, by)
    if account.pk == by.pk and not active:
        raise ValidationError(
            _("You cannot deactivate your own account: ask another admin."), code="self"
        )
    User.objects.filter(pk=account.pk).update(is_active=active)
    account.is_active = active
    return account


def staff_password_link(*, account: User, by: User, base_url: str) -> str:
    """A one-time link where a teacher chooses a new password (Django's reset link, valid
    PASSWORD_RESET_TIMEOUT); the admin hands it over. The old password stays until it is used;
    any sign-in pause is lifted when it is."""
    _own_staff(account, by)
    if account.role != User.Role.TEACHER:
        raise ValidationError(
            _("An admin's password is reset by the admin themself, or by the site's team."),
            code="admin_password",
        )
    if not account.is_active:
        raise ValidationError(_("Reactivate the account first."), code="inactive")
    path = reverse(
        "password_reset_confirm",
        kwargs={
            "uidb64": urlsafe_base64_encode(force_bytes(account.pk)),
            "token": default_token_generator.make_token(account),
        },
    )
    return base_url.rstrip("/") + path


def staff_signin_unlock(*, account: User, by: User) -> int:
    """Lift the sign-in pause of a colleague (wrong passwords); how many pauses were lifted."""
    _own_staff(account, by)
    return axes_reset(username=account.username)


ZONES = sorted(z for z in available_timezones() if "/" in z and not z.startswith("Etc/"))

# The zones a school of each programme is most likely in, offered first (the full list follows,
# by region): metropolitan France and its overseas departments and territories; the German-
# speaking countries; the time zones of the United States.
USUAL_ZONES = {
    "fr": [
        "Europe/Paris",
        "America/Guadeloupe",
        "America/Martinique",
        "America/Cayenne",
        "Indian/Reunion",
        "Indian/Mayotte",
        "Pacific/Noumea",
        "Pacific/Tahiti",
    ],
    "de": ["Europe/Berlin", "Europe/Vienna", "Europe/Zurich", "Europe/Luxembourg"],
    "us": [
        "America/New_York",
        "America/Chicago",
        "America/Denver",
        "America/Phoenix",
        "America/Los_Angeles",
        "America/Anchorage",
        "Pacific/Honolulu",
    ],
}


def zone_choices(programme: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """The time zones as grouped choices: the usual ones of the school's programme first, then
    every zone under its region ("Europe", "America"...), each shown as its city."""
    usual = [z for z in USUAL_ZONES.get(programme, []) if z in ZONES]
    regions: dict[str, list[tuple[str, str]]] = {}
    for zone in ZONES:
        region, _slash, place = zone.partition("/")
        regions.setdefault(region, []).append((zone, place.replace("_", " ").replace("/", " – ")))
    groups = [(_("Usual for this school"), [(z, z.replace("_", " ")) for z in usual])]
    return groups + [(region, regions[region]) for region in sorted(regions)]


@transaction.atomic
def school_settings_set(
    *, school: School, by: User, programme: str, time_zone: str, retention_years: int | None
) -> School:
    """The school's programme, time zone and how long its play data is kept (at most the site's)."""
    if not is_admin_of_school(by, school.pk):
        raise ValidationError(
            _("Only the school's admin can change its settings."), code="forbidden"
        )
    if programme not in Programme.values:
        raise ValidationError(_("Choose one of the programmes listed."), code="programme")
    if time_zone not in ZONES:
        raise ValidationError(_("Choose a time zone from the list."), code="time_zone")
    site = site_retention_years()
    if retention_years is not None and not 0 <= retention_years <= site:
        raise ValidationError(
            _("Play data is kept 0 to %(max)s years after its school year on this site.")
            % {"max": site},
            code="retention",
        )
    school = School.objects.select_for_update(no_key=True).get(pk=school.pk)
    school.programme, school.time_zone = programme, time_zone
    school.retention_years = None if retention_years == site else retention_years
    school.save(update_fields=["programme", "time_zone", "retention_years"])
    return school
