"""Password-login throttling on top of django-axes (settings: the AXES_* lines in "Auth").

Two locks, both counted over the cool-off window (AXES_COOLOFF_TIME) from axes' AccessAttempt rows:

- one account from one client address (AXES_FAILURE_LIMIT, 5): a guesser locks themselves out,
  while the teacher at another computer still signs in with the right password;
- one client address, whatever the accounts (KAVET_AXES_CLIENT_FAILURE_LIMIT, higher): one
  client trying a few passwords on each of many accounts. It is higher because a whole school
  often reaches us through one address (NAT), and its teachers' typos must not lock the school.

axes compares every key with one limit, so the handler scales the client-wide count onto it.
A successful sign-in forgives only that account's own failures from that address: axes' default
would delete every row matching every key, so a guesser with one real account (a parent) could
wipe the client-wide count, and other accounts' counts, by signing in as themselves.
"""

from __future__ import annotations

import ipaddress
from datetime import timedelta
from math import ceil

from axes.conf import settings
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import (
    get_client_username,
    get_cool_off,
    get_failure_limit,
    get_lockout_parameters,
)
from axes.models import AccessAttempt
from django.db.models import Sum
from django.shortcuts import render

from kavet_site.clientip import client_bucket

# axes' AccessAttempt.username is 255 characters; Django's login forms let longer names reach
# authenticate() (their max_length is set after the validators are built), and PostgreSQL
# refuses a longer value. No account has a name that long, so cutting it loses nothing.
USERNAME_KEY_LENGTH = 255


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


class KavetAxesHandler(AxesDatabaseHandler):
    """axes' database handler (shared by every web process) with a per-key limit."""

    def get_failures(self, request, credentials: dict | None = None) -> int:
        limit = get_failure_limit(request, credentials)
        client_limit = max(1, int(getattr(settings, "KAVET_AXES_CLIENT_FAILURE_LIMIT", limit)))
        parameters = get_lockout_parameters(request, credentials)
        worst = 0
        for parameter, attempts in zip(
            parameters, self.get_user_attempts(request, credentials), strict=True
        ):
            count = attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
            if parameter == "ip_address":
                # count >= client_limit exactly when the scaled count >= limit.
                count = count * limit // client_limit
            worst = max(worst, count)
        return worst

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
    context = {
        "minutes": max(1, ceil(cool_off.total_seconds() / 60)) if cool_off else None,
        "failure_limit": get_failure_limit(request, credentials),
    }
    return render(
        request, settings.AXES_LOCKOUT_TEMPLATE, context, status=settings.AXES_HTTP_RESPONSE_CODE
    )
