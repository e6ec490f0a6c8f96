"""The table's board in Jinja2: the hot fragments of the tablet (templates/games/board/).

A move's answer renders the table's board and its history once per version
(games.table_cache, with its stand-in marks for each seat's own parts) and each seat's own
parts ("whose turn", the held cards and the move form) once per version and seat: Django's
template engine spent 3-4 ms of a move's ~19 ms in process on them. The same markup compiled
by Jinja2 is several times quicker (benchmarks/bench_board_render.py, issue 38), and is the
one home of it: the page (templates/games/table.html, `{% board %}` of
games/templatetags/kavet_board.py), the HTMX board and the class board's ruling
(templates/games/board_table.html) all render through here.

What the page would print is printed byte for byte (tests/games/test_board_precompiled.py, the
goldens made by Django's templates before they moved here):

- escaping is Django's (`finalize`: django.utils.html.conditional_escape after localize, so a
  quote is &#x27; as Django writes it, not markupsafe's &#39;; SafeString passes as it is);
- words are Django's catalogues: `_t` ({% translate %}), `_p` ({% translate ... context %}),
  `_b` ({% blocktranslate with %}), `_n` ({% blocktranslate count %}), each as Django's tag
  does it (the translation as it is, the values in it escaped);
- `url`, `static`, `pic` ({% picture %}), `csrf_input` ({% csrf_token %}), `spoken` and `say`
  (games/templatetags/kavet_speech.py), `durl` (Django's urlencode filter) and `time` (Django's
  time filter, in the current time zone) are Django's own.

`render(name, ctx, request)` renders any template of templates/ with this machinery: the
teacher's live class view's tables are rendered through it too (classgames.live,
templates/classrooms/live/).

The messages are written `_t("...")`, `_p("context", "...")`, `_b("... %(n)s ...", n=...)`,
`_n("%(n)s point", "%(n)s points", n)`: `manage.py makemessages` extracts them from the .jinja
files with their context, plural and line (games/management/commands/makemessages.py parses the
templates with this module's environment), as it does Django's templates' messages;
tests/games/test_board_messages.py checks the extraction and tests/games/test_board_precompiled.py
that every message of templates/games/board/ is in the French and German catalogues.
"""

from __future__ import annotations

from decimal import Decimal
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import jinja2
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template.context_processors import csrf
from django.template.defaultfilters import time as time_filter
from django.template.defaultfilters import urlencode
from django.templatetags.static import static
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.formats import localize
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeData, SafeString
from django.utils.timezone import template_localtime
from django.utils.translation import get_language, gettext, ngettext, pgettext

from classrooms.templatetags.kavet_pictures import picture
from games import speech

FOLDER = Path(settings.BASE_DIR) / "templates"
BOARD = "games/board/board.jinja"
NEWS = "games/board/news.jinja"
WHOSE_TURN = "games/board/whose_turn.jinja"
ACTIONS = "games/board/actions.jinja"
RULING = "games/board/ruling.jinja"
HISTORY = "games/board/history.jinja"

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


class _Words:
    """Django's translation tags in one language, each message looked up once per process
    (the catalogues do not change while it runs; a test that changes the languages' settings
    clears them: `_forget`)."""

    def __init__(self) -> None:
        self.said: dict[Any, str] = {}

    def _t(self, message: str) -> SafeString:
        """{% translate "message" %}: the translation as it is (a literal is safe in Django)."""
        try:
            return self.said[message]
        except KeyError:
            if "%" in message:
                said = gettext(message.replace("%", "%%")).replace("%%", "%")
            else:
                said = gettext(message)
            said = self.said[message] = SafeString(said)
            return said

    def _p(self, context: str, message: str) -> SafeString:
        """{% translate "message" context "context" %}."""
        key = ("p", context, message)
        try:
            return self.said[key]
        except KeyError:
            said = self.said[key] = SafeString(pgettext(context, message))
            return said

    def _b(self, message: str, **values: Any) -> SafeString:
        """{% blocktranslate with name=value %}...{{ name }}...{% endblocktranslate %}, the
        message written with %(name)s: the translation as it is, the values escaped."""
        key = ("b", message)
        try:
            translated = self.said[key]
        except KeyError:
            translated = self.said[key] = gettext(message)
        return _fill(translated, message, {k: _value(v) for k, v in values.items()})

    def _n(self, singular: str, plural: str, n: Any) -> SafeString:
        """{% blocktranslate count n=value %}{{ n }} ...{% plural %}{{ n }} ...
        {% endblocktranslate %}."""
        if not isinstance(n, (Decimal, float, int)):
            raise TypeError(f"the count of {singular!r} is not a number: {n!r}")
        key = (singular, plural, n)
        try:
            translated = self.said[key]
        except KeyError:
            translated = ngettext(singular, plural, n)
            if len(self.said) < 10_000:
                self.said[key] = translated
        return _fill(translated, singular, {"n": _value(n)})


def _fill(translated: str, message: str, data: dict[str, str]) -> SafeString:
    # SafeString, not mark_safe: the text is a str here, and mark_safe's check of its arguments
    # for lazy strings (keep_lazy) was 2 % of a busy web worker's samples at 60 moves/s.
    try:
        return SafeString(translated % data)
    except (KeyError, ValueError):  # a broken translation: the English, as Django falls back
        return SafeString(message % data)


_words: dict[str | None, dict[str, Any]] = {}


def _in_language() -> dict[str, Any]:
    """The translation tags of the active language, for one render's context."""
    language = get_language()
    try:
        return _words[language]
    except KeyError:
        words = _Words()
        made = _words[language] = {"_t": words._t, "_p": words._p, "_b": words._b, "_n": words._n}
        return made


