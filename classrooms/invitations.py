"""One lifecycle for every invitation: a teacher's link to join a school, a parent's code to
follow a child (issue 35). Make, open, redeem once, withdraw, list what is pending, and count
wrong guesses: written once here, for any kind.

A kind (`Kind`) plugs in what differs, explicitly, as values and functions:
- its model, a subclass of `classrooms.models.Invitation` (the shared fields: the secret's
  hash, the expiry, used / withdrawn), whose permission rule (classrooms.permissions.rules)
  says who may withdraw a row;
- its secret (`Secret`): a long token in a link, or a short code typed from a paper slip;
- what making one needs (`build`: the unsaved row for a target, a school or a child) and who may
  make one for that target (`may_make`);
- what redeeming does (`redeem`: a teacher's account in the school, a parent's link to the
  child), which returns the result and the account that redeemed;
- the words a person reads for each refusal, in their language.

The kinds themselves live with their floor: `classrooms.services.TEACHER_LINK` and
`reports.services.PARENT_CODE`; this module names neither.

Only a sha256 of the secret is stored; the secret is shown once (`create` returns it). Redeeming
locks the row (`select_for_update`) and checks it again under the lock, so a second tab or
tablet pressing the same button waits, then reads "already used", and nothing is done twice.
"""

from __future__ import annotations

import hashlib
import secrets as random_secrets
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from kavet_site.clientip import client_bucket
from kavet_site.throttles import counters

from . import permissions
from .models import Invitation, User

# Why an invitation is refused: one reason each, one sentence each per kind.
MALFORMED = "malformed"  # not even the shape of a secret of this kind
UNKNOWN = "unknown"
EXPIRED = "expired"
USED = "used"
WITHDRAWN = "withdrawn"
THROTTLED = "throttled"  # too many wrong tries: not even looked up
REASONS = (MALFORMED, UNKNOWN, EXPIRED, USED, WITHDRAWN, THROTTLED)

# Wrong secrets allowed per window, per client address, per account and per secret tried.
GUESSES = 10
GUESS_WINDOW = 15 * 60

# The one alphabet of the codes people type (class codes, parents' codes): no 0/O, no 1/I,
# since they are read aloud by children and copied from paper slips.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


# --- secrets -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Secret:
    """How a kind's secret is made, read back and shown."""

    new: Callable[[], str]
    canonical: Callable[[str], str]  # what is hashed: the secret as typed, tidied
    well_formed: Callable[[str], bool]  # on the canonical form
    shown: Callable[[str], str]  # how it is shown once


def _code_canonical(code: str) -> str:
    return "".join(ch for ch in (code or "").upper() if ch.isalnum())


def _code_shown(code: str) -> str:
    code = _code_canonical(code)
    return "-".join(code[i : i + 4] for i in range(0, len(code), 4))


def slip_code(length: int) -> Secret:
    """A code of `length` letters and digits, shown in groups of four (ABCD-EFGH-JK23); typed
    back in any case, with or without the dashes or spaces."""
    return Secret(
        new=lambda: "".join(random_secrets.choice(CODE_ALPHABET) for _i in range(length)),
        canonical=_code_canonical,
        well_formed=lambda code: len(code) == length,
        shown=_code_shown,
    )


def link_token(nbytes: int = 24) -> Secret:
    """A URL-safe token of `nbytes` random bytes, for a link that is clicked, never typed."""
    return Secret(
        new=lambda: random_secrets.token_urlsafe(nbytes),
        canonical=lambda token: (token or "").strip(),
        well_formed=lambda token: 0 < len(token) <= 100,
        shown=lambda token: token,
    )


def secret_hash(secret: Secret, value: str) -> str:
    return hashlib.sha256(secret.canonical(value).encode()).hexdigest()


# --- kinds -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """One kind of invitation: everything the lifecycle does differently for it."""

    name: str  # "teacher", "parent": in the guess counters' names
    model: type[Invitation]
    secret: Secret
    days: int  # how long a new one stays valid
    # The unsaved row for a target (with its own fields), made by `by`.
    build: Callable[..., Invitation]
    # Whether `by` may make one for this target (a school, a child).
    may_make: Callable[[User, Any], bool]
    # Does what the invitation invites to: (invitation, **details) -> (result, who redeemed).
    redeem: Callable[..., tuple[Any, User]]
    # The sentence for each reason in REASONS, and for a refused `create` ("forbidden").
    refusals: Mapping[str, Any]


class InvitationRefused(ValidationError):
    """An invitation that cannot be used, with the reason and the sentence for it. Its code is
    `invite_<reason>`."""

    def __init__(self, kind: Kind, reason: str):
        self.kind, self.reason = kind, reason
        super().__init__(kind.refusals[reason], code=f"invite_{reason}")


# --- the lifecycle -----------------------------------------------------------------------------


