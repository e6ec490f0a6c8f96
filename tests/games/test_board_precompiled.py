"""The table's board rendered by Jinja2 (games.board, issue 38) is byte for byte what Django's
templates rendered before it moved there: for every state of the table catalogue
(games.catalogue), in en, fr and de (and in English with names to escape), the table's shared
board with its stand-in marks as games.table_cache renders it, every tablet's own parts ("whose
turn", the move form), its whole board, its screen reader's news and its whole page
(tests/games/board_cases.py).

The goldens (tests/games/golden/board.json) are digests of the renders of Django's templates at
commit 3f20347 (templates/games/table.html's partials, _ruling.html, _coach.html), written by
this file's `test_write_goldens` at commit b18ada8, where the Jinja2 renders were also compared
with Django's side by side. benchmarks/bench_board_render.py still renders the templates of
3f20347 beside games.board and checks each pair."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import trans_real

from games import board, catalogue
from tests.games.board_cases import cases

GOLDEN = Path(__file__).parent / "golden" / "board.json"
PASSES = [("en", False), ("fr", False), ("de", False), ("en", True)]


def render(case) -> str:
    if case.kind == "page":
        return str(render_to_string("games/table.html", case.ctx, case.request))
    if case.kind in ("shared", "whole"):
        return board.render_board(case.ctx, case.request)
    if case.kind == "news":
        return board.render_news(case.ctx, case.request)
    if case.kind == "whose_turn":
        return board.render_whose_turn(case.ctx)
    return board.render_actions(case.ctx)


def digests(name: str) -> dict[str, str]:
    """The renders of state `name`: one digest per pass (language) and kind of render, of
    every seat's render of that kind in turn."""
    made: dict[str, hashlib._Hash] = {}
    for language, odd in PASSES:
        with translation.override(language), cases(name, odd=odd) as renders:
            for case in renders:
                group = f"{name}/{language}{'/odd' if odd else ''}/{case.kind}"
                part = f"{case.seat}\0{render(case)}\0".encode()
                made.setdefault(group, hashlib.sha256()).update(part)
    return {group: h.hexdigest()[:24] for group, h in made.items()}


@pytest.mark.django_db
@pytest.mark.parametrize("name", list(catalogue.states()))
def test_the_board_renders_as_django_rendered_it(name):
    golden = json.loads(GOLDEN.read_text())
    expected = {group: h for group, h in golden.items() if group.split("/")[0] == name}
    assert expected  # every state of the catalogue has its goldens
    assert digests(name) == expected


def test_every_message_of_the_board_is_in_the_french_and_german_catalogues():
    # A new message of the board that is not translated yet is caught here.
    text = "".join(p.read_text() for p in sorted(board.FOLDER.glob("games/board/*.jinja")))
    quoted = r"""("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')"""
    wanted = [(None, m) for m in re.findall(rf"_[tb]\({quoted}", text)]
    wanted += re.findall(rf"_p\({quoted}, {quoted}\)", text)
    plurals = re.findall(rf"_n\({quoted}, {quoted},", text)
    assert len(wanted) > 60 and len(plurals) >= 3
    for language in ("fr", "de"):
        catalogue_ = trans_real.translation(language)._catalog
        for context, message in wanted:
            msgid = message[1:-1]
            key = f"{context[1:-1]}\x04{msgid}" if context else msgid
            assert key in catalogue_, (language, msgid)
        for singular, _plural in plurals:
            assert (singular[1:-1], 0) in catalogue_, (language, singular)
