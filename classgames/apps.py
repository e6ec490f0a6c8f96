"""The class games app: a teacher's tables played together, between classrooms and games."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ClassgamesConfig(AppConfig):
    name = "classgames"
    verbose_name = _("Class games")

    def ready(self) -> None:
        from classrooms import pages
        from games.signals import game_over, games_erased, table_group

        from . import permissions, selectors, services  # noqa: F401  (permissions: its models' rules)
        from .models import session_id_of

        def class_game_over(sender, *, group, **kwargs) -> None:
            services.session_after_game_change(session_id=group)

        def sessions_erase(sender, *, before, school, dry_run, **kwargs) -> dict[str, int]:
            return services.sessions_erase_before(before=before, school=school, dry_run=dry_run)

        pages.panel(pages.TEACHER_HOME)(selectors.teacher_home_panel)
        pages.panel(pages.CLASS_PAGE)(selectors.class_page_panel)
        # A class game's tables are one group, its id (read with the locked game row).
        table_group.declare(related="class_table", of=session_id_of)
        game_over.connect(class_game_over, weak=False, dispatch_uid="classgames.game_over")
        games_erased.connect(sessions_erase, weak=False, dispatch_uid="classgames.games_erased")
