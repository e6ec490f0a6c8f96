"""The project's own pictures in templates, never an emoji.

    {% load kavet_pictures %}
    {% picture "trophy" %}                      alt = the word ("winner"), 64 × 64, class "pic"
    {% picture "robot" size=24 class="bot" %}
    {% picture "cat" alt="" %}                  decorative (the word is written beside it)
    {% picture_index 3 %}                       a sign-in picture by its stored index (3 = bird)

An unknown key or index renders nothing (bad data never breaks a page).
"""

from __future__ import annotations

from django import template
from django.templatetags.static import static
from django.utils.html import format_html

from classrooms.pictures import ALL_PICTURES, PICTURES

register = template.Library()

DEFAULT_SIZE = 64


def picture_src(key: str) -> str:
    return static(f"img/pictures/{key}.svg")


def _size(value) -> int:
    try:
        size = int(value)
    except (TypeError, ValueError):
        return DEFAULT_SIZE
    return size if 8 <= size <= 512 else DEFAULT_SIZE


@register.simple_tag
def picture(key, size=DEFAULT_SIZE, alt=None, **kwargs) -> str:
    key = str(key)
    if key not in ALL_PICTURES:
        return ""
    px = _size(size)
    text = str(ALL_PICTURES[key]) if alt is None else str(alt)
    css = " ".join(c for c in ("pic", f"pic-{key}", str(kwargs.get("class", "") or "")) if c)
    return format_html(
        '<img src="{}" alt="{}" width="{}" height="{}" class="{}" draggable="false">',
        picture_src(key),
        text,
        px,
        px,
        css,
    )


@register.simple_tag
def picture_index(index, size=DEFAULT_SIZE, alt=None, **kwargs) -> str:
    try:
        i = int(index)
    except (TypeError, ValueError):
        return ""
    if not 0 <= i < len(PICTURES):
        return ""
    return picture(PICTURES[i][1], size=size, alt=alt, **kwargs)


@register.filter
def picture_key(index) -> str:
    """The drawing's key of a sign-in index ('' when there is none)."""
    try:
        i = int(index)
    except (TypeError, ValueError):
        return ""
    return PICTURES[i][1] if 0 <= i < len(PICTURES) else ""
