"""Password-login throttling on top of django-axes (settings: the AXES_* lines in "Auth").

Counted over the cool-off window (AXES_COOLOFF_TIME) from axes' AccessAttempt rows:

- one account from one client address (AXES_FAILURE_LIMIT, 5): a guesser locks that name out
  from where they are, while the teacher at another computer still signs in;
- one client address, over different names (KAVET_AXES_CLIENT_FAILURE_LIMIT, 20 names): a
  *flood*. A whole school reaches us through one address (NAT), so a flood never refuses a
  name with no wrong password of its own from that address: such a sign-in is only slowed
  (FLOOD_DELAY_STEP more per name over the limit, at most KAVET_AXES_FLOOD_DELAY_MAX). A name
  that already failed there FLOOD_OWN_FAILURES times is paused (one typo is forgiven), so a
  guesser spreading tries over real names gets one or two per name, not four.

- one account over every address (issue 39, gap 4): per-address locks alone let 12 addresses
  put 5 wrong passwords each against one teacher. Once an account has ACCOUNT_FREE_FAILURES
  failures in the cool-off, from wherever, a password for it from an address it never signed
  in from is checked at most once per ACCOUNT_PACE seconds (one slot, kavet_site.throttles);
  a try without the slot is answered at once, "wait a minute", and nothing is counted. It never
  locks the real user out: from an address where the account signed in within KNOWN_DAYS
  (school, home) the pace does not apply (only that address's own lock of 5), and elsewhere
  a try gets through within the minute.

Nothing here asks whether a name is an account: made-up names and real ones are counted,
slowed and paused alike, so no answer (nor its delay) tells who has an account. Each flood is
summed up in a SignInFlood row (kavet_site.throttles) for the admins, as axes forgets its rows
after the cool-off; the addresses a school's staff signed in from are noted (note_staff_address)
so the school's admin is told of a flood from their own address (classrooms/admin.py).

A successful sign-in forgives only that account's own failures from that address: axes' default
would delete every row matching every key, so a guesser with one real account (a parent) could
wipe other accounts' counts by signing in as themselves.
"""

from __future__ import annotations

import hashlib
import ipaddress
import time
from datetime import timedelta
from math import ceil

from axes.conf import settings
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import (
    get_client_username,
    get_cool_off,
    get_failure_limit,
)
from axes.models import AccessAttempt
from django.db import connection, transaction
from django.db.models import Count, Min, Q, QuerySet, Sum
from django.shortcuts import render
from django.utils import timezone

from kavet_site.clientip import client_bucket
from kavet_site.throttles import counters
from kavet_site.throttles.models import SignInFlood

# axes' AccessAttempt.username is 255 characters; Django's login forms let longer names reach
# authenticate() (their max_length is set after the validators are built), and PostgreSQL
# refuses a longer value. No account has a name that long, so cutting it loses nothing.
USERNAME_KEY_LENGTH = 255
# Under a flood a name is paused at its second wrong password from the flooding address.
FLOOD_OWN_FAILURES = 2
FLOOD_DELAY_STEP = 0.1  # seconds more for each name over the limit
FLOOD_KEEP_DAYS = SignInFlood.KEEP_DAYS  # also how long where a school's staff signed in is kept
_STAFF_ADDRESS = "staffip:{school}:"
# The account-wide pace (gap 4 above): free failures in the cool-off, then one check a minute
# from addresses the account has not signed in from within KNOWN_DAYS.
ACCOUNT_FREE_FAILURES = 5
ACCOUNT_PACE = 60
KNOWN_DAYS = 60
_KNOWN_ADDRESS = "axknown:{address}:"
_ACCOUNT_PACE = "axpace:{name}:"
_sleep = time.sleep  # the tests record the delays instead of waiting them


def throttle_username(request, credentials: dict | None = None) -> str | None:
    """The name a lock is keyed on (AXES_USERNAME_CALLABLE): what was typed, as the form cleaned it."""
    field = settings.AXES_USERNAME_FORM_FIELD
    if credentials:
        username = credentials.get(field)
    else:
        username = getattr(request, "data", request.POST).get(field)
    if username is None:
        return None
    return str(username).replace("\x00", "")[:USERNAME_KEY_LENGTH]


def throttle_client_ip(request) -> str | None:
    """The address a lock is keyed on (AXES_CLIENT_IP_CALLABLE), as the site's rate limits read it.

    kavet_site.clientip takes X-Forwarded-For only from KAVET_TRUSTED_PROXIES hops, so a client
    cannot pick its own key (django-ipware with a proxy count took the left-most entry, which
    the client writes). An IPv6 client owns a whole /64, so it is keyed on that network: else
    it could take a fresh address for every few tries.
    """
    bucket = client_bucket(request)
    try:
        if "/" in bucket:
            return str(ipaddress.ip_network(bucket, strict=False).network_address)
        return str(ipaddress.ip_address(bucket))
    except ValueError:
        return None  # no usable address at all: all such requests share one key


