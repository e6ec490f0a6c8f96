"""The weekly report email (a nested app of reports)."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ReportsMailConfig(AppConfig):
    name = "reports.mail"
    label = "reports_mail"
    verbose_name = _("Report emails")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import permissions  # noqa: F401  (the rules of this app's models)
