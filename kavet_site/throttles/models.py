"""One row per rate-limit counter (see counters.py for why they are not in the cache)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class Counter(models.Model):
    """How often something happened within a window that started at its first time."""

    bucket = models.CharField(max_length=200, primary_key=True)
    count = models.PositiveIntegerField(default=0)
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.bucket}: {self.count} until {self.expires_at:%Y-%m-%d %H:%M:%S}"


class SignInFlood(models.Model):
    """A burst of failed password sign-ins with many different names from one client address.

    Written by kavet_site.auth_throttle while the address is over KAVET_AXES_CLIENT_FAILURE_LIMIT
    different names in the cool-off; one row per burst (a burst ends when a cool-off passes
    without a failure). axes forgets its attempts after the cool-off, so this summary is what
    the site's administrators (every burst) and a school's admin (bursts from an address their
    staff used) read afterwards. The names themselves are not kept: most are made up, and
    nobody's account is tied to a burst by its name. Kept KEEP_DAYS, then swept (tasks.py).
    """

    KEEP_DAYS = 30

    address = models.GenericIPAddressField(_("address"), db_index=True)
    started_at = models.DateTimeField(_("first try"))
    last_at = models.DateTimeField(_("last try"), db_index=True)
    names = models.PositiveIntegerField(_("different names"))
    failures = models.PositiveIntegerField(_("failed sign-ins"))
    longest_delay_ms = models.PositiveIntegerField(_("longest delay (ms)"), default=0)

    class Meta:
        ordering = ["-last_at"]
        verbose_name = _("sign-in flood")
        verbose_name_plural = _("sign-in floods")

    def __str__(self) -> str:
        return f"{self.address}: {self.names} names, {self.started_at:%Y-%m-%d %H:%M}"
