"""The table's board rendered by Jinja2 (games.board) is byte for byte what Django's templates
rendered (issue 38): for every state of the table catalogue (games.catalogue), in en, fr and de
(and in English with names to escape), the table's shared board with its stand-in marks as
games.table_cache renders it, every tablet's own parts ("whose turn", the move form), its whole
board, its screen reader's news and its whole page (tests/games/board_cases.py)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from games import board, catalogue
from tests.games.board_cases import cases

pytestmark = pytest.mark.django_db

GOLDEN = Path(__file__).parent / "golden" / "board.json"
PASSES = [("en", False), ("fr", False), ("de", False), ("en", True)]


def django_render(case) -> str:
    if case.kind == "page":
        return str(render_to_string("games/table.html", case.ctx, case.request))
    part = {"shared": "board", "whole": "board"}.get(case.kind, case.kind)
    return str(render_to_string(f"games/table.html#{part}", case.ctx, case.request))


def jinja_render(case) -> str:
    if case.kind == "page":
        return str(render_to_string("games/table.html", case.ctx, case.request))
    if case.kind in ("shared", "whole"):
        return board.render_board(case.ctx, case.request)
    if case.kind == "news":
        return board.render_news(case.ctx, case.request)
    if case.kind == "whose_turn":
        return board.render_whose_turn(case.ctx)
    return board.render_actions(case.ctx)


def key(name: str, language: str, odd: bool, case) -> str:
    return f"{name}/{language}{'/odd' if odd else ''}/{case.kind}/{case.seat}"


def digests(name: str, render) -> dict[str, str]:
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


@pytest.mark.parametrize("name", list(catalogue.states()))
def test_jinja_renders_what_django_rendered(name):
    # The two renders side by side, from the same contexts.
    mismatched = []
    for language, odd in PASSES:
        with translation.override(language), cases(name, odd=odd) as made:
            for case in made:
                if case.kind == "page":
                    continue
                expected, got = django_render(case), jinja_render(case)
                if expected != got:
                    mismatched.append((key(name, language, odd, case), expected, got))
    for where, expected, got in mismatched[:1]:
        at = next(i for i, (a, b) in enumerate(zip(expected, got, strict=False)) if a != b)
        at = min(at, len(expected), len(got))
        raise AssertionError(
            f"{where}: differs at {at}\nDjango: {expected[at - 200 : at + 200]!r}\n"
            f"Jinja:  {got[at - 200 : at + 200]!r}"
        )
    assert not mismatched


@pytest.mark.parametrize("name", list(catalogue.states()))
def test_the_board_renders_as_its_goldens(name):
    golden = json.loads(GOLDEN.read_text())
    expected = {group: h for group, h in golden.items() if group.split("/")[0] == name}
    assert expected  # every state of the catalogue has its goldens
    assert digests(name, jinja_render) == expected


@pytest.mark.skipif(not os.environ.get("KAVET_WRITE_GOLDENS"), reason="writes the goldens")
def test_write_goldens():
    found = {}
    for name in catalogue.states():
        found.update(digests(name, django_render))
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(found, indent=0) + "\n")
