"""The table's board in Jinja2: the hot fragments of the tablet (templates/games/board/).

A move's answer renders the table's board once per version (games.table_cache, with its
stand-in marks for each seat's own parts) and each seat's own parts ("whose turn", the held
cards and the move form) once per version and seat: Django's template engine spent 3-4 ms of a
move's ~19 ms in process on them. The same markup compiled by Jinja2 is several times quicker
(benchmarks/bench_board_render.py, issue 38), and is the one home of it: the page
(templates/games/table.html, `{% board %}` of games/templatetags/kavet_board.py), the HTMX
board and the class board's ruling (templates/games/board_table.html) all render through here.

What the page would print is printed byte for byte (tests/games/test_board_precompiled.py, the
goldens made by Django's templates before they moved here):

- escaping is Django's (`finalize`: django.utils.html.conditional_escape after localize, so a
  quote is &#x27; as Django writes it, not markupsafe's &#39;; SafeString passes as it is);
- words are Django's catalogues: `_t` ({% translate %}), `_p` ({% translate ... context %}),
  `_b` ({% blocktranslate with %}), `_n` ({% blocktranslate count %}), each as Django's tag
  does it (the translation as it is, the values in it escaped);
- `url`, `static`, `pic` ({% picture %}), `csrf_input` ({% csrf_token %}), `spoken` and `say`
  (games/templatetags/kavet_speech.py), `durl` (Django's urlencode filter) are Django's own.

The msgids are written as `_t("...")`, `_b("... %(n)s ...", n=...)`: `makemessages` does not
read .jinja files, so a new one is added to locale/*/LC_MESSAGES/django.po by hand (or with
`xgettext -L Python --keyword=_t --keyword=_p:1c,2 --keyword=_b --keyword=_n:1,2`).
"""

from __future__ import annotations

from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from django.conf import settings
from django.template.context_processors import csrf
from django.template.defaultfilters import urlencode
from django.templatetags.static import static
from django.urls import reverse
from django.utils.formats import localize
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext, pgettext

from classrooms.templatetags.kavet_pictures import picture
from games import speech

FOLDER = Path(settings.BASE_DIR) / "templates"
BOARD = "games/board/board.jinja"
NEWS = "games/board/news.jinja"
WHOSE_TURN = "games/board/whose_turn.jinja"
ACTIONS = "games/board/actions.jinja"
RULING = "games/board/ruling.jinja"

_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"}
)  # django.utils.html.escape's table


def _value(value: Any) -> str:
    """A value printed as Django's {{ value }} prints it (render_value_in_context)."""
    if type(value) is str:
        return value.translate(_ESCAPES)
    if type(value) is int and not settings.USE_THOUSAND_SEPARATOR:
        return str(value)  # what localize gives an int without grouping
    if isinstance(value, SafeString):
        return value
    value = localize(value)
    if not isinstance(value, str):
        value = str(value)
    return conditional_escape(value)


def _t(message: str) -> SafeString:
    """{% translate "message" %}: the translation as it is (a literal is safe in Django)."""
    if "%" in message:
        return mark_safe(gettext(message.replace("%", "%%")).replace("%%", "%"))
    return mark_safe(gettext(message))


def _p(context: str, message: str) -> SafeString:
    """{% translate "message" context "context" %}."""
    return mark_safe(pgettext(context, message))


def _fill(translated: str, message: str, data: dict[str, str]) -> SafeString:
    try:
        return mark_safe(translated % data)
    except (KeyError, ValueError):  # a broken translation: the English, as Django falls back
        return mark_safe(message % data)


def _b(message: str, **values: Any) -> SafeString:
    """{% blocktranslate with name=value %}...{{ name }}...{% endblocktranslate %}, the
    message written with %(name)s: the translation as it is, the values escaped."""
    return _fill(gettext(message), message, {k: _value(v) for k, v in values.items()})


def _n(singular: str, plural: str, n: Any) -> SafeString:
    """{% blocktranslate count n=value %}{{ n }} ...{% plural %}{{ n }} ...{% endblocktranslate %}."""
    if not isinstance(n, (Decimal, float, int)):
        raise TypeError(f"the count of {singular!r} is not a number: {n!r}")
    return _fill(ngettext(singular, plural, n), singular, {"n": _value(n)})


def _url(name: str, *args: Any) -> str:
    return reverse(name, args=args)


def _pic(key: Any, size: Any = 64, alt: Any = None, css: str = "") -> str:
    return picture(key, size=size, alt=alt, **{"class": css})


def _csrf_input(token: Any) -> str:
    """{% csrf_token %} (django.template.defaulttags.CsrfTokenNode)."""
    if token:
        if token == "NOTPROVIDED":
            return format_html("")
        return format_html('<input type="hidden" name="csrfmiddlewaretoken" value="{}">', token)
    return ""


def _spoken(text: Any) -> str:
    return speech.spoken(str(text or ""))


def _say(*parts: Any) -> str:
    return speech.say(*(str(p or "") for p in parts))


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(FOLDER),
        autoescape=False,  # every {{ }} goes through _value: Django's escaping, not markupsafe's
        finalize=_value,
        auto_reload=settings.DEBUG,
        undefined=jinja2.Undefined,  # a missing value prints nothing, as Django's does
    )
    env.globals.update(
        _t=_t,
        _p=_p,
        _b=_b,
        _n=_n,
        url=_url,
        static=static,
        pic=_pic,
        csrf_input=_csrf_input,
        spoken=_spoken,
        say=_say,
    )
    env.filters["durl"] = urlencode
    return env


@cache
def environment() -> jinja2.Environment:
    return _environment()


def _template(name: str) -> jinja2.Template:
    return environment().get_template(name)


def _with_request(ctx: dict, request) -> dict:
    """What Django's RequestContext adds that the board reads: the request (request.htmx) and
    the CSRF token (lazy, as its context processor's: read only where a form prints it)."""
    if request is None:
        return ctx
    ctx = {"request": request, **csrf(request), **ctx}
    return ctx


def render_board(ctx: dict, request=None) -> str:
    """The HTMX board (`#board`): what templates/games/table.html's partial "board" was."""
    return SafeString(_template(BOARD).render(_with_request(ctx, request)))


def render_news(ctx: dict, request=None) -> str:
    """The screen reader's lines of news (the page's #table-news and the board's copy)."""
    return SafeString(_template(NEWS).render(_with_request(ctx, request)))


def render_whose_turn(ctx: dict) -> str:
    """One seat's "whose turn" line (games.table_cache: its own part of the board)."""
    return SafeString(_template(WHOSE_TURN).render(ctx))


def render_actions(ctx: dict) -> str:
    """One seat's held cards and move form (games.table_cache: its own part of the board)."""
    return SafeString(_template(ACTIONS).render(ctx))


def render_ruling(ctx: dict) -> str:
    """The ruling panel (the board's, and the class board's: templates/games/board_table.html)."""
    return SafeString(_template(RULING).render(ctx))


def warm_up() -> None:
    """Compile the board's templates (kavet_site.warmup, before the first request)."""
    for name in (BOARD, NEWS, WHOSE_TURN, ACTIONS, RULING):
        _template(name)
