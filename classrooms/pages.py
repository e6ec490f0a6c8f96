"""What the apps above add to the teachers' pages of this app, so that it never imports them.

An app above registers, in its AppConfig.ready, a function that returns part of a page's
context (classgames: the running class games and "Play now"; reports: the open level
proposals); the page merges them into its own. A page is whole only with the apps above it
installed, as the site installs them all.
"""

from __future__ import annotations

from collections.abc import Callable

# The teacher's home: f(user) -> dict.
TEACHER_HOME = "teacher_home"
# A class's page: f(classroom, students) -> dict.
CLASS_PAGE = "class_page"

_PANELS: dict[str, list[Callable[..., dict]]] = {TEACHER_HOME: [], CLASS_PAGE: []}


def panel(page: str) -> Callable[[Callable[..., dict]], Callable[..., dict]]:
    """Register a function adding to `page`'s context (one registration per function)."""

    def register(function: Callable[..., dict]) -> Callable[..., dict]:
        if function not in _PANELS[page]:
            _PANELS[page].append(function)
        return function

    return register


def panels_context(page: str, *args) -> dict:
    """What the apps above add to `page`, called with the page's own arguments."""
    context: dict = {}
    for function in _PANELS[page]:
        context.update(function(*args))
    return context
