"""The class games app: a teacher's tables played together, between classrooms and games."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ClassgamesConfig(AppConfig):
    name = "classgames"
    verbose_name = _("Class games")

    def ready(self) -> None:
        from classrooms.demo.alive import demo_keep_alive
        from games.signals import class_game_shown

        def keep_the_demo_alive(sender, *, session, now=None, **kwargs) -> None:
            demo_keep_alive(session=session, now=now)

        # The class board (games) shows a class game: the demo's plays on there too.
        class_game_shown.connect(keep_the_demo_alive, weak=False, dispatch_uid="demo_keep_alive")
