"""Erase the play data past its keeping (classrooms.retention) and say what was erased."""

from __future__ import annotations

from datetime import date

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from classrooms.retention import retention_erase


class Command(BaseCommand):
    # argparse wants a plain str here; what the command prints is translated.
    help = (
        "Erase the play data kept past the end of the school year KAVET_RETENTION_YEARS "
        "after its own (games, their moves and plays, class games, weekly reports and "
        "email records) and say what was erased. Students, classes, accounts and levels stay."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help=_("Only count what would be erased; change nothing."),
        )
        parser.add_argument(
            "--before",
            metavar="YYYY-MM-DD",
            help=_(
                "Erase what is dated before this day instead of the rule's "
                "cut-off (the first day of a school year)."
            ),
        )

    def handle(self, *args, **options) -> None:
        before = None
        if options["before"]:
            try:
                before = date.fromisoformat(options["before"])
            except ValueError as exc:
                raise CommandError(
                    _("--before takes a date written YYYY-MM-DD, like 2024-08-01.")
                ) from exc
        erased = retention_erase(before=before, dry_run=options["dry_run"])
        self.stdout.write("\n".join(erased.describe()))
