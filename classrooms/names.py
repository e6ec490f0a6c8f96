"""People's and classes' names as typed: the one check every name goes through before it is kept.

A name is shown on class lists, sign-in cards, reports, emails and the CSV export, next to other
text. An invisible direction control (U+202E RIGHT-TO-LEFT OVERRIDE and its kin) inside a name
would reorder what follows it there ("Anna" + U+202E, then "21 points", reads "stniop 12"), and
other invisible characters make two names that look the same ("Anna" and "Anna" + U+200B ZERO
WIDTH SPACE). So a name is:

- normalised: NFC (an "é" typed as e + accent is the same name as a typed "é"), trimmed, runs
  of spaces, tabs and other blank characters folded into one space;
- refused, with a message naming the character, when it holds a control character (Cc), an
  invisible format character (Cf), a private-use or surrogate code point, or more than
  MAX_MARKS accents stacked on one letter (text that spills over the lines around it).

Every letter of every script is kept (Arabic and Hebrew names are written right to left by the
browser's own bidi algorithm, without any control), with combining accents, apostrophes and
hyphens, and emoji: the joiner U+200D inside a sequence (woman, skin tone, ZWJ, rocket),
variation selectors (U+FE0F, not Cf) and the tag characters of a flag sequence (U+1F3F4 + tags
+ U+E007F). U+200C (zero-width
non-joiner) is kept inside a word, as Persian and the Indic scripts spell with it.

Refused, not stripped: the teacher sees what was wrong and types the name again; a name that
was stripped silently could turn into a classmate's. Names kept before this check are cleaned
once by a data migration (classrooms 0004), and `name_for_display` strips the same characters
where text leaves the site as a file (the CSV export).
"""

from __future__ import annotations

import functools
import re
import unicodedata

from django.core.exceptions import ValidationError
from django.db import models
from django.forms import CharField as FormCharField
from django.utils.deconstruct import deconstructible
from django.utils.translation import ngettext

ZWNJ, ZWJ = "\u200c", "\u200d"
BLACK_FLAG = "\U0001f3f4"
CANCEL_TAG = "\U000e007f"
TAGS = range(0xE0020, 0xE0080)
MAX_MARKS = 4  # Vietnamese needs 2 after NFC, Thai and the Indic scripts 3; Zalgo many more
_REFUSED_CATEGORIES = {"Cc", "Cf", "Co", "Cs", "Zl", "Zp"}


# What a name's blanks are: a space of any script (Unicode Zs), a tab (a spreadsheet's column),
# and the line ends a browser sends from a text field. Python's str.split() and splitlines()
# also break on U+000B, U+000C, U+001C–U+001F, U+0085, U+2028 and U+2029: inside a name those
# are refused by name (they would break a line or a CSV field elsewhere), never folded.
_BLANK_RUN = re.compile("[\t\n\r \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+")  # + Zs
# The line ends a pasted list is split on: only these (the others are refused, see above).
LINE_END = re.compile(r"\r\n|\r|\n")


def name_normalise(text: str | None) -> str:
    """NFC, trimmed, every run of blank characters (any Unicode space, tab, line end) one space."""
    return _BLANK_RUN.sub(" ", unicodedata.normalize("NFC", text or "")).strip(" ")


def lines_split(text: str | None) -> list[str]:
    """A pasted list's lines: split on CR, LF and CRLF only, so any other separator stays in
    its line and the name check names it (str.splitlines() would cut "Ne" + U+0085 + "l" in two)."""
    return LINE_END.split(text or "")


def _tag_run_ok(text: str, start: int) -> tuple[bool, int]:
    """Whether the tag characters from `start` form a flag sequence's tail; where the run ends."""
    end = start
    while end < len(text) and ord(text[end]) in TAGS:
        end += 1
    ok = start > 0 and text[start - 1] == BLACK_FLAG and text[end - 1] == CANCEL_TAG
    return ok and end - start >= 2, end


def name_unsafe_characters(text: str) -> list[str]:
    """The characters of `text` that no name may hold, each once, in order of appearance."""
    if text.isascii() and text.isprintable():
        return []  # letters, digits, punctuation and the space: none refused, no marks
    found: dict[str, None] = {}  # ordered, each once
    i, marks = 0, 0
    while i < len(text):
        ch = text[i]
        if ord(ch) in TAGS:
            ok, end = _tag_run_ok(text, i)
            if not ok:
                found.update(dict.fromkeys(text[i:end]))
            i, marks = end, 0
            continue
        category = unicodedata.category(ch)
        if ch in (ZWJ, ZWNJ):
            # Only between two visible characters: at an edge or by a space it only hides.
            inside = 0 < i < len(text) - 1
            if not inside or text[i - 1].isspace() or text[i + 1].isspace():
                found[ch] = None
        elif category in _REFUSED_CATEGORIES and ch not in "\t\n\r":
            found[ch] = None  # a tab or a line end is a blank, folded by name_normalise
        # U+FE0F is a mark too, but it only asks for the emoji picture of what it follows.
        marks = marks + 1 if category.startswith("M") and ch != "\ufe0f" else 0
        if marks > MAX_MARKS:
            found[ch] = None
        i += 1
    return list(found)


def character_label(ch: str) -> str:
    """U+202E RIGHT-TO-LEFT OVERRIDE: how a message names a character nobody can see."""
    return f"U+{ord(ch):04X} {unicodedata.name(ch, '').strip()}".strip()


@functools.lru_cache(maxsize=4096)
def name_for_display(text: str | None) -> str:
    """The name without any character `name_unsafe_characters` finds (for files sent out).

    Remembered (a pure function of the text): every board names its players, a busy box draws
    hundreds of boards a second, and the names at its tables are a few thousand."""
    text = text or ""
    unsafe = set(name_unsafe_characters(text))
    if not unsafe:
        return text
    return name_normalise("".join(ch for ch in text if ch not in unsafe))


def name_error(text: str) -> ValidationError | None:
    """The refusal for a name holding unsafe characters (None when it is fine), in the
    reader's language, naming the characters and showing the name without them."""
    unsafe = name_unsafe_characters(text)
    if not unsafe:
        return None
    return ValidationError(
        ngettext(
            "“%(name)s” holds a hidden character that can jumble the text around it "
            "(%(characters)s). Type the name again without it.",
            "“%(name)s” holds hidden characters that can jumble the text around it "
            "(%(characters)s). Type the name again without them.",
            len(unsafe),
        )
        % {
            "name": name_for_display(text),
            "characters": ", ".join(character_label(ch) for ch in unsafe),
        },
        code="name_characters",
    )


def name_check(text: str | None) -> str:
    """The name normalised, or a ValidationError (code name_characters) saying what is wrong."""
    name = name_normalise(text)
    error = name_error(name)
    if error is not None:
        raise error
    return name


@deconstructible
class NameValidator:
    """For model and form fields: refuses a name with unsafe characters (see name_error)."""

    def __call__(self, value: str) -> None:
        error = name_error(value or "")
        if error is not None:
            raise error

    def __eq__(self, other) -> bool:
        return isinstance(other, NameValidator)


validate_name = NameValidator()


class NameFormField(FormCharField):
    """A form's name input: normalised (name_normalise), then checked (validate_name)."""

    default_validators = [validate_name]

    def to_python(self, value):
        return name_normalise(super().to_python(value))


class NameField(models.CharField):
    """A name column: its forms (the admin's too) normalise and check what is typed."""

    default_validators = [validate_name]

    def formfield(self, **kwargs):
        return super().formfield(**{"form_class": NameFormField, **kwargs})
