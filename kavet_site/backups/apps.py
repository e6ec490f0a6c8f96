from django.apps import AppConfig


class BackupsConfig(AppConfig):
    name = "kavet_site.backups"
    label = "backups"
    verbose_name = "Backups"
