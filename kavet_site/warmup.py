"""Do the lazy first-request work once, in the server's master process, before it forks.

A Django process imports every URL module and view, compiles each template and reads each
language's catalogue the first time a request needs them: the first move a fresh worker
answers waits for all of it (measured: benchmarks/README.md), paid again by every worker gunicorn
starts or recycles (max_requests). gunicorn.conf.py preloads the application, so what this
does in the master is inherited by every worker, copy-on-write.

It opens no database connection, and no connection pool: those must be made after the fork.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from django.conf import settings

log = logging.getLogger(__name__)


def _project_templates() -> list[str]:
    """The names of the project's own templates (the site's folder and each local app's)."""
    from django.apps import apps

    base = Path(settings.BASE_DIR).resolve()
    installed = Path(sys.prefix).resolve()  # a virtualenv may live inside the project
    folders = [Path(d) for t in settings.TEMPLATES for d in t.get("DIRS", [])]
    folders += [
        Path(app.path) / "templates"
        for app in apps.get_app_configs()
        if Path(app.path).resolve().is_relative_to(base)
        and not Path(app.path).resolve().is_relative_to(installed)
    ]
    names = []
    for folder in folders:
        if folder.is_dir():
            names += sorted(
                str(p.relative_to(folder))
                for p in folder.rglob("*")
                if p.suffix in (".html", ".txt")
            )
    return names


def warm_up() -> None:
    from django.template import TemplateDoesNotExist, TemplateSyntaxError
    from django.template.loader import get_template
    from django.urls import get_resolver
    from django.utils import translation

    resolver = get_resolver()
    resolver.url_patterns  # noqa: B018 - imports every URL module and its views
    resolver.reverse_dict  # noqa: B018 - builds the reverse() tables
    for name in _project_templates():
        try:
            get_template(name)  # compiled into the cached loader
        except (TemplateDoesNotExist, TemplateSyntaxError) as exc:  # a partial-only file
            log.debug("warm-up skipped %s: %s", name, exc)
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            translation.gettext("Kavet 'm eus!")  # reads the catalogue
