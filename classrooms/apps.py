"""The classrooms app: schools, users and roles, classes, students and their levels."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ClassroomsConfig(AppConfig):
    name = "classrooms"
    verbose_name = _("Classrooms")
