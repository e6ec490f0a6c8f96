"""The table's history (games.board.render_history, templates/games/board/history.jinja) is
byte for byte what Django's templates/games/_history.html rendered: the expected strings are
Django's renders, compared side by side with the Jinja2 ones at commit 0d30c98, before
_history.html was deleted."""

from __future__ import annotations

import pytest
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

SEVERAL = (
    '\n<li value="12"><p>Bo&#x27;s turn: “Kavet &#x27;m eus!”</p>'
    "<p>Anna &amp; Bo &lt;b&gt;tie&lt;/b&gt; &quot;again&quot;</p></li>"
    '<li value="11"><p><em>safe</em> & sound</p></li>'
    '<li value="10"><p>{nothing}</p><p>7</p></li>'
    '<li value="1234"><p>C&#x27;HWEC&#x27;H: a second chance.</p></li>'
)
EXPECTED = {
    ("empty", "en"): "\n<li>Nothing yet.</li>",
    ("empty", "fr"): "\n<li>Rien pour l'instant.</li>",  # a translation is printed as it is
    ("empty", "de"): "\n<li>Noch nichts.</li>",
    **{
        ("one", lang): '\n<li value="1"><p>Anna: 8 - 5 = 3.</p></li>' for lang in ("en", "fr", "de")
    },
    ("several", "en"): SEVERAL.format(nothing="Nothing yet."),
    ("several", "fr"): SEVERAL.format(nothing="Rien pour l&#x27;instant."),  # a value: escaped
    ("several", "de"): SEVERAL.format(nothing="Noch nichts."),
}


@pytest.mark.parametrize("language", ["en", "fr", "de"])
@pytest.mark.parametrize("name", list(HISTORIES))
def test_the_history_renders_as_django_rendered_it(name, language):
    with translation.override(language):
        assert board.render_history({"history": HISTORIES[name]}) == EXPECTED[(name, language)]
