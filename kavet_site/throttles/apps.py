from django.apps import AppConfig


class ThrottlesConfig(AppConfig):
    name = "kavet_site.throttles"
    label = "throttles"
    default_auto_field = "django.db.models.BigAutoField"
