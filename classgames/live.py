"""The live class view's tables in Jinja2 (templates/classrooms/live/), rendered by the board's
machinery (games.board.render: Django's escaping and catalogues, byte for byte what Django's
templates printed; issue 38).

The teacher's live view polls every few seconds and renders, per table that changed, one
table's section: Django's template engine spent most of those polls' render on them. Their one
home is here: the whole view (templates/classrooms/session_live.html, `{% live_table %}` and
`{% live_clock %}` of classgames/templatetags/kavet_live.py), the one-table fetch
(classgames.views.session_live_table) and the poll's answer with the tables out of date alone
(`render_changed`). tests/classgames/test_live_jinja.py holds them to the goldens of Django's
renders.
"""

from __future__ import annotations

from django.utils.safestring import SafeString

from games import board

TABLE = "classrooms/live/table.jinja"
CLOCK = "classrooms/live/clock.jinja"
CHANGED = "classrooms/live/changed.jinja"


def render_table(ctx: dict, request=None) -> SafeString:
    """One table's section: `t` (classgames.selectors.live_table), `session`, `strengths`,
    `oob` (swapped out of band); with the request, its CSRF token for the absent-student form."""
    return board.render(TABLE, ctx, request)


def render_clock(ctx: dict) -> SafeString:
    """The "updated" time (`now`; `oob`)."""
    return board.render(CLOCK, ctx)


def render_changed(ctx: dict, request=None) -> SafeString:
    """The "updated" time and the tables of `tables`, each swapped in its place (out of band)."""
    return board.render(CHANGED, {**ctx, "oob": True}, request)


def warm_up() -> None:
    """Compile the live view's templates (before gunicorn forks its workers, as games.board)."""
    for name in (TABLE, CLOCK, CHANGED):
        board.environment().get_template(name)


warm_up()
