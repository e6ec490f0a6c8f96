"""The classrooms app: schools, users and roles, classes, students and their levels."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ClassroomsConfig(AppConfig):
    name = "classrooms"
    verbose_name = _("Classrooms")

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from .signin_notes import note_staff_signin

        user_logged_in.connect(note_staff_signin, dispatch_uid="classrooms.note_staff_signin")
