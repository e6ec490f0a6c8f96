"""The picture set of the tablet sign-in: a student's code is three of these, unique in the class."""
from __future__ import annotations

from django.utils.translation import gettext_lazy as _

# (index, emoji, spoken name). The index is what is stored; never reorder, only append.
PICTURES: tuple[tuple[int, str, str], ...] = (
    (0, "🐱", _("cat")),
    (1, "🐶", _("dog")),
    (2, "🐟", _("fish")),
    (3, "🐦", _("bird")),
    (4, "🌞", _("sun")),
    (5, "🌙", _("moon")),
    (6, "⭐", _("star")),
    (7, "🌳", _("tree")),
    (8, "🍎", _("apple")),
    (9, "🚲", _("bike")),
    (10, "⛵", _("boat")),
    (11, "🏠", _("house")),
    (12, "🎈", _("balloon")),
    (13, "🐢", _("turtle")),
    (14, "🦋", _("butterfly")),
    (15, "🌈", _("rainbow")),
)
PICTURE_COUNT = len(PICTURES)
CODE_LENGTH = 3


def encode(indexes: tuple[int, ...] | list[int]) -> str:
    return "-".join(str(i) for i in indexes)


def decode(code: str) -> tuple[int, ...]:
    return tuple(int(part) for part in code.split("-") if part != "")


def pictures_of(code: str) -> list[tuple[int, str, str]]:
    return [PICTURES[i] for i in decode(code)]
