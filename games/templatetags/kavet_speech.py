"""The speaker button of a child page and the words it says (games.speech).

    {% load kavet_speech %}
    {% block speaker %}{% speaker text=page_speech %}{% endblock %}   a page's fixed words
    {% block speaker %}{% speaker source="#board" %}{% endblock %}    the parts of a live board
    {% block speaker %}{% speaker source="#main" parts="*" %}{% endblock %}  a page's parts
    <p data-speech="{{ line|spoken }}">{{ line }}</p>                 one part, said in words
    data-speech="{% say title text %}"                              parts joined, said in words

A board's parts are the elements of `source` with a data-speech attribute, in the order of
games.speech.BOARD_PARTS; the browser joins them as games.speech.join does (kavet.js).
"""

from __future__ import annotations

from django import template

from games import speech

register = template.Library()


@register.filter
def spoken(text: str) -> str:
    return speech.spoken(str(text or ""))


@register.simple_tag
def say(*parts: str) -> str:
    return speech.say(*(str(p or "") for p in parts))


@register.inclusion_tag("games/_speaker.html")
def speaker(text: str = "", source: str = "", parts: str = "") -> dict[str, str]:
    """`parts`: the selectors of the parts under `source` (default: a board's); "*" is every
    element with a data-speech attribute, in the page's order."""
    return {"text": text, "source": source, "parts": parts or ",".join(speech.BOARD_PARTS)}
