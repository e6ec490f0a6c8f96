"""The class games app: a teacher's tables played together, between classrooms and games."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ClassgamesConfig(AppConfig):
    name = "classgames"
    verbose_name = _("Class games")
