"""The French and German catalogues (locale/*/LC_MESSAGES/django.po) hold, translated, every
message the code and the templates mark, and nothing else active: the project's makemessages
(games/management/commands/makemessages.py) is run over a copy of the project's sources in a
temporary folder, with its own locale/ (the project's is never written), and the messages it
extracts are compared with the catalogues.

A failure names the messages. A message missing or untranslated: run
`manage.py makemessages -l fr -l de`, translate it (no `#, fuzzy` left: compilemessages skips
those). A message active in a catalogue that the extraction does not find: either its marker is
one xgettext does not read (an alias of gettext_lazy unknown to the command's KEYWORDS, a call
inside an f-string...), and the next makemessages would mark its translation obsolete, or the
code no longer says it, and makemessages marks it obsolete (#~) as it should."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

from tests.catalogues import Entry, read_po

pytestmark = pytest.mark.xdist_group("catalogues")  # one extraction, on one worker

ROOT = Path(settings.BASE_DIR)
LANGUAGES = ["fr", "de"]
# The files makemessages reads for the 'django' domain (html, txt, py, and the board's jinja).
READ = {".py", ".html", ".txt", ".jinja"}
NOT_COPIED = {"locale", "node_modules", "__pycache__"}  # (and every ".*" folder)


def shown(key: tuple[str | None, str]) -> str:
    context, message = key
    return f"[{context}] {message!r}" if context else repr(message)


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> dict[tuple[str | None, str], Entry]:
    """The messages the project's makemessages extracts from the project's sources (its .pot),
    run in a temporary copy of them: tests/ and benchmarks/ are copied, the command skips them."""
    root = tmp_path_factory.mktemp("project")
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in NOT_COPIED and not d.startswith(".")]
        target = root / Path(folder).relative_to(ROOT)
        for name in files:
            if os.path.splitext(name)[1] in READ:
                target.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(os.path.join(folder, name), target / name)
    locale = root / "locale"
    locale.mkdir()
    here = os.getcwd()
    os.chdir(root)
    try:
        with override_settings(LOCALE_PATHS=[str(locale)]):
            call_command("makemessages", locale=LANGUAGES, keep_pot=True, verbosity=0)
    finally:
        os.chdir(here)
    return read_po(locale / "django.pot")


def translated(entry: Entry) -> bool:
    """Each of its forms translated (French and German have two: one, many)."""
    return len(entry.msgstr) == (2 if entry.plural else 1) and all(entry.msgstr)


def catalogue(language: str) -> dict[tuple[str | None, str], Entry]:
    return read_po(ROOT / "locale" / language / "LC_MESSAGES" / "django.po")


def test_the_extraction_reads_every_kind_of_marker_and_not_the_tests(extracted):
    assert len(extracted) > 1000
    # gettext_lazy imported as _lazy (classrooms/services.py, reports/services.py)
    assert (None, "Only the school's admin can invite teachers.") in extracted
    assert (None, "Only a teacher of this child can make a code for a parent.") in extracted
    assert ("spoken key", "equals") in extracted  # games/speech.py, once inside an f-string
    assert ("spoken operation", "divided by") in extracted  # pgettext
    assert (None, "Kavet 'm eus!") in extracted  # Django templates and the board's Jinja2
    refs = {ref.split(":")[0] for entry in extracted.values() for ref in entry.refs}
    assert any(ref.startswith("templates/games/board/") for ref in refs)
    assert not {ref for ref in refs if ref.startswith(("tests/", "benchmarks/", "node_modules/"))}


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_marked_message_is_translated(extracted, language):
    po = catalogue(language)
    missing = [key for key in extracted if key not in po or po[key].obsolete]
    fuzzy = [key for key in extracted if key in po and "fuzzy" in po[key].flags]
    untranslated = [key for key in extracted if key in po and not translated(po[key])]
    plurals = [key for key in extracted if key in po and po[key].plural != extracted[key].plural]
    assert not missing, f"not in locale/{language}: " + "; ".join(map(shown, missing))
    assert not fuzzy, f"fuzzy in locale/{language}: " + "; ".join(map(shown, fuzzy))
    assert not untranslated, f"untranslated in locale/{language}: " + "; ".join(
        map(shown, untranslated)
    )
    assert not plurals, f"another plural in locale/{language}: " + "; ".join(map(shown, plurals))


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_active_translation_is_one_the_extraction_does_not_find(extracted, language):
    unread = [key for key, entry in catalogue(language).items() if not entry.obsolete]
    unread = [key for key in unread if key not in extracted]
    assert not unread, (
        f"active in locale/{language} but marked nowhere the extraction reads (a marker xgettext "
        "does not know, or a message gone: run makemessages): " + "; ".join(map(shown, unread))
    )


def test_the_catalogue_reader_reads_entries_without_a_blank_line_between(tmp_path):
    po = tmp_path / "x.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: fr\\n"\n\n'
        '#: a.py:1\nmsgid "One"\nmsgstr "Un"\n'
        '# a translator\'s note\nmsgctxt "c"\nmsgid "Two"\nmsgstr ""\n"Deux"\n'
        '#, fuzzy, python-format\nmsgid "%(n)s card"\nmsgid_plural "%(n)s cards"\n'
        'msgstr[0] "%(n)s carte"\nmsgstr[1] ""\n\n'
        '#~ msgid "Old"\n#~ msgstr "Vieux"\n',
        encoding="utf-8",
    )
    entries = read_po(po)
    assert list(entries) == [(None, "One"), ("c", "Two"), (None, "%(n)s card"), (None, "Old")]
    assert entries[(None, "One")].msgstr == ["Un"] and entries[(None, "One")].refs == ["a.py:1"]
    assert entries[("c", "Two")].msgstr == ["Deux"]
    card = entries[(None, "%(n)s card")]
    assert card.plural == "%(n)s cards" and card.msgstr == ["%(n)s carte", ""]
    assert card.flags == {"fuzzy", "python-format"}
    assert entries[(None, "Old")].obsolete and not card.obsolete
