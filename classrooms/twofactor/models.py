"""A school's rule for its staff's sign-in: whether its admins must have a second factor.

The devices themselves are django-otp's (otp_totp.TOTPDevice for the phone's app,
otp_static.StaticDevice for the recovery codes), one of each per person at most.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from classrooms.models import School


class SchoolSignInRule(models.Model):
    school = models.OneToOneField(School, on_delete=models.CASCADE, related_name="sign_in_rule")
    admins_need_second_factor = models.BooleanField(
        _("school admins must use a second factor"), default=False
    )
    changed_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("staff sign-in rule")
        verbose_name_plural = _("staff sign-in rules")

    def __str__(self) -> str:
        return str(self.school)
