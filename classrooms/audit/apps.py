"""The audit app: one append-only row per action of a school's staff (classrooms.audit)."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AuditConfig(AppConfig):
    name = "classrooms.audit"
    label = "audit"
    verbose_name = _("Activity log")

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in, user_login_failed

        from classrooms import signals

        from . import receivers

        user_logged_in.connect(receivers.signed_in, dispatch_uid="audit.signed_in")
        user_login_failed.connect(receivers.signin_failed, dispatch_uid="audit.signin_failed")
        signals.retention_due.connect(receivers.retention_due, dispatch_uid="audit.retention")
