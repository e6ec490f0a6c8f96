"""Progress reports: what each child can do, built by Celery jobs, for parents and teachers."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ReportsConfig(AppConfig):
    name = "classrooms.reports"
    label = "reports"
    verbose_name = _("Progress reports")