def client_limit() -> int:
    return max(1, int(getattr(settings, "KAVET_AXES_CLIENT_FAILURE_LIMIT", 20)))


def live_attempts(since=None) -> QuerySet:
    """axes' failed-attempt rows still inside the cool-off (counted from `since`, else now)."""
    qs = AccessAttempt.objects.all()
    cool_off = get_cool_off()
    if cool_off:
        qs = qs.filter(attempt_time__gte=(since or timezone.now()) - cool_off)
    return qs


def names_tried(address: str | None, since=None) -> int:
    """How many different names failed from `address` within the cool-off."""
    return live_attempts(since).filter(ip_address=address).values("username").distinct().count()


def flooded_addresses(since=None) -> QuerySet:
    """The addresses over the limit of different names: values("ip_address")."""
    return (
        live_attempts(since)
        .values("ip_address")
        .annotate(names=Count("username", distinct=True))
        .filter(names__gte=client_limit())
        .values("ip_address")
    )


def paused_attempts() -> QuerySet:
    """(username, ip_address) pairs refused now: the per-account lock or the flood's pause."""
    return (
        live_attempts()
        .values("username", "ip_address")
        .annotate(failures=Sum("failures_since_start"))
        .filter(
            Q(failures__gte=_failure_limit())
            | Q(failures__gte=FLOOD_OWN_FAILURES, ip_address__in=flooded_addresses())
        )
    )


def _failure_limit() -> int:
    limit = settings.AXES_FAILURE_LIMIT
    return limit if isinstance(limit, int) else 5


def flood_delay(names: int) -> float:
    """The wait before checking a password from an address where `names` names failed."""
    over = names - client_limit() + 1
    if over <= 0:
        return 0.0
    return min(float(getattr(settings, "KAVET_AXES_FLOOD_DELAY_MAX", 1.5)), FLOOD_DELAY_STEP * over)


def note_staff_address(*, school_id: int, request) -> None:
    """Remember (FLOOD_KEEP_DAYS) that a school's staff signed in from this request's address."""
    address = throttle_client_ip(request)
    if address:
        bucket = _STAFF_ADDRESS.format(school=school_id) + address
        counters.mark(bucket, FLOOD_KEEP_DAYS * 24 * 3600)


def staff_addresses(school_id: int) -> list[str]:
    prefix = _STAFF_ADDRESS.format(school=school_id)
    return [bucket.removeprefix(prefix) for bucket in counters.live(prefix)]


def floods_from(addresses=None) -> QuerySet:
    """The floods of the last FLOOD_KEEP_DAYS (from these addresses), the latest first."""
    since = timezone.now() - timedelta(days=FLOOD_KEEP_DAYS)
    qs = SignInFlood.objects.filter(last_at__gte=since)
    return qs if addresses is None else qs.filter(address__in=list(addresses))


def _counter_name(username: str) -> str:
    # Counter buckets are 200 characters; a digest keeps any typed name inside and apart.
    return hashlib.sha256(username.encode()).hexdigest()[:32]


def note_known_address(*, username: str, address: str) -> None:
    """This account signed in from this address: the account-wide pace spares it KNOWN_DAYS."""
    bucket = _KNOWN_ADDRESS.format(address=address) + _counter_name(username)
    counters.mark(bucket, KNOWN_DAYS * 24 * 3600)


def _known_address(username: str, address: str | None) -> bool:
    if not address:
        return False
    return counters.count(_KNOWN_ADDRESS.format(address=address) + _counter_name(username)) > 0


def account_failures(username: str, since=None) -> int:
    """Failed passwords for this name within the cool-off, from every address."""
    attempts = live_attempts(since).filter(username=username)
    return attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0


def account_paced(request, username: str | None) -> bool:
    """Whether this try must wait for the account's pace (and takes its slot when it need not)."""
    if not username or _known_address(username, request.axes_ip_address):
        return False
    if account_failures(username, request.axes_attempt_time) < ACCOUNT_FREE_FAILURES:
        return False
    prefix = _ACCOUNT_PACE.format(name=_counter_name(username))
    return counters.take(prefix, 1, ACCOUNT_PACE) is None


