"""Django's makemessages, reading the board's Jinja2 templates too (templates/games/board/).

Django's command hands xgettext (--language=Python) each .py file as it is and each other file
as Django's template lexer turns it into Python (django.utils.translation.templatize): a .jinja
file would be read as a Django template and its `_t("...")` calls lost, and reading the
template itself as Python would not do either (an apostrophe of the HTML, "Kavet 'm eus", opens
a string that swallows the calls after it). So a .jinja file is parsed by Jinja2, with the
environment the board is rendered with (games.board.environment), and its calls of the board's
translation tags are written, each on its line of the template, as the gettext calls that
games.board makes of them, into the file xgettext reads (`name.jinja.py` beside the template for
the run, as Django does with `name.html.py`):

- `_t("message")` -> gettext("message"), a % doubled as {% translate %} writes it;
- `_p("context", "message")` -> pgettext("context", "message");
- `_b("... %(name)s ...", name=...)` -> gettext("... %(name)s ...");
- `_n("%(n)s point", "%(n)s points", n)` -> ngettext("%(n)s point", "%(n)s points", n).

The .po files get the board's messages with their context, plural and `#: file.jinja:line`
like any other. A call whose message is not written out (`_t(name)`) cannot be extracted: it is
told on stderr. Jinja2 comments ({# #}) are not carried to the translators.

"jinja" is always among the extensions read for the 'django' domain (`-e` adds to it), so that
no run of the command marks the board's messages obsolete.

The project's own spellings of Django's translation functions are xgettext keywords too
(`KEYWORDS`: `gettext_lazy as _lazy`, in classrooms/services.py and reports/services.py), else
their messages would be marked obsolete. And the folders that are not the site's code are not
read (`IGNORED`, beside Django's own defaults; `--no-default-ignore` reads them): tests/, whose
calls only check the site's messages (a message only a test marks is no message of the site),
benchmarks/, node_modules/ and .venv/.
"""

from __future__ import annotations

import os

import jinja2
from django.core.management.base import CommandError
from django.core.management.commands import makemessages
from jinja2.ext import extract_from_ast

JINJA = ".jinja"

# Aliases of Django's translation functions the project imports, as xgettext keywords (Django
# gives it gettext_lazy, ngettext_lazy, pgettext, pgettext_lazy, ... under their own names).
KEYWORDS = ["--keyword=_lazy"]
# Folders that hold no message of the site, skipped by default (as Django skips ".*", "CVS").
IGNORED = ["tests", "benchmarks", "node_modules", ".venv"]

# games.board's translation tags: the gettext function each one calls, and its number of
# written-out strings (the message, or the context and message, or the singular and plural).
TAGS = {"_t": ("gettext", 1), "_b": ("gettext", 1), "_p": ("pgettext", 2), "_n": ("ngettext", 2)}


def _literal(text: str) -> str:
    """A Python string literal of `text` as xgettext reads it (UTF-8 written as it is)."""
    escaped = (
        text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    )
    return f'"{escaped}"'


def jinja_as_python(source: str, name: str = "<template>") -> tuple[str, list[str]]:
    """The gettext calls of template `source` as Python, each on the line of its template,
    and the calls that could not be extracted (as "name:line: call")."""
    from games.board import environment  # the board's syntax (after Django's setup)

    try:
        tree = environment().parse(source, name=name, filename=name)
    except jinja2.TemplateSyntaxError as error:
        raise CommandError(f"{name}:{error.lineno}: {error.message}") from error
    lines: dict[int, list[str]] = {}
    skipped = []
    for lineno, tag, message in extract_from_ast(tree, tuple(TAGS), babel_style=True):
        function, wanted = TAGS[tag]
        strings = message if isinstance(message, tuple) else (message,)
        written = strings[:wanted]
        if len(written) < wanted or not all(isinstance(s, str) for s in written):
            skipped.append(f"{name}:{lineno}: {tag}() of a message not written out")
            continue
        if tag == "_t":
            written = (written[0].replace("%", "%%"),)  # as games.board's _t looks it up
        arguments = ", ".join(_literal(s) for s in written)
        if tag == "_n":
            arguments += ", n"
        lines.setdefault(lineno, []).append(f"{function}({arguments})")
    last = max(lines, default=0)
    text = "".join("; ".join(lines.get(n, ())) + "\n" for n in range(1, last + 1))
    return text, skipped


class BuildFile(makemessages.BuildFile):
    @property
    def is_jinja(self) -> bool:
        return self.domain == "django" and os.path.splitext(self.translatable.file)[1] == JINJA

    def preprocess(self):
        if not self.is_jinja:
            return super().preprocess()
        # is_templatized: the work file is `name.jinja.py`, its references made the template's
        # by postprocess_messages and the file removed by cleanup, as Django's own.
        with open(self.path, encoding="utf-8") as fp:
            source = fp.read()
        text, skipped = jinja_as_python(source, os.path.normpath(self.path))
        for call in skipped:
            self.command.stderr.write(f"not extracted: {call}")
        with open(self.work_path, "w", encoding="utf-8") as fp:
            fp.write(text)


class Command(makemessages.Command):
    help = makemessages.Command.help + (
        "\n\nThe board's Jinja2 templates (.jinja) are read too (games.board's _t, _p, _b, _n)."
    )
    build_file_class = BuildFile
    xgettext_options = [*makemessages.Command.xgettext_options, *KEYWORDS]

    def handle(self, *args, **options):
        if options["domain"] == "django":
            options["extensions"] = [*(options["extensions"] or ["html,txt,py"]), "jinja"]
        if options["use_default_ignore_patterns"]:
            options["ignore_patterns"] = [*options["ignore_patterns"], *IGNORED]
        return super().handle(*args, **options)
