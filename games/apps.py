"""The games app: games, seats, the append-only list of moves, and per-student play records."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        from classrooms.signals import retention_due, student_erasing

        from . import (
            permissions,  # noqa: F401  (the rules of this app's models)
            services,
            tasks,  # noqa: F401  (its Celery tasks registered in every process: games.scheduling
            # queues them by name, and a registered name runs eagerly where tasks run in-process)
        )

        def student_games_erase(sender, *, student, by, **kwargs) -> None:
            services.student_games_erase(student=student, by=by)

        def games_erase(sender, *, school, moment, dry_run, **kwargs) -> dict[str, int]:
            if school is None:  # nothing of the games belongs to no school
                return {}
            return services.games_erase_before(before=moment, school=school, dry_run=dry_run)

        student_erasing.connect(student_games_erase, weak=False, dispatch_uid="games.student")
        retention_due.connect(games_erase, weak=False, dispatch_uid="games.retention")
