"""The picture set of the tablet sign-in: a student's code is three of these, unique in the class.

Every picture is the project's own drawing, ``static/img/pictures/<key>.svg``: no emoji font is
needed on the tablet, the teacher's computer or in the PDF, and all of them draw the same picture.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

# (index, key, spoken name). The index is what is stored; never reorder, only append.
# The key is the drawing's file name (static/img/pictures/<key>.svg).
PICTURES: tuple[tuple[int, str, str], ...] = (
    (0, "cat", _("cat")),
    (1, "dog", _("dog")),
    (2, "fish", _("fish")),
    (3, "bird", _("bird")),
    (4, "sun", _("sun")),
    (5, "moon", _("moon")),
    (6, "star", _("star")),
    (7, "tree", _("tree")),
    (8, "apple", _("apple")),
    (9, "bike", _("bike")),
    (10, "boat", _("boat")),
    (11, "house", _("house")),
    (12, "balloon", _("balloon")),
    (13, "turtle", _("turtle")),
    (14, "butterfly", _("butterfly")),
    (15, "rainbow", _("rainbow")),
)
PICTURE_COUNT = len(PICTURES)
CODE_LENGTH = 3

# The other pictographs of the site: key -> what a screen reader says.
PICTOGRAPHS: dict[str, str] = {
    "robot": _("computer player"),
    "trophy": _("winner"),
    "fox": _("fox"),
    "speaker": _("read aloud"),
    # The paused sign-in: wait, or ask the teacher.
    "hourglass": _("wait"),
    # An untimed game (R4.9, WCAG 2.2.1): no clock on this child's turn.
    "clock-off": _("no clock"),
    "teacher": _("teacher"),
    # The six event cards (R7): the card's Breton name is read as is.
    "unan": pgettext_lazy("event card", "UNAN"),
    "daou": pgettext_lazy("event card", "DAOU"),
    "tri": pgettext_lazy("event card", "TRI"),
    "pevar": pgettext_lazy("event card", "PEVAR"),
    "pemp": pgettext_lazy("event card", "PEMP"),
    "chwech": pgettext_lazy("event card", "C'HWEC'H"),
    "x": pgettext_lazy("card", "X"),
}

# Every drawing the site has, key -> word.
ALL_PICTURES: dict[str, str] = {key: name for _i, key, name in PICTURES} | PICTOGRAPHS


def encode(indexes: tuple[int, ...] | list[int]) -> str:
    return "-".join(str(i) for i in indexes)


def decode(code: str) -> tuple[int, ...]:
    return tuple(int(part) for part in code.split("-") if part != "")


def pictures_of(code: str) -> list[tuple[int, str, str]]:
    return [PICTURES[i] for i in decode(code)]


def picture_word(key: str) -> str:
    """The word a picture stands for, in the reader's language ('' for an unknown key)."""
    return str(ALL_PICTURES.get(key, ""))
