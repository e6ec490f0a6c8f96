"""No emoji anywhere a child, a teacher or a parent sees (issue 10): a tablet without a colour-emoji
font drew them as empty boxes, and the sign-in pictures with them. Pictures are the project's own
SVG drawings (static/img/pictures/, {% picture %}); the PDF draws the same files."""

from __future__ import annotations

import os
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest

from classrooms.pictures import ALL_PICTURES, PICTURES

ROOT = Path(__file__).resolve().parent.parent.parent
PICTURES_DIR = ROOT / "static" / "img" / "pictures"
SKIP_DIRS = {".venv", "node_modules", "tests", ".git", "locale", "staticfiles", "benchmarks"}

# Emoji and pictograph blocks: symbols that need an emoji font.
EMOJI = re.compile(
    "[\U0001f000-\U0001faff\u2300-\u23ff\u2600-\u27bf\u2b00-\u2bff\ufe0f\u200d\U000e0020-\U000e007f]"
)
# Allowed, each because DejaVu Sans (the site's and the PDF's fallback text font) draws it in
# black and white: ✔ ✘ (replay verdicts, with words beside them), ⚠ (live-view flags, with words),
# ⌫ (the keypad's rub-out key, named by its aria-label).
ALLOWED = {
    "\u2714": "replay verdict",
    "\u2718": "replay verdict",
    "\u26a0": "live-view flag",
    "\u232b": "the table keypad's rub-out key (with an aria-label)",
}
DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def _files():
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")]
        for name in files:
            if name.endswith((".html", ".py", ".js", ".css", ".txt")):
                yield Path(folder) / name


def test_no_emoji_in_templates_code_or_static_files():
    found = []
    for path in _files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            for char in EMOJI.findall(line):
                if char not in ALLOWED:
                    found.append(f"{path.relative_to(ROOT)}:{number}: U+{ord(char):04X} {char}")
    assert found == []


@pytest.mark.skipif(not os.path.exists(DEJAVU), reason="DejaVu Sans is not installed here")
def test_the_allowed_symbols_are_in_dejavu_sans():
    from reportlab.pdfbase.ttfonts import TTFontFile

    font = TTFontFile(DEJAVU)
    assert [c for c in ALLOWED if ord(c) not in font.charToGlyph] == []


def test_every_picture_is_a_small_drawing_with_a_title():
    assert {key for _i, key, _name in PICTURES} <= set(ALL_PICTURES)
    for key in ALL_PICTURES:
        path = PICTURES_DIR / f"{key}.svg"
        assert path.stat().st_size < 3 * 1024, key
        root = ElementTree.parse(path).getroot()
        ns = "{http://www.w3.org/2000/svg}"
        assert root.tag == f"{ns}svg" and root.get("viewBox") == "0 0 64 64", key
        assert (root.find(f"{ns}title").text or "").strip(), key
        # Drawn with shapes only: no text (it would need a font) and no embedded image.
        assert root.find(f".//{ns}text") is None and root.find(f".//{ns}image") is None, key


def test_sign_in_indexes_never_move():
    # The stored code is the index: the 16 pictures keep their place (classrooms/pictures.py).
    assert [key for _i, key, _n in PICTURES] == [
        "cat",
        "dog",
        "fish",
        "bird",
        "sun",
        "moon",
        "star",
        "tree",
        "apple",
        "bike",
        "boat",
        "house",
        "balloon",
        "turtle",
        "butterfly",
        "rainbow",
    ]
    assert [i for i, _k, _n in PICTURES] == list(range(16))


def test_the_picture_tag_renders_an_image_with_the_word_and_ignores_bad_keys():
    from django.template import Context, Template
    from django.utils import translation

    with translation.override("fr"):
        html = Template(
            '{% load kavet_pictures %}{% picture_index 0 %}|{% picture "trophy" size=20 %}'
            '|{% picture "nope" %}|{% picture_index 99 %}|{% picture_index "x" %}'
        ).render(Context())
    cat, trophy, *bad = html.split("|")
    assert (
        'src="/static/img/pictures/cat.svg"' in cat and 'alt="chat"' in cat and 'width="64"' in cat
    )
    assert 'src="/static/img/pictures/trophy.svg"' in trophy and 'height="20"' in trophy
    assert bad == ["", "", ""]


def test_the_pdf_draws_the_same_svg_pictures():
    from reportlab.graphics.shapes import Drawing
    from reportlab.lib.units import mm

    from reports.pdf import picture_drawing

    for key in ALL_PICTURES:
        drawing = picture_drawing(key, 12 * mm)
        assert isinstance(drawing, Drawing) and round(drawing.width) == round(12 * mm), key
        assert drawing.getContents(), key
    assert picture_drawing("nope") is None
