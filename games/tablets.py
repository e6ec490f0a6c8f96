"""The tablet registry and the check of a child's pictures on a tablet.

A tablet id is signed by the server, handed out and kept in a registry (games.models.Tablet:
an id not seen for TABLET_DAYS, or never handed out, is a new tablet); new ids are limited per
client address, so throwing the cookie away buys no tries. A tablet that signed a child in
before is one of the child's own (TabletSignin). signin_check is the one check of a try: it
counts the wrong ones (classrooms.signin_locks) and trusts the tablet on a right one. The
sign-in pages are games.signin.
"""

from __future__ import annotations

import re
import secrets
from datetime import timedelta

from django.conf import settings
from django.core.signing import BadSignature
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.translation import gettext as _

from classrooms.models import Student
from classrooms.pictures import encode
from classrooms.signin_locks import (
    TRY_WINDOW,
    count_try,
    day_used_up,
    note_guessed,
    note_lock,
    pair_key,
    stranger_try,
    strangers_paused,
    tries_left,
)
from kavet_site.clientip import client_bucket
from kavet_site.throttles import counters

from .models import Tablet, TabletSignin

TABLET_COOKIE = "kavet_tablet"
COOKIE_AGE = 400 * 24 * 3600  # a school year and then some: entered once per tablet
TABLET_SALT = "kavet.tablet.id"
# New tablet ids handed out per client address (a school shares one) within the mint window:
# a big school setting up all its tablets in one hour. Past it the address's tablets share one
# id. A fresh id buys a guesser nothing (the limits per child and per address hold whatever
# the id); the limit keeps the registry from being filled.
MINT_TRIES = 100
MINT_WINDOW = 60 * 60
# A tablet not seen for this long is new again (longer than the summer holidays, so a class's
# tablets keep their children over the year); its last-seen time is written at most daily.
TABLET_DAYS = 90
TABLET_SEEN_EVERY = timedelta(days=1)
_TABLET_ID = re.compile(r"[A-Za-z0-9_-]{16,40}")


def too_many_message() -> str:
    return _("Too many tries. Wait a few minutes, or ask your teacher for help.")


def cookie_options() -> dict:
    """HttpOnly, SameSite=Lax, and Secure whenever the site is served over HTTPS."""
    return {
        "max_age": COOKIE_AGE,
        "httponly": True,
        "samesite": "Lax",
        "secure": bool(getattr(settings, "KAVET_COOKIE_SECURE", False)),
    }


def _tablet_cutoff():
    return timezone.now() - timedelta(days=TABLET_DAYS)


def _tablet_known(ident: str) -> bool:
    """Whether the registry knows this id and has seen it lately; marks it seen (daily)."""
    seen = (
        Tablet.objects.filter(pk=ident, last_seen_at__gt=_tablet_cutoff())
        .values_list("last_seen_at", flat=True)
        .first()
    )
    if seen is None:
        return False
    now = timezone.now()
    if seen < now - TABLET_SEEN_EVERY:
        Tablet.objects.filter(pk=ident).update(last_seen_at=now)
    return True


def tablet_id(request: HttpRequest, *, mint: bool = False) -> str | None:
    """The id this tablet was given and signed by the server; None when it has none.

    An id the registry does not know (never handed out, or not seen for TABLET_DAYS) is no id.
    With ``mint`` a tablet without a valid id gets a new one (sent back by ``with_tablet_cookie``),
    unless its address has had too many new ids lately: then it shares one id with every other
    tablet of that address (never one of a child's own tablets), so clearing the cookie never
    gives fresh tries.
    """
    known = getattr(request, "_kavet_tablet", None)
    if known:
        return known
    try:
        value = request.get_signed_cookie(TABLET_COOKIE, salt=TABLET_SALT)
    except (KeyError, BadSignature):
        value = None
    if value and _TABLET_ID.fullmatch(value) and _tablet_known(value):
        request._kavet_tablet = value
        return value
    if not mint:
        return None
    bucket = client_bucket(request)
    if count_try("mint", bucket, MINT_WINDOW) > MINT_TRIES:
        ident = f"ip-{bucket}"
    else:
        ident = secrets.token_urlsafe(18)
        Tablet.objects.create(ident=ident, last_seen_at=timezone.now())
        request._kavet_new_tablet = ident
    request._kavet_tablet = ident
    return ident


def with_tablet_cookie(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """Send the tablet id minted during this request, signed."""
    new = getattr(request, "_kavet_new_tablet", None)
    if new:
        response.set_signed_cookie(TABLET_COOKIE, new, salt=TABLET_SALT, **cookie_options())
    return response


def tablets_sweep() -> int:
    """Forget the tablets not seen for TABLET_DAYS (and which children they signed in); how many."""
    deleted, _by_model = Tablet.objects.filter(last_seen_at__lte=_tablet_cutoff()).delete()
    return deleted


def _own_tablet(student: Student, tablet: str | None) -> bool:
    """Whether this (registered) tablet has signed this child in before."""
    if not tablet:
        return False
    return TabletSignin.objects.filter(tablet_id=tablet, student=student).exists()


def _trust(student: Student, tablet: str) -> None:
    """Remember that this tablet signed the child in (a registered id only, never an address's)."""
    if not Tablet.objects.filter(pk=tablet).exists():
        return
    TabletSignin.objects.update_or_create(
        tablet_id=tablet, student=student, defaults={"signed_in_at": timezone.now()}
    )


def paused(student: Student, tablet: str | None) -> bool:
    """Whether this tablet may not check pictures for this child right now."""
    if tries_left(student=student, tablet=tablet) <= 0:
        return True
    return not _own_tablet(student, tablet) and strangers_paused(student)


def _is_their_code(student: Student, pictures: tuple[int, ...]) -> bool:
    """The one comparison of a try with the child's pictures (every check counted comes here)."""
    return secrets.compare_digest(encode(pictures), student.picture_code)


def signin_check(*, student: Student, pictures: tuple[int, ...], tablet: str) -> str | None:
    """None when the pictures are the student's; else a friendly reason. Counts failures."""
    if tries_left(student=student, tablet=tablet) <= 0:
        note_lock(student, tablet)
        return too_many_message()
    own = _own_tablet(student, tablet)
    slots = None if own else stranger_try(student)
    if not own and slots is None:
        return too_many_message()
    if _is_their_code(student, pictures):
        if slots is not None:  # a right try is not a wrong one: its slots go back
            counters.clear(*slots)
        counters.clear(pair_key(student, tablet))
        _trust(student, tablet)
        return None
    count_try("st", f"{student.pk}:{tablet}", TRY_WINDOW)
    count_try("t", tablet, TRY_WINDOW)
    if not own and strangers_paused(student):  # that was the last one: the teacher is told
        note_guessed(student, until_day_is_over=day_used_up(student))
    if tries_left(student=student, tablet=tablet) <= 0:
        note_lock(student, tablet)
        return too_many_message()
    return _("Those are not your pictures. Try again!")
