"""Every state of the table catalogue (games.catalogue) said cleanly, for every tablet, in en, fr
and de (issue 40): what the header's speaker and the table's own voice say (static/js/kavet.js
reads the board's parts, games.speech.BOARD_PARTS), checked by games.speech.speech_faults."""

from __future__ import annotations

import lxml.html
import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory
from django.utils import translation

from games import catalogue, speech
from tests.games.test_speech import _xpath, clean, js_join

pytestmark = pytest.mark.django_db


def board_speech(html: str) -> str:
    doc = lxml.html.fromstring(html)
    board = doc.get_element_by_id("board")
    parts = []
    for selector in speech.BOARD_PARTS:
        for el in board.xpath(_xpath(selector)):
            if not el.xpath("ancestor-or-self::*[@hidden]"):
                parts.append(el.get("data-speech") or el.text_content())
    return js_join(parts)


@pytest.mark.parametrize("name", list(catalogue.states()))
def test_each_state_is_said_cleanly_on_each_tablet(name):
    entry = catalogue.states()[name]
    for language in ("en", "fr", "de"):
        with translation.override(language):
            for position in entry.tablets():
                request = RequestFactory().get("/")
                request.user = AnonymousUser()
                html = catalogue.render(name, position, request)
                said = clean(board_speech(html), f"{name} seat {position}", language)
                speakers = lxml.html.fromstring(html).xpath("//*[@data-speaker]")
                assert len(speakers) <= 1
                if speakers:  # the one speaker reads the board
                    assert speakers[0].get("data-say-from") == "#board"
                assert said