class KavetAxesHandler(AxesDatabaseHandler):
    """axes' database handler (shared by every web process), with the flood rules above."""

    def get_failures(self, request, credentials: dict | None = None) -> int:
        # AXES_LOCKOUT_PARAMETERS is [["username", "ip_address"]]: this name from this address.
        (own_attempts,) = self.get_user_attempts(request, credentials)
        own = own_attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
        limit = get_failure_limit(request, credentials)
        request.kavet_lock_reason = "account" if own >= limit else None
        if FLOOD_OWN_FAILURES <= own < limit:
            since = request.axes_attempt_time
            if names_tried(request.axes_ip_address, since) >= client_limit():
                request.kavet_lock_reason = "flood"
                return limit
        return own

    def is_allowed(self, request, credentials: dict | None = None) -> bool:
        allowed = super().is_allowed(request, credentials)
        if allowed and account_paced(request, get_client_username(request, credentials)):
            request.kavet_lock_reason = "pace"
            return False
        if allowed:
            self._slow_down(request)
        return allowed

    def user_logged_in(self, sender, request, user, **kwargs):
        super().user_logged_in(sender, request, user, **kwargs)
        # A password sign-in (children's tablets post no name): its address is now known.
        username = throttle_username(request) if request is not None else None
        if username and request.axes_ip_address:
            note_known_address(username=username, address=request.axes_ip_address)

    def _slow_down(self, request) -> None:
        """Under a flood, wait before the password is checked (a refusal is answered at once).

        This runs in authenticate(), which is synchronous: under ASGI it runs in the request's
        own thread, never on the event loop. The database connection is given back first (when
        no transaction holds it), so a flood of slowed sign-ins does not empty the pool.
        """
        delay = flood_delay(names_tried(request.axes_ip_address, request.axes_attempt_time))
        request.kavet_flood_delay = delay
        if delay <= 0:
            return
        if not connection.in_atomic_block:
            connection.close()
        _sleep(delay)

    def user_login_failed(self, sender, credentials: dict, request=None, **kwargs):
        if request is not None and getattr(request, "kavet_lock_reason", None) == "pace":
            # The password was not checked: nothing is counted (nobody's wait starts again);
            # the "wait a minute" page is shown (axes' middleware, lockout_response).
            request.axes_locked_out = True
            request.axes_credentials = credentials
            return
        super().user_login_failed(sender, credentials, request, **kwargs)
        if request is not None and request.axes_ip_address:
            self._note_flood(request)

    def _note_flood(self, request) -> None:
        address, now = request.axes_ip_address, request.axes_attempt_time or timezone.now()
        names = names_tried(address, now)
        if names < client_limit():
            return
        delay_ms = round(getattr(request, "kavet_flood_delay", 0) * 1000)
        cool_off = get_cool_off(request) or timedelta(0)
        with transaction.atomic():
            flood = (
                SignInFlood.objects.select_for_update(no_key=True)
                .filter(address=address, last_at__gte=now - cool_off)
                .first()
            )
            if flood is None:
                # The burst began with the first of the failures still counted.
                live = live_attempts(now).filter(ip_address=address)
                summary = live.aggregate(
                    started=Min("attempt_time"), failures=Sum("failures_since_start")
                )
                SignInFlood.objects.create(
                    address=address,
                    started_at=summary["started"] or now,
                    last_at=now,
                    names=names,
                    failures=summary["failures"] or 1,
                    longest_delay_ms=delay_ms,
                )
                return
            flood.last_at = now
            flood.names = max(flood.names, names)
            flood.failures += 1
            flood.longest_delay_ms = max(flood.longest_delay_ms, delay_ms)
            flood.save(update_fields=["last_at", "names", "failures", "longest_delay_ms"])

    def reset_user_attempts(self, request, credentials: dict | None = None) -> int:
        username = get_client_username(request, credentials)
        if not username:
            return 0
        count, _ = AccessAttempt.objects.filter(
            username=username, ip_address=request.axes_ip_address
        ).delete()
        return count


def lockout_response(request, original_response=None, credentials=None):
    """The lockout page (AXES_LOCKOUT_CALLABLE), in the request's language, with the wait in minutes.

    HTTP 429 (axes' default, AXES_HTTP_RESPONSE_CODE): "too many requests" is what happened, and
    it tells scripts to back off; browsers show the page like any other.
    """
    cool_off = get_cool_off(request) or timedelta(0)
    reason = getattr(request, "kavet_lock_reason", None)
    if reason == "pace":  # not a lock: the account's next check is within the minute
        cool_off = timedelta(seconds=ACCOUNT_PACE)
    context = {
        "minutes": max(1, ceil(cool_off.total_seconds() / 60)) if cool_off else None,
        "paced": reason == "pace",
        "failure_limit": get_failure_limit(request, credentials),
        # The same page whether or not the name is an account; only why this name is paused.
        "flood": reason == "flood",
    }
    return render(
        request, settings.AXES_LOCKOUT_TEMPLATE, context, status=settings.AXES_HTTP_RESPONSE_CODE
    )
