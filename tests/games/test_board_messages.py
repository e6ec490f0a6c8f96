"""`manage.py makemessages` reads the board's Jinja2 templates (templates/games/board/*.jinja,
games/management/commands/makemessages.py): each `_t`, `_p`, `_b` and `_n` message is extracted
with its context, its plural and its line. The command runs in a temporary folder (a copy of the
templates, its own locale/): the project's locale/ is never written."""

from __future__ import annotations

import ast
import hashlib
import io
import re
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command, get_commands
from django.test import override_settings

from games import board
from tests.catalogues import Entry, read_po

BOARD = board.FOLDER / "games" / "board"
LOCALE = Path(board.FOLDER).parent / "locale"
QUOTED = r"""("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')"""


def make_messages(
    tmp_path: Path, monkeypatch, templates: dict[str, str], stderr=None
) -> dict[tuple[str | None, str], Entry]:
    """Run the project's makemessages over `templates` (name -> source) in tmp_path and read
    the .pot it made."""
    folder = tmp_path / "templates" / "games" / "board"
    folder.mkdir(parents=True)
    for name, source in templates.items():
        (folder / name).write_text(source, encoding="utf-8")
    (tmp_path / "locale").mkdir()
    monkeypatch.chdir(tmp_path)
    with override_settings(LOCALE_PATHS=[str(tmp_path / "locale")]):
        call_command("makemessages", locale=["fr"], keep_pot=True, verbosity=0, stderr=stderr)
    assert not list(folder.glob("*.py"))  # the files xgettext read are gone
    return read_po(tmp_path / "locale" / "django.pot")


@pytest.fixture
def untouched():
    """The project's catalogues and board templates are what they were after the test."""

    def state() -> dict[str, str]:
        files = [*LOCALE.glob("*/LC_MESSAGES/*.po"), *BOARD.iterdir()]
        return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(files)}

    before = state()
    yield
    assert state() == before


def test_the_projects_makemessages_is_the_one_that_reads_jinja():
    assert get_commands()["makemessages"] == "games"


def test_every_message_of_the_board_is_extracted_with_its_context_plural_and_line(
    tmp_path, monkeypatch, untouched
):
    sources = {p.name: p.read_text(encoding="utf-8") for p in sorted(BOARD.glob("*.jinja"))}
    pot = make_messages(tmp_path, monkeypatch, sources)

    wanted: dict[tuple[str | None, str], str | None] = {}
    where: dict[tuple[str | None, str], set[str]] = {}
    for name, text in sources.items():
        # (the call, its context, message and plural as written)
        calls = [(m, None, m[1], None) for m in re.finditer(rf"_[tb]\({QUOTED}", text)]
        calls += [(m, m[1], m[2], None) for m in re.finditer(rf"_p\({QUOTED}, {QUOTED}\)", text)]
        calls += [(m, None, m[1], m[2]) for m in re.finditer(rf"_n\({QUOTED}, {QUOTED},", text)]
        for match, context, message, plural in calls:
            message = ast.literal_eval(message)
            if match[0].startswith("_t"):
                message = message.replace("%", "%%")  # {% translate %}'s msgid, as _t asks it
            key = (context and ast.literal_eval(context), message)
            wanted[key] = plural and ast.literal_eval(plural)
            line = text.count("\n", 0, match.start()) + 1
            where.setdefault(key, set()).add(f"templates/games/board/{name}:{line}")
    assert len(wanted) > 60 and sum(1 for p in wanted.values() if p) >= 2
    assert any(context for context, _ in wanted)

    assert set(pot) == set(wanted)  # every message, and nothing else
    for key, plural in wanted.items():
        assert pot[key].plural == plural, key
        assert where[key] <= set(pot[key].refs), key


def test_an_apostrophe_in_the_html_hides_no_message(tmp_path, monkeypatch, untouched):
    # Read as Python (xgettext over the template itself), the apostrophe of "Kavet 'm eus" would
    # open a string running over the calls after it; Jinja2's parser knows the HTML is text.
    snippet = (
        '<p>Kavet \'m eus {{ _t("Say it!") }}</p>\n'
        '<p title=\'{{ _p("seconds", "s") }}\'>It\'s {{ _b("%(name)s\'s turn.", name=who) }}\n'
        '{{ _n("%(n)s point", "%(n)s points", score) }} 100% {{ _t("50% more") }}</p>\n'
        '{# {{ _t("In a comment") }} #}{% raw %}{{ _t("Raw text") }}{% endraw %}\n'
        '{% if x %}{{ _t("Kavet \'m eus!") }}{% endif %}{{ _t(name) }}\n'
    )
    told = io.StringIO()
    pot = make_messages(tmp_path, monkeypatch, {"snippet.jinja": snippet}, stderr=told)
    ref = "templates/games/board/snippet.jinja"
    assert {key: {"plural": e.plural, "refs": e.refs} for key, e in pot.items()} == {
        (None, "Say it!"): {"plural": None, "refs": [f"{ref}:1"]},
        ("seconds", "s"): {"plural": None, "refs": [f"{ref}:2"]},
        (None, "%(name)s's turn."): {"plural": None, "refs": [f"{ref}:2"]},
        (None, "%(n)s point"): {"plural": "%(n)s points", "refs": [f"{ref}:3"]},
        (None, "50%% more"): {"plural": None, "refs": [f"{ref}:3"]},
        (None, "Kavet 'm eus!"): {"plural": None, "refs": [f"{ref}:5"]},
    }
    assert f"not extracted: {ref}:5: _t()" in told.getvalue()  # _t(name): no message written


def test_a_template_jinja_cannot_parse_stops_the_command(tmp_path, monkeypatch, untouched):
    with pytest.raises(CommandError, match=r"broken\.jinja:2"):
        make_messages(tmp_path, monkeypatch, {"broken.jinja": '<p>\n{{ _t("x" }}</p>\n'})
    assert not list(tmp_path.rglob("*.py"))
