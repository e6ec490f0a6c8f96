"""The demo school (`make demo`): an app on top of every other, since it fills them all."""

from django.apps import AppConfig


class DemoConfig(AppConfig):
    name = "demo"
    label = "demo"

    def ready(self) -> None:
        from games.signals import class_game_shown

        from .alive import demo_keep_alive

        def keep_the_demo_alive(sender, *, session, now=None, **kwargs) -> int:
            return demo_keep_alive(session=session, now=now)

        # A page shows a class game (the class board, the live view): the demo's plays on there.
        class_game_shown.connect(keep_the_demo_alive, weak=False, dispatch_uid="demo_keep_alive")
