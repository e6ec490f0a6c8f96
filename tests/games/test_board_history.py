"""The table's history (games.board.render_history, templates/games/board/history.jinja) is
byte for byte what Django's templates/games/_history.html rendered."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy

from games import board

HISTORIES = {
    "empty": [],
    "one": [(1, ["Anna: 8 - 5 = 3."])],
    "several": [
        (12, ["Bo's turn: “Kavet 'm eus!”", 'Anna & Bo <b>tie</b> "again"']),
        (11, [mark_safe("<em>safe</em> & sound")]),
        (10, [gettext_lazy("Nothing yet."), 7]),
        (1234, ["C'HWEC'H: a second chance."]),
    ],
}


@pytest.mark.parametrize("language", ["en", "fr", "de"])
@pytest.mark.parametrize("name", list(HISTORIES))
def test_the_history_renders_as_django_rendered_it(name, language):
    with translation.override(language):
        django = render_to_string("games/_history.html", {"history": HISTORIES[name]})
        assert board.render_history({"history": HISTORIES[name]}) == django