@transaction.atomic
def create(kind: Kind, *, by: User, target: Any, **fields: Any) -> tuple[Invitation, str]:
    """A new invitation of this kind for `target`; returns it and its secret, as it is shown.

    The secret is not kept: it is shown this once (on the admin's page, on the printed slip).
    """
    if not kind.may_make(by, target):
        raise ValidationError(kind.refusals["forbidden"], code="forbidden")
    while True:
        value = kind.secret.new()
        invitation = kind.build(target=target, by=by, **fields)
        invitation.secret_hash = secret_hash(kind.secret, value)
        invitation.created_by = by
        invitation.expires_at = timezone.now() + timedelta(days=kind.days)
        try:
            with transaction.atomic():
                invitation.save(force_insert=True)
        except IntegrityError:  # the same hash as another one: astronomically rare, never a crash
            invitation.pk = None
            continue
        return invitation, kind.secret.shown(value)


def _refusal(invitation: Invitation | None, now) -> str | None:
    if invitation is None:
        return UNKNOWN
    state = invitation.state(now)
    return None if state == "pending" else state


def open_secret(kind: Kind, value: str, *, lock: bool = False) -> Invitation:
    """The pending invitation this secret opens, or InvitationRefused with the reason. With
    `lock`, inside a transaction, the row stays locked until it ends."""
    canonical = kind.secret.canonical(value)
    if not kind.secret.well_formed(canonical):
        raise InvitationRefused(kind, MALFORMED)
    rows = kind.model._default_manager.filter(secret_hash=secret_hash(kind.secret, canonical))
    if lock:
        rows = rows.select_for_update(no_key=True)
    invitation = rows.first()
    reason = _refusal(invitation, timezone.now())
    if reason:
        raise InvitationRefused(kind, reason)
    return invitation


@transaction.atomic
def redeem(kind: Kind, value: str, **details: Any) -> Any:
    """Use the invitation of this secret once: the kind's `redeem` with `details`, then the
    invitation is spent. Under the row's lock: of two at once, the second is refused as used."""
    return _spend(kind, open_secret(kind, value, lock=True), kind.redeem, details)


@transaction.atomic
def spend(
    kind: Kind, invitation: Invitation, action: Callable[..., tuple[Any, User]], **details: Any
) -> Any:
    """Use an invitation found some other way than by its secret (a teacher vouched for by the
    school's sign-in service: classrooms.oidc), with its own `action`; the same lock and the
    same refusals as `redeem`."""
    row = kind.model._default_manager.select_for_update(no_key=True).filter(pk=invitation.pk)
    row = row.first()
    reason = _refusal(row, timezone.now())
    if reason:
        raise InvitationRefused(kind, reason)
    return _spend(kind, row, action, details)


def _spend(kind: Kind, invitation: Invitation, action, details: dict) -> Any:
    result, user = action(invitation, **details)
    invitation.used_at, invitation.used_by = timezone.now(), user
    invitation.save(update_fields=["used_at", "used_by"])
    return result


@transaction.atomic
def withdraw(kind: Kind, invitation: Invitation, *, by: User) -> bool:
    """The invitation no longer works; False if it was no longer pending (used, or withdrawn
    already). Only someone the kind's permission rule lets manage the row may withdraw it."""
    rows = permissions.manageable(by, kind.model).filter(pk=invitation.pk)
    if not rows.exists():
        raise ValidationError(kind.refusals["forbidden"], code="forbidden")
    now = timezone.now()
    done = rows.filter(used_at__isnull=True, revoked_at__isnull=True).update(revoked_at=now)
    if done:
        invitation.revoked_at = now
    return bool(done)


def pending(rows: QuerySet) -> QuerySet:
    """The invitations of `rows` that still work: not used, not withdrawn, not expired."""
    return rows.filter(used_at__isnull=True, revoked_at__isnull=True, expires_at__gt=timezone.now())


# --- wrong guesses -----------------------------------------------------------------------------
# Counted per client address (as the trusted proxies saw it: never the load balancer's, which
# would be everyone at once), per signed-in account, and per secret tried. Each key locks only
# the one client, account or secret, for at most one window. In the database
# (kavet_site.throttles.counters), so a Redis outage lifts no limit.


def _guess_keys(kind: Kind, request: HttpRequest, value: str) -> list[str]:
    keys = [f"invite:{kind.name}:ip:{client_bucket(request)}"]
    if request.user.is_authenticated:
        keys.append(f"invite:{kind.name}:user:{request.user.pk}")
    canonical = kind.secret.canonical(value)[:100]
    if canonical:
        digest = hashlib.sha256(canonical.encode()).hexdigest()[:32]
        keys.append(f"invite:{kind.name}:secret:{digest}")
    return keys


def too_many_guesses(kind: Kind, request: HttpRequest, value: str = "") -> bool:
    keys = _guess_keys(kind, request, value)
    return any(n >= GUESSES for n in counters.counts(keys).values())


def count_guess(kind: Kind, request: HttpRequest, value: str = "") -> None:
    for key in _guess_keys(kind, request, value):
        counters.hit(key, GUESS_WINDOW)


@contextmanager
def guessing(kind: Kind, request: HttpRequest, value: str) -> Iterator[None]:
    """Around a request's use of a secret: refused at once (THROTTLED) after too many wrong
    tries, and every refusal of the secret inside counts as one."""
    if too_many_guesses(kind, request, value):
        raise InvitationRefused(kind, THROTTLED)
    try:
        yield
    except InvitationRefused:
        count_guess(kind, request, value)
        raise
