"""The staff's second factor: TOTP and recovery codes (django-otp), and the school's rule."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TwoFactorConfig(AppConfig):
    name = "classrooms.twofactor"
    label = "twofactor"
    verbose_name = _("Second factor")

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from .services import ask_on_sign_in

        user_logged_in.connect(ask_on_sign_in, dispatch_uid="twofactor.ask_on_sign_in")
