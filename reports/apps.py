"""Progress reports: what each child can do, built by Celery jobs, for parents and teachers."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ReportsConfig(AppConfig):
    name = "reports"
    label = "reports"
    verbose_name = _("Progress reports")

    def ready(self) -> None:
        from classrooms import pages
        from classrooms.signals import retention_due

        from . import (
            permissions,  # noqa: F401  (the rules of this app's models)
            tasks,  # noqa: F401  (registered in every process: reports.scheduling queues by name)
        )
        from .retention import emails_erase_before, reports_erase_before
        from .views import proposal_contexts

        def class_page_proposals(classroom, students) -> dict:
            # Open level proposals where the teacher looks, decided there as in the reports.
            return {"proposals": proposal_contexts(classroom)}

        def reports_erase(sender, *, school, day, dry_run, **kwargs) -> dict[str, int]:
            if school is None:  # the parents' emails belong to no one school
                return emails_erase_before(before=day, dry_run=dry_run)
            return reports_erase_before(school=school, before=day, dry_run=dry_run)

        pages.panel(pages.CLASS_PAGE)(class_page_proposals)
        retention_due.connect(reports_erase, weak=False, dispatch_uid="reports.retention")
