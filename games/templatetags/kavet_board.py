"""The table's board and its parts, from their one home (games.board, Jinja2) into a page.

{% load kavet_board %}
{% board %}          the board (#board) of templates/games/table.html, from the page's context
{% board_news %}     the screen reader's lines (#table-news)
{% board_ruling %}   the ruling panel (the class board, templates/games/board_table.html)
"""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from games import board as boards

register = template.Library()


@register.simple_tag(takes_context=True)
def board(context) -> SafeString:
    return boards.render_board(context.flatten(), context.get("request"))


@register.simple_tag(takes_context=True)
def board_news(context) -> SafeString:
    return boards.render_news(context.flatten(), context.get("request"))


@register.simple_tag(takes_context=True)
def board_ruling(context) -> SafeString:
    return boards.render_ruling(context.flatten())