@receiver(setting_changed)
def _forget(*, setting: str, **kwargs: Any) -> None:
    if setting in ("LANGUAGES", "LANGUAGE_CODE", "LOCALE_PATHS", "STATIC_URL", "STORAGES"):
        _words.clear()
        _picture.cache_clear()
        _urls.clear()


_urls: dict[tuple, str] = {}


def _url(name: str, *args: Any) -> str:
    """{% url name args %}: reverse(), kept per URL (and script prefix and URLconf)."""
    key = (name, args, get_script_prefix(), get_urlconf())
    try:
        return _urls[key]
    except KeyError:
        if len(_urls) > 4096:  # the game's id is in most: a long-running process sees many
            _urls.clear()
        url = _urls[key] = reverse(name, args=args)
        return url


@lru_cache(maxsize=2048)
def _picture(key: Any, size: Any, alt: Any, css: str, safe: bool, language: str | None) -> str:
    return picture(key, size=size, alt=alt, **{"class": css})


def _pic(key: Any, size: Any = 64, alt: Any = None, css: str = "") -> str:
    """{% picture key size=... alt=... class=... %}: its <img>, made once per process for
    each set of arguments (the language too, when the word of the picture is its alt)."""
    safe = isinstance(alt, SafeData)
    return _picture(key, size, alt, css, safe, get_language() if alt is None else None)


def _csrf_input(token: Any) -> str:
    """{% csrf_token %} (django.template.defaulttags.CsrfTokenNode)."""
    if token:
        if token == "NOTPROVIDED":
            return format_html("")
        return format_html('<input type="hidden" name="csrfmiddlewaretoken" value="{}">', token)
    return ""


def _time(value: Any, arg: str | None = None) -> str:
    """Django's `|time:"H:i:s"` filter, the datetime in the current time zone first as Django's
    templates give it to that filter (expects_localtime)."""
    return time_filter(template_localtime(value), arg)


def _spoken(text: Any) -> str:
    return speech.spoken(str(text or ""))


def _say(*parts: Any) -> str:
    return speech.say(*(str(p or "") for p in parts))


class _Environment(jinja2.Environment):
    def getattr(self, obj: Any, attribute: str) -> Any:
        """`a.b` as Django's templates look it up: a dictionary's key first, then an attribute
        (Jinja2's own order is the other way round, an exception raised per dictionary key)."""
        if type(obj) is dict and attribute in obj:
            return obj[attribute]
        return super().getattr(obj, attribute)


def _environment() -> jinja2.Environment:
    env = _Environment(
        loader=jinja2.FileSystemLoader(FOLDER),
        autoescape=False,  # every {{ }} goes through _value: Django's escaping, not markupsafe's
        finalize=_value,
        auto_reload=settings.DEBUG,
        undefined=jinja2.Undefined,  # a missing value prints nothing, as Django's does
    )
    env.filters["durl"] = urlencode
    env.filters["time"] = _time
    return env


@cache
def environment() -> jinja2.Environment:
    return _environment()


# What the templates call, given in each render's context (not as the environment's globals:
# Jinja2 would copy those into every render's context, a third of a small part's render).
HELPERS = {
    "url": _url,
    "static": static,
    "pic": _pic,
    "csrf_input": _csrf_input,
    "spoken": _spoken,
    "say": _say,
}


def render(name: str, ctx: dict, request=None) -> SafeString:
    """Template `name` with `ctx`, the helpers and the translation tags of the active language,
    and what Django's RequestContext adds that the board reads: the request (request.htmx) and
    the CSRF token (lazy, as its context processor's: read only where a form prints it)."""
    env = environment()
    template = env.get_template(name)
    values = {**HELPERS, **_in_language()}
    if request is not None:
        values["request"] = request
        values.update(csrf(request))
    values.update(ctx)
    try:
        return SafeString(
            env.concat(template.root_render_func(template.new_context(values, shared=True)))
        )
    except Exception:
        env.handle_exception()  # raises it again, its traceback in the template's lines
        raise


def render_board(ctx: dict, request=None) -> str:
    """The HTMX board (`#board`): what templates/games/table.html's partial "board" was."""
    return render(BOARD, ctx, request)


def render_news(ctx: dict, request=None) -> str:
    """The screen reader's lines of news (the page's #table-news and the board's copy)."""
    return render(NEWS, ctx, request)


def render_whose_turn(ctx: dict) -> str:
    """One seat's "whose turn" line (games.table_cache: its own part of the board)."""
    return render(WHOSE_TURN, ctx)


def render_actions(ctx: dict) -> str:
    """One seat's held cards and move form (games.table_cache: its own part of the board)."""
    return render(ACTIONS, ctx)


def render_ruling(ctx: dict) -> str:
    """The ruling panel (the board's, and the class board's: templates/games/board_table.html)."""
    return render(RULING, ctx)


def render_history(ctx: dict) -> str:
    """The table's history (`history`: [(move number, [line...])], newest first), the same on
    every tablet: rendered once per version (games.selectors, games.table_cache)."""
    return render(HISTORY, ctx)


def warm_up() -> None:
    """Compile the board's templates (kavet_site.warmup, before the first request)."""
    for name in (BOARD, NEWS, WHOSE_TURN, ACTIONS, RULING, HISTORY):
        environment().get_template(name)


# Compiled once the module is imported: with the views, before gunicorn forks its workers
# (kavet_site.warmup loads the URLconf), as the cached loader holds Django's templates.
warm_up()
