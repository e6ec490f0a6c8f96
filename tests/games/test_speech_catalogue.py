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


@pytest.mark.parametrize("name", ["over", "over-penalties"])
def test_the_ends_settlements_are_shown_as_the_cards_that_move_and_each_step_said(name):
    # R6.2: one lane per settlement that moves cards, in the engine's order, with the very cards
    # it moved (their numbers, X, an event card's picture), said cleanly in each language; the
    # ranking's points are the engine's final scores (R6.3, score_of).
    from games.engine.end import score_of

    entry = catalogue.states()[name]
    state = entry.state
    moved = [item for item in state.result["settlements"] if item["count"] > 0]
    assert len({item.get("seat") for item in moved}) >= 1 and len(moved) >= 4
    for language in ("en", "fr", "de"):
        with translation.override(language):
            request = RequestFactory().get("/")
            request.user = AnonymousUser()
            doc = lxml.html.fromstring(catalogue.render(name, entry.tablets()[0], request))
            steps = doc.xpath("//ol[@class='settle']/li")
            assert len(steps) == len(moved)
            for step, item in zip(steps, moved, strict=True):
                shown = [
                    face.text_content().strip() or face.xpath(".//img/@alt")[0]
                    for face in step.xpath(".//span[@class='settle-face']")
                ]
                assert shown == [state.cards[c].label for c in item["cards"]]
                words = step.xpath(".//p[@class='settle-words']")[0].text_content()
                assert step.get("data-speech") == speech.say(words)
                clean(step.get("data-speech"), f"{name} step", language)
                receiver = item["seat"] if item["kind"] == "unan" else item["to"]
                to = step.xpath(".//span[contains(@class, 'settle-to')]")[0].text_content()
                assert to == (
                    entry.names[receiver] or to
                )  # a computer player is named "Computer 1"
            points = [
                int(
                    "".join(
                        ch
                        for ch in r.xpath(".//span[@class='rank-score']")[0].text_content()
                        if ch.isdigit()
                    )
                )
                for r in doc.xpath("//ol[contains(@class, 'ranking')]/li")
            ]
            assert sorted(points) == sorted(score_of(state, s) for s in range(state.n_seats))
            ranking = doc.xpath("//ol[contains(@class, 'ranking')]")[0]
            clean(ranking.get("data-speech"), f"{name} ranking", language)
    assert [score_of(state, s) for s in range(state.n_seats)] == state.result["scores"]
