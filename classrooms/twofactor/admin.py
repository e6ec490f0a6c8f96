"""The second-factor devices in the Django admin: for the site's administrators only, to reset
the last admin of a school (nobody else of the school can). A device is listed and deleted,
never shown nor edited: its secret stays out of every page (django-otp's own admin shows it as
a QR code, so it is replaced here)."""

from __future__ import annotations

import django_otp.plugins.otp_static.admin  # noqa: F401  registers now, to be replaced below
import django_otp.plugins.otp_totp.admin  # noqa: F401
from django.contrib import admin
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from classrooms import audit
from classrooms.admin import ScopeGuardMixin
from classrooms.audit.models import Action


class DeviceAdmin(ScopeGuardMixin, admin.ModelAdmin):
    list_display = ("user", "name", "confirmed")
    list_filter = ("confirmed",)
    search_fields = ("user__username", "user__last_name")
    fields = ("user", "name", "confirmed")
    readonly_fields = fields

    def _superuser(self, request) -> bool:
        return bool(request.user.is_active and request.user.is_superuser)

    def has_module_permission(self, request) -> bool:
        return self._superuser(request)

    def has_view_permission(self, request, obj=None) -> bool:
        return self._superuser(request)

    def has_delete_permission(self, request, obj=None) -> bool:
        return self._superuser(request)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def log_deletions(self, request, queryset):
        # In the person's school's log, as a reset (an admin of the school would have done it).
        for device in queryset:
            audit.record(request, Action.SECOND_FACTOR_RESET, device.user)
        return admin.ModelAdmin.log_deletions(self, request, queryset)


for _model in (TOTPDevice, StaticDevice):
    if admin.site.is_registered(_model):
        admin.site.unregister(_model)
    admin.site.register(_model, DeviceAdmin)
